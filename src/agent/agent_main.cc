// headroom-agent: the node agent. Registers this node with headroomd, heartbeats its tasks,
// telemetry and readiness, and runs the tasks the daemon places here (docs/agent.md).
// Exit status: 0 after a clean stop (SIGINT/SIGTERM) or --print-inventory; 1 when the daemon
// refuses the token; 2 for bad flags or an unusable setup (one line on stderr saying what).
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <fstream>
#include <optional>
#include <set>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "agent/agent.h"
#include "agent/agent_emulator.h"
#include "agent/agent_log.h"
#include "agent/agent_protocol.h"
#include "agent/host_facts.h"
#include "agent/http_url.h"
#include "agent/leftover_tasks.h"
#include "agent/node_discovery.h"
#include "agent/task_environment.h"
#include "agent/task_record_file.h"

namespace {

using namespace headroom::agent;

struct Flags {
  std::string server;
  std::string token;
  std::string token_file;
  std::string node;
  std::string inventory;
  std::string discovery = "auto";
  std::string nvml_library = kNvmlLibraryName;
  std::string dcgm_url;
  std::string telemetry_file;
  std::string readiness_cmd;
  std::string diagnostics_cmd;
  double diagnostics_timeout_s = 1800.0;
  double readiness_timeout_s = 60.0;
  double readiness_interval_s = 300.0;
  double readiness_before_start_s = 0;
  std::string gang_check_cmd;
  double gang_check_timeout_s = 120;
  std::string work_dir = "/var/lib/headroom-agent";
  double heartbeat_s = 0.0;
  std::string address;
  bool print_inventory = false;
  int emulate = 0;
  double emulate_seconds = 0;
  int emulate_threads = 1;
  double emulate_task_s = 60;
};

int Fail(const std::string& message) {
  std::fprintf(stderr, "headroom-agent: %s\n", message.c_str());
  return 2;
}

std::string HostName() {
  char name[256] = {};
  if (gethostname(name, sizeof name - 1) != 0) return "";
  return name;
}

// --print-inventory: what discovery found and one telemetry sample, as JSON on stdout.
int PrintInventory(const Flags& flags, DiscoveredNode& node) {
  nlohmann::json devices = nlohmann::json::array();
  for (const InventoryDevice& device : node.inventory.devices)
    devices.push_back(DeviceJson(device));
  nlohmann::json telemetry = nlohmann::json::array();
  nlohmann::json telemetry_error = nullptr;
  if (auto sample = node.telemetry->Sample()) {
    for (const DeviceTelemetry& reading : *sample) {
      telemetry.push_back(TelemetryJson({.reading = reading}));
    }
  } else {
    telemetry_error = sample.error().message;
  }
  // The limits a power cap moves between (power_limiter.h), read through NVML: null without it,
  // or the reason NVML gave.
  nlohmann::json power_limits = nullptr;
  if (node.nvml != nullptr) {
    power_limits = nlohmann::json::array();
    for (const InventoryDevice& device : node.inventory.devices) {
      auto limits = node.nvml->Limits(device.index);
      power_limits.push_back(
          limits ? nlohmann::json{{"index", device.index},
                                  {"now_w", limits->now_w},
                                  {"default_w", limits->default_w},
                                  {"min_w", limits->min_w},
                                  {"max_w", limits->max_w}}
                 : nlohmann::json{{"index", device.index}, {"error", limits.error().message}});
    }
  }
  const nlohmann::json out = {{"node", flags.node},
                              {"device_source", node.device_source},
                              {"cpu_milli", node.inventory.cpu_milli},
                              {"memory_mib", node.inventory.memory_mib},
                              {"devices", std::move(devices)},
                              {"telemetry_source", std::string(node.telemetry->name())},
                              {"telemetry", std::move(telemetry)},
                              {"telemetry_error", std::move(telemetry_error)},
                              {"power_limits", std::move(power_limits)},
                              {"notes", node.notes}};
  std::printf("%s\n", out.dump(2, ' ', false, nlohmann::json::error_handler_t::replace).c_str());
  return 0;
}

std::optional<DiscoveryMode> ParseMode(const std::string& text) {
  if (text == "auto") return DiscoveryMode::kAuto;
  if (text == "nvml") return DiscoveryMode::kNvml;
  if (text == "inventory") return DiscoveryMode::kInventory;
  return std::nullopt;
}

// The --server URL and the token from --token or --token-file, or an error message.
struct Connection {
  HttpUrl server;
  std::string token;
};

tl::expected<Connection, std::string> ConnectionFlags(const Flags& flags) {
  using Failure = tl::unexpected<std::string>;
  if (flags.server.empty()) {
    return Failure("--server URL is required (the daemon, http://host:port)");
  }
  auto server = ParseHttpUrl(flags.server);
  if (!server) return Failure("--server: " + server.error().message);
  if (!flags.token.empty() && !flags.token_file.empty()) {
    return Failure("--token and --token-file: give one of them, not both");
  }
  std::string token = flags.token;
  if (!flags.token_file.empty()) {
    std::ifstream in(flags.token_file);
    if (!in || !std::getline(in, token)) {
      return Failure("--token-file: cannot read a token from " + flags.token_file);
    }
  }
  if (token.empty()) {
    return Failure(flags.emulate > 0
                       ? "--token TOKEN or --token-file FILE is required (an admin token)"
                       : "--token TOKEN or --token-file FILE is required (an agent token)");
  }
  return Connection{*server, token};
}

// --emulate N: N nodes from this process (agent_emulator.h); the summary as one JSON line.
int Emulate(const Flags& flags) {
  SetLogNode(fmt::format("emulator {}", flags.node.empty() ? "emu" : flags.node));
  auto connection = ConnectionFlags(flags);
  if (!connection) return Fail(connection.error());
  StopSignal& stop = StopSignal::Install();
  auto summary = RunEmulator({.server = connection->server,
                              .admin_token = connection->token,
                              .node_prefix = flags.node.empty() ? "emu" : flags.node,
                              .nodes = flags.emulate,
                              .heartbeat_s = flags.heartbeat_s > 0 ? flags.heartbeat_s : 10.0,
                              .threads = flags.emulate_threads,
                              .seconds = flags.emulate_seconds,
                              .default_task_s = flags.emulate_task_s,
                              .address = flags.address.empty() ? "127.0.0.1" : flags.address},
                             stop);
  if (!summary) return Fail(summary.error().message);
  std::printf("%s\n", summary->ToJson().dump().c_str());
  std::fflush(stdout);
  return 0;
}

int Run(const Flags& flags_in) {
  if (flags_in.emulate > 0) return Emulate(flags_in);
  Flags flags = flags_in;
  if (flags.node.empty()) flags.node = HostName();
  if (flags.node.empty()) return Fail("--node: give this node's name (no host name to default to)");
  SetLogNode(flags.node);
  const std::optional<DiscoveryMode> mode = ParseMode(flags.discovery);
  if (!mode) return Fail("--discovery: expected auto, nvml or inventory, got " + flags.discovery);
  auto node = DiscoverNode({.mode = *mode,
                            .inventory_path = flags.inventory,
                            .dcgm_url = flags.dcgm_url,
                            .telemetry_file = flags.telemetry_file,
                            .nvml_library = flags.nvml_library});
  if (!node) return Fail(node.error().message);
  if (flags.print_inventory) return PrintInventory(flags, *node);

  auto connection = ConnectionFlags(flags);
  if (!connection) return Fail(connection.error());
  const HttpUrl* server = &connection->server;
  const std::string& token = connection->token;
  std::string address = flags.address;
  if (address.empty()) {
    auto local = LocalAddressFor(server->host, server->port);
    if (!local)
      return Fail("--address: cannot tell this node's address (" + local.error().message +
                  "); give --address");
    address = *local;
  }
  // What an earlier run of this agent left running (it was killed, or crashed) is stopped
  // before this one registers, so no new attempt shares a device with an old one.
  const TaskRecordFile records(flags.work_dir + "/state/tasks.json");
  auto leftovers = records.Load();
  if (!leftovers) {
    return Fail(leftovers.error().message +
                "; the agent cannot tell which task processes an earlier run left: stop them "
                "(ps -eo pid,pgid,lstart,args) and remove the file");
  }
  if (!leftovers->empty()) {
    auto stopped = StopLeftoverTasks(*leftovers, {});
    if (!stopped) return Fail(stopped.error().message);
    for (const StoppedLeftover& task : *stopped) {
      Log("stopped job {} rank {} attempt {} (process group {}) left by an earlier run{}",
          task.record.job, task.record.rank, task.record.attempt, task.record.pgid,
          task.needed_kill ? ": SIGKILL after the grace period" : "");
    }
    if (auto saved = records.Save({}); !saved) return Fail(saved.error().message);
  }
  std::set<int> indices;
  for (const InventoryDevice& device : node->inventory.devices) indices.insert(device.index);
  const std::vector<std::string> agent_env = CurrentEnvironment();
  auto launcher = TaskLauncher::Create({.work_dir = flags.work_dir,
                                        .agent_env = agent_env,
                                        .device_indices = indices,
                                        .record_path = records.path()});
  if (!launcher) return Fail(launcher.error().message);
  ReadinessCheck readiness(
      {.command = flags.readiness_cmd,
       .timeout_us = headroom::SecondsToUs(flags.readiness_timeout_s),
       .interval_us = headroom::SecondsToUs(flags.readiness_interval_s),
       .verified_for_us = headroom::SecondsToUs(flags.readiness_before_start_s),
       .output_path = flags.work_dir + "/readiness.out",
       .env = agent_env});
  DeviceDiagnostics diagnostics({.command = flags.diagnostics_cmd,
                                 .timeout_us = headroom::SecondsToUs(flags.diagnostics_timeout_s),
                                 .output_path = flags.work_dir + "/diagnostics.out",
                                 .env = agent_env});
  GangCheck gang_check({.command = flags.gang_check_cmd,
                        .timeout_us = headroom::SecondsToUs(flags.gang_check_timeout_s),
                        .work_dir = flags.work_dir,
                        .agent_env = agent_env});
  StopSignal& stop = StopSignal::Install();
  DaemonClient client({.server = *server, .token = token, .node = flags.node});
  Agent agent({.node = flags.node,
               .address = address,
               .heartbeat_s =
                   flags.heartbeat_s > 0 ? std::optional<double>(flags.heartbeat_s) : std::nullopt},
              std::move(*node), std::move(client), std::move(*launcher), std::move(readiness),
              std::move(diagnostics), std::move(gang_check), stop);
  return agent.Run();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"headroom-agent: runs the tasks headroomd places on this node"};
  Flags flags;
  app.add_option("--server", flags.server, "headroomd's URL, http://host:port");
  app.add_option("--token", flags.token, "this node's agent token (see POST /v1/tokens)");
  app.add_option("--token-file", flags.token_file, "read the token from this file instead");
  app.add_option("--node", flags.node, "this node's name (default: the host name)");
  app.add_option("--inventory", flags.inventory,
                 "fake inventory YAML: cpu, memory, devices (see docs/agent.md)");
  app.add_option("--discovery", flags.discovery,
                 "where devices come from: auto (NVML, else --inventory), nvml, inventory")
      ->check(CLI::IsMember({"auto", "nvml", "inventory"}));
  app.add_option("--nvml-library", flags.nvml_library, "the NVML library to load")
      ->capture_default_str();
  auto* dcgm_url = app.add_option("--dcgm-url", flags.dcgm_url,
                                  "read telemetry from a dcgm-exporter (or AMD's "
                                  "device-metrics-exporter), http://host:9400/metrics");
  app.add_option("--telemetry-file", flags.telemetry_file,
                 "read telemetry from this file of exporter text at every heartbeat")
      ->excludes(dcgm_url);
  app.add_option("--readiness-cmd", flags.readiness_cmd,
                 "shell command that must exit 0 before new tasks start (run via /bin/sh -c)");
  app.add_option("--diagnostics-cmd", flags.diagnostics_cmd,
                 "active diagnostics of one device when headroomd asks, run via /bin/sh -c with "
                 "{device} replaced by its index, e.g. 'dcgmi diag -r 3 -i {device}'; exit 0 "
                 "passes it");
  app.add_option("--diagnostics-timeout-s", flags.diagnostics_timeout_s,
                 "kill a diagnostics run after this long (counts as failed)")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_option("--readiness-timeout-s", flags.readiness_timeout_s,
                 "kill the readiness command after this long (counts as not ready)")
      ->check(CLI::Range(0.1, 86400.0))
      ->capture_default_str();
  app.add_option("--readiness-interval-s", flags.readiness_interval_s,
                 "seconds between readiness checks")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_option("--readiness-before-start-s", flags.readiness_before_start_s,
                 "a new task waits for a readiness check unless one passed within this many "
                 "seconds (0: the periodic checks suffice)")
      ->check(CLI::Range(0.0, 86400.0))
      ->capture_default_str();
  app.add_option("--gang-check-cmd", flags.gang_check_cmd,
                 "run before the tasks of a job on several nodes start here, with the lowest "
                 "rank's environment (e.g. an NCCL all-reduce across them); non-zero: the node "
                 "is not ready until a readiness check passes");
  app.add_option("--gang-check-timeout-s", flags.gang_check_timeout_s,
                 "kill a gang check after this many seconds (it fails)")
      ->check(CLI::Range(1.0, 86400.0))
      ->capture_default_str();
  app.add_option("--work-dir", flags.work_dir, "task output and readiness output go here")
      ->capture_default_str();
  app.add_option("--heartbeat-s", flags.heartbeat_s,
                 "seconds between heartbeats (default: the daemon's heartbeat_interval_s)")
      ->check(CLI::Range(0.05, 3600.0));
  app.add_option("--address", flags.address,
                 "the address to register (default: this host's address on the route to "
                 "--server)");
  app.add_option("--emulate", flags.emulate,
                 "emulate N nodes of 8 GPUs from this process (a load generator; --token is an "
                 "admin token, --node the name prefix); prints a JSON summary at the end")
      ->check(CLI::Range(1, 100000));
  app.add_option("--emulate-seconds", flags.emulate_seconds,
                 "with --emulate: stop after this long (default: at SIGINT/SIGTERM)")
      ->check(CLI::Range(0.0, 1e7));
  app.add_option("--emulate-threads", flags.emulate_threads,
                 "with --emulate: event loops; node k belongs to loop k mod T (default 1)")
      ->check(CLI::Range(1, 4096));
  app.add_option("--emulate-task-s", flags.emulate_task_s,
                 "with --emulate: how long a task runs unless its command is `sleep N`")
      ->capture_default_str()
      ->check(CLI::Range(0.0, 1e7));
  app.add_flag("--print-inventory", flags.print_inventory,
               "print the discovered inventory and one telemetry sample as JSON, then exit");
  app.set_version_flag("--version", "headroom-agent " HEADROOM_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "headroom-agent: %s\n", e.what());
    return 2;
  }
  try {
    return Run(flags);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "headroom-agent: internal error: %s\n", e.what());
    return 1;
  }
}
