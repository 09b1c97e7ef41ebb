// headroomd: the live control plane (docs/control.md). Parses flags, starts the Daemon, waits
// for SIGINT or SIGTERM and stops it cleanly (exit 0). Bad flags or configuration: one line on
// stderr, exit 2.
#include <sys/resource.h>

#include <algorithm>
#include <charconv>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>
#include <CLI/CLI.hpp>

#include "control/daemon.h"
#include "control/logging.h"

namespace {

using headroom::control::BackendKind;
using headroom::control::Daemon;
using headroom::control::DaemonOptions;
using headroom::control::LogLevel;

// headroomd's lines (control/logging.h) go to spdlog's logger on stderr: a time stamp, the
// program and the level on each.
spdlog::level::level_enum SpdlogLevel(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return spdlog::level::debug;
    case LogLevel::kInfo:
      return spdlog::level::info;
    case LogLevel::kWarn:
      return spdlog::level::warn;
    case LogLevel::kError:
      return spdlog::level::err;
  }
  return spdlog::level::err;
}

void LogToSpdlog(LogLevel level, std::string_view line) {
  spdlog::default_logger_raw()->log(SpdlogLevel(level),
                                    spdlog::string_view_t(line.data(), line.size()));
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "headroomd: %s\n", message.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"headroomd: the headroom control plane"};
  DaemonOptions options;
  std::string listen = "127.0.0.1:8470";
  std::string backend = "simulated";
  std::string port_file;
  double grace_s = 10;
  double heartbeat_s = 2;
  double keep_finished_s = 86400;
  double health_storm_window_s = 300;
  double engine_snapshot_s = 3600;
  double engine_log_keep_s = 7 * 86400;
  double autoscale_interval_s = 15;
  double load_report_max_age_s = 60;
  std::string log_level = "info";
  app.add_option("--listen", listen, "HOST:PORT to serve on (PORT 0: any free port)");
  app.add_option("--data-dir", options.data_dir, "Directory for headroom.db and admin.token")
      ->required();
  app.add_option("--backend", backend, "simulated (a digital twin) or agents (headroom-agent)")
      ->check(CLI::IsMember({"simulated", "agents"}));
  app.add_option("--cluster", options.cluster_file, "Cluster YAML for the simulated backend");
  app.add_option("--time-scale", options.time_scale,
                 "Simulated seconds per real second (simulated backend)");
  app.add_option("--policy", options.policy,
                 "Policy preset (fifo, slurm-like, spread, headroom) or policy file (FILE.yaml); "
                 "kept in the data dir until changed (PUT /v1/policy). Default: the kept one, "
                 "else headroom");
  app.add_option("--tls-cert", options.tls_cert, "PEM certificate: serve HTTPS");
  app.add_option("--tls-key", options.tls_key, "PEM private key for --tls-cert");
  app.add_option("--port-file", port_file, "Write the bound port to this file");
  app.add_option("--grace-s", grace_s, "Agents: seconds of silence before a node is unknown");
  app.add_option("--heartbeat-interval-s", heartbeat_s, "Agents: heartbeat interval to ask for");
  app.add_option("--stop-grace-s", options.agents.stop_grace_s,
                 "Agents: seconds from a task's SIGTERM (checkpoint now) to its SIGKILL "
                 "(default 30)")
      ->check(CLI::Range(0, 86400));
  app.add_option("--health-degraded-temp-c", options.health_rules.degraded_temp_c,
                 "Agents: a device at or above this temperature is degraded, out of use until "
                 "it cools by 5 C (default 87, the H100's max operating temperature)")
      ->check(CLI::Range(30.0, 150.0));
  app.add_option("--health-remapped-rows", options.health_rules.remapped_rows_warn,
                 "Agents: rows remapped for uncorrectable errors that make a device suspect "
                 "(default 512, DCGM's limit)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--health-nvlink-errors", options.health_rules.nvlink_errors_warn,
                 "Agents: NVLink errors between two heartbeats that make a device suspect "
                 "(default 100)")
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 40));
  app.add_option("--health-storm-share", options.health_rules.storm_share,
                 "Agents: the storm guard trips when health would take devices of more than this "
                 "share of the nodes out of use within --health-storm-window-s (default 0.5)")
      ->check(CLI::Range(0.0, 1.0));
  app.add_option("--health-storm-window-s", health_storm_window_s,
                 "Agents: the storm guard's window (default 300)")
      ->check(CLI::Range(1.0, 86400.0));
  app.add_option("--keep-finished-s", keep_finished_s,
                 "Forget finished jobs this many seconds after they ended (default 86400)");
  app.add_option("--engine-snapshot-s", engine_snapshot_s,
                 "Snapshot the engine log (a rebuild that carries fair-share usage) at least this "
                 "often (default 3600)");
  app.add_option("--engine-snapshot-events", options.engine_snapshot_events,
                 "... and once this many events were logged since the last snapshot, bounding "
                 "what a restart replays (default 250000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{1'000'000'000}));
  app.add_option("--engine-log-keep-s", engine_log_keep_s,
                 "Keep the engine log records that replay this many seconds back (default "
                 "604800)");
  app.add_option("--autoscale-interval-s", autoscale_interval_s,
                 "Sync autoscaled services with their reported load this often (default 15, as "
                 "Kubernetes' HPA)");
  app.add_option("--load-report-max-age-s", load_report_max_age_s,
                 "An older load report holds a service's replica count (default 60)");
  app.add_option("--prometheus-url", options.prometheus_url,
                 "Prometheus (http://HOST:PORT) to run services' autoscaling.prometheusQuery "
                 "against, once per --autoscale-interval-s");
  app.add_option("--max-finished", options.max_finished,
                 "Keep at most this many finished jobs, the newest (default 100000)");
  app.add_flag("--repair", options.repair,
               "Move the store's bad rows to its quarantine table, logging each, and start "
               "(headroom store check lists them first)");
  app.add_option("--max-pending-per-tenant", options.admission.max_pending_per_tenant,
                 "Pending jobs one tenant may have; more submissions get 429 (default 10000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_option("--max-pending", options.admission.max_pending,
                 "Pending jobs of all tenants together; more submissions get 429 (default 200000)")
      ->check(CLI::Range(uint64_t{1}, uint64_t{100'000'000}));
  app.add_option("--http-workers", options.http_workers,
                 "Threads that run requests (connections hold none; default 64)")
      ->check(CLI::Range(1, 1024));
  app.add_option("--max-connections", options.max_connections,
                 "Open HTTP connections at most (default 30000, capped by the open-file limit)")
      ->check(CLI::Range(16, 1'000'000));
  app.add_option("--max-long-polls-per-token", options.max_long_polls_per_token,
                 "Parked GET /v1/events long-polls per token (default 16)")
      ->check(CLI::Range(1, 100'000));
  app.add_option("--log-level", log_level, "debug, info, warning or error (default info)")
      ->check(CLI::IsMember(std::vector<std::string>(headroom::control::kLogLevelNames.begin(),
                                                     headroom::control::kLogLevelNames.end())));
  app.set_version_flag("--version", "headroomd " HEADROOM_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return Usage(e.what());
  }
  spdlog::set_default_logger(spdlog::stderr_color_mt("headroomd"));
  spdlog::set_level(spdlog::level::trace);  // the filter is the control layer's (LogEnabled)
  const auto level_index = std::find(headroom::control::kLogLevelNames.begin(),
                                     headroom::control::kLogLevelNames.end(), log_level) -
                           headroom::control::kLogLevelNames.begin();
  headroom::control::SetLogSink(&LogToSpdlog, static_cast<LogLevel>(level_index));
  options.policy_given = app.count("--policy") > 0;
  const size_t colon = listen.rfind(':');
  if (colon == std::string::npos || colon == 0) {
    return Usage("--listen: expected HOST:PORT, got '" + listen + "'");
  }
  options.host = listen.substr(0, colon);
  const std::string port_text = listen.substr(colon + 1);
  const auto [end, error] =
      std::from_chars(port_text.data(), port_text.data() + port_text.size(), options.port);
  if (port_text.empty() || error != std::errc() || end != port_text.data() + port_text.size() ||
      options.port < 0 || options.port > 65535) {
    return Usage("--listen: expected a port in [0, 65535], got '" + port_text + "'");
  }
  options.backend = backend == "agents" ? BackendKind::kAgents : BackendKind::kSimulated;
  // Every connection is a descriptor: take the hard open-file limit, and keep the connection
  // limit under it (with room for the store, logs and the agents' work).
  rlimit files{};
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
    if (files.rlim_cur != RLIM_INFINITY && files.rlim_cur > 256) {
      options.max_connections =
          static_cast<unsigned>(std::min<rlim_t>(options.max_connections, files.rlim_cur - 128));
    }
  }
  if (options.backend == BackendKind::kAgents && !options.cluster_file.empty()) {
    return Usage("--cluster is for --backend simulated; agents bring their own nodes");
  }
  if ((options.tls_cert.empty()) != (options.tls_key.empty())) {
    return Usage("--tls-cert and --tls-key go together");
  }
  if (!(grace_s > 0) || !(heartbeat_s > 0)) {
    return Usage("--grace-s and --heartbeat-interval-s must be positive");
  }
  if (!(keep_finished_s >= 0 && keep_finished_s <= 1e9)) {
    return Usage("--keep-finished-s: expected seconds in [0, 1e9]");
  }
  options.keep_finished_us = headroom::SecondsToUs(keep_finished_s);
  options.health_rules.storm_window_us = headroom::SecondsToUs(health_storm_window_s);
  if (!(engine_snapshot_s >= 1 && engine_snapshot_s <= 1e9) ||
      !(engine_log_keep_s >= 0 && engine_log_keep_s <= 1e9)) {
    return Usage(
        "--engine-snapshot-s: expected seconds in [1, 1e9]; --engine-log-keep-s: in "
        "[0, 1e9]");
  }
  if (!(autoscale_interval_s >= 0.1 && autoscale_interval_s <= 86400) ||
      !(load_report_max_age_s >= 0.1 && load_report_max_age_s <= 86400)) {
    return Usage(
        "--autoscale-interval-s and --load-report-max-age-s: expected seconds in "
        "[0.1, 86400]");
  }
  options.autoscale_interval_us = headroom::SecondsToUs(autoscale_interval_s);
  options.load_report_max_age_us = headroom::SecondsToUs(load_report_max_age_s);
  options.engine_snapshot_interval_us = headroom::SecondsToUs(engine_snapshot_s);
  options.engine_log_keep_us = headroom::SecondsToUs(engine_log_keep_s);
  options.agents.grace_us = headroom::SecondsToUs(grace_s);
  options.agents.heartbeat_interval_us = headroom::SecondsToUs(heartbeat_s);

  // Block the stop signals in every thread; the main thread waits for them below. A shell
  // starts background jobs with SIGINT ignored, and an ignored signal is discarded rather than
  // left pending for sigwait: restore the default first.
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  std::signal(SIGPIPE, SIG_IGN);

  auto daemon = Daemon::Start(options);
  if (!daemon) return Usage(daemon.error().message);
  if (!port_file.empty()) {
    const std::string temporary = port_file + ".tmp";
    {
      std::ofstream out(temporary);
      out << (*daemon)->port() << "\n";
    }
    if (std::rename(temporary.c_str(), port_file.c_str()) != 0) {
      (*daemon)->Stop();
      return Usage("--port-file: cannot write " + port_file);
    }
  }
  int signal = 0;
  sigwait(&stop_signals, &signal);
  headroom::control::LogInfo("signal {}: stopping", signal);
  (*daemon)->Stop();
  return 0;
}
