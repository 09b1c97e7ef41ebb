// End to end: the real headroom-agent binary against an in-test fake headroomd implementing
// register and heartbeat as docs/api.md describes. The fake refuses the first register (503:
// the agent retries), forgets the node once (404 on heartbeat: the agent registers again), hands
// out both tasks of a two-task gang while the agent's readiness check still fails (nothing may
// start), then lets readiness pass, then drops one task, then the agent is sent SIGTERM.
// Checked: the right environment in each task, labelled telemetry, the dropped task's checkpoint
// on SIGTERM and its exit report, and a clean exit 0 that stops the other task too.
#include <signal.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/child_process.h"
#include "agent_test_files.h"
#include "testing/binaries.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::FileExists;
using testing::ProcessExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

std::string AgentBinary() { return headroom::testing::BinaryPath("headroom-agent"); }

class FakeDaemon {
 public:
  explicit FakeDaemon(std::string task_script) : script_(std::move(task_script)) {
    server_.Post("/v1/agents/register", [this](const httplib::Request& request,
                                               httplib::Response& response) {
      std::lock_guard lock(mutex_);
      ++registers_;
      if (request.get_header_value("Authorization") != "Bearer tok-n1") {
        return Error(response, 401, "unauthenticated");
      }
      if (registers_ == 1) return Error(response, 503, "unavailable");
      registrations_.push_back(json::parse(request.body));
      response.set_content(R"({"heartbeat_interval_s": 0.1, "grace_s": 10})", "application/json");
    });
    server_.Post("/v1/agents/n1/heartbeat",
                 [this](const httplib::Request& request, httplib::Response& response) {
                   std::lock_guard lock(mutex_);
                   if (!forgot_once_) {
                     forgot_once_ = true;
                     return Error(response, 404, "node n1 is not registered");
                   }
                   heartbeats_.push_back(json::parse(request.body));
                   json tasks = json::array();
                   for (int rank = 0; rank < desired_ranks_; ++rank) {
                     tasks.push_back({{"job", 7},
                                      {"rank", rank},
                                      {"world_size", 2},
                                      {"devices", {rank}},
                                      {"command", {"/bin/sh", "-c", script_}},
                                      {"env", {{"FROM_JOB", "yes"}}},
                                      {"rendezvous", "127.0.0.1:29511"},
                                      {"stop_grace_s", 5},
                                      {"tenant", "team-a"}});
                   }
                   response.set_content(json{{"tasks", tasks}}.dump(), "application/json");
                 });
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ~FakeDaemon() {
    server_.stop();
    thread_.join();
  }

  int port() const { return port_; }
  void SetDesiredRanks(int ranks) {
    std::lock_guard lock(mutex_);
    desired_ranks_ = ranks;
  }
  int registers() {
    std::lock_guard lock(mutex_);
    return registers_;
  }
  std::vector<json> registrations() {
    std::lock_guard lock(mutex_);
    return registrations_;
  }
  std::vector<json> heartbeats() {
    std::lock_guard lock(mutex_);
    return heartbeats_;
  }
  // The task entry for `rank` in the latest heartbeat, or null.
  // The task as the newest heartbeat that mentions it reported it. Not only the last
  // heartbeat: an exit is reported until the daemon stops desiring the task, which can be a
  // single heartbeat 0.1 s before the next, and a test polling under load may miss it there.
  json LatestTask(int rank) {
    std::lock_guard lock(mutex_);
    for (auto beat = heartbeats_.rbegin(); beat != heartbeats_.rend(); ++beat) {
      for (const json& task : (*beat)["tasks"]) {
        if (task["job"] == 7 && task["rank"] == rank) return task;
      }
    }
    return nullptr;
  }

  // Whether the last heartbeat reports the task.
  bool ReportedNow(int rank) {
    std::lock_guard lock(mutex_);
    if (heartbeats_.empty()) return false;
    for (const json& task : heartbeats_.back()["tasks"]) {
      if (task["job"] == 7 && task["rank"] == rank) return true;
    }
    return false;
  }

 private:
  static void Error(httplib::Response& response, int status, const std::string& code) {
    response.status = status;
    response.set_content(json{{"error", {{"code", code}, {"message", "fake: " + code}}}}.dump(),
                         "application/json");
  }

  std::string script_;
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  int registers_ = 0;
  bool forgot_once_ = false;
  int desired_ranks_ = 2;
  std::vector<json> registrations_;
  std::vector<json> heartbeats_;
};

std::map<std::string, std::string> EnvOf(const std::string& text) {
  std::map<std::string, std::string> env;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    const size_t equals = line.find('=');
    if (equals != std::string::npos) env[line.substr(0, equals)] = line.substr(equals + 1);
  }
  return env;
}

TEST(AgentEndToEnd, RunsAGangAgainstAFakeDaemonAndStopsCleanly) {
  ScratchDir dir;
  const testing::GroupKiller leftovers({dir.File("pid-0"), dir.File("pid-1")});
  // The trap first: the test stops a rank once its env file exists, and a SIGTERM before the
  // trap would end the shell without a checkpoint.
  const std::string task_script =
      "trap 'echo saved > " + dir.File("ckpt-$HEADROOM_RANK") + "; exit 0' TERM; echo $$ > " +
      dir.File("pid-$HEADROOM_RANK") + "; env > " + dir.File("env-$HEADROOM_RANK.tmp") + " && mv " +
      dir.File("env-$HEADROOM_RANK.tmp") + " " + dir.File("env-$HEADROOM_RANK") +
      "; while true; do sleep 0.05; done";
  FakeDaemon daemon(task_script);
  std::ofstream(dir.File("inventory.yaml"))
      << "cpu: 16\nmemory: 64Gi\ndevices:\n"
         "- {index: 0, uuid: GPU-a, model: H100, memory: 80Gi, telemetry: {temp_c: 41}}\n"
         "- {index: 1, uuid: GPU-b, model: H100, memory: 80Gi, clique_id: c.1}\n";
  auto agent = ChildProcess::Spawn(
      {.argv = {AgentBinary(), "--server", "http://127.0.0.1:" + std::to_string(daemon.port()),
                "--token", "tok-n1", "--node", "n1", "--inventory", dir.File("inventory.yaml"),
                "--work-dir", dir.File("work"), "--address", "127.0.0.1", "--readiness-cmd",
                "test -e " + dir.File("ready"), "--readiness-interval-s", "1"},
       .env = {"PATH=/usr/bin:/bin"},
       .stdout_path = dir.File("agent.log"),
       .stderr_path = dir.File("agent.log")});
  ASSERT_TRUE(agent.has_value()) << agent.error().message;
  const auto log = [&] { return "agent log:\n" + ReadFile(dir.File("agent.log")); };

  // 503, then registered; 404 on the first heartbeat, registered again; heartbeats flow.
  ASSERT_TRUE(WaitUntil([&] { return daemon.heartbeats().size() >= 3; })) << log();
  EXPECT_EQ(daemon.registers(), 3) << log();
  const json registration = daemon.registrations().at(0);
  EXPECT_EQ(registration["node"], "n1");
  EXPECT_EQ(registration["cpu_milli"], 16000);
  EXPECT_EQ(registration["memory_mib"], 65536);
  EXPECT_EQ(registration["address"], "127.0.0.1");
  EXPECT_EQ(registration["ready"], false);
  EXPECT_EQ(registration["devices"][1]["clique_id"], "c.1");
  EXPECT_EQ(registration["devices"][1]["memory_mib"], 81920);

  // Not ready: the desired tasks must not start.
  const json not_ready = daemon.heartbeats().back();
  EXPECT_EQ(not_ready["ready"], false);
  EXPECT_NE(not_ready["readiness_message"].get<std::string>().find("readiness check exited 1"),
            std::string::npos);
  EXPECT_TRUE(not_ready["tasks"].empty());
  EXPECT_FALSE(FileExists(dir.File("env-0")));

  std::ofstream(dir.File("ready")).close();
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("env-0")) && FileExists(dir.File("env-1"));
  })) << log();
  for (int rank = 0; rank < 2; ++rank) {
    const auto env = EnvOf(ReadFile(dir.File("env-" + std::to_string(rank))));
    EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), std::to_string(rank));
    EXPECT_EQ(env.at("HEADROOM_JOB_ID"), "7");
    EXPECT_EQ(env.at("HEADROOM_RANK"), std::to_string(rank));
    EXPECT_EQ(env.at("HEADROOM_WORLD_SIZE"), "2");
    EXPECT_EQ(env.at("HEADROOM_RENDEZVOUS"), "127.0.0.1:29511");
    EXPECT_EQ(env.at("RANK"), std::to_string(rank));
    EXPECT_EQ(env.at("WORLD_SIZE"), "2");
    EXPECT_EQ(env.at("MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(env.at("MASTER_PORT"), "29511");
    EXPECT_EQ(env.at("FROM_JOB"), "yes");
    EXPECT_EQ(env.at("PATH"), "/usr/bin:/bin");
  }
  ASSERT_TRUE(WaitUntil([&] {
    return daemon.LatestTask(0).is_object() && daemon.LatestTask(1).is_object();
  })) << log();
  const json rank0 = daemon.LatestTask(0);
  const json rank1 = daemon.LatestTask(1);
  EXPECT_EQ(rank0["state"], "running");
  EXPECT_EQ(rank1["state"], "running");
  const pid_t pid0 = rank0["pid"].get<pid_t>();
  const pid_t pid1 = rank1["pid"].get<pid_t>();
  EXPECT_TRUE(ProcessExists(pid0));
  EXPECT_TRUE(ProcessExists(pid1));
  const json beat = daemon.heartbeats().back();
  EXPECT_EQ(beat["ready"], true);
  EXPECT_EQ(beat["telemetry"][0], json::parse(R"({"index": 0, "temp_c": 41.0, "power_w": null,
      "util": null, "xid_errors": null, "ecc_uncorrectable": null, "remapped_rows": null,
      "row_remap_failure": null, "nvlink_errors": null, "job": 7, "tenant": "team-a"})"));
  EXPECT_EQ(beat["telemetry"][1]["job"], 7);

  // Drop rank 1: SIGTERM lets it checkpoint; its exit is reported.
  daemon.SetDesiredRanks(1);
  ASSERT_TRUE(WaitUntil([&] {
    const json task = daemon.LatestTask(1);
    return task.is_object() && task["state"] == "exited";
  })) << log();
  EXPECT_EQ(daemon.LatestTask(1)["exit_code"], 0);
  EXPECT_EQ(ReadFile(dir.File("ckpt-1")), "saved\n");
  EXPECT_FALSE(ProcessExists(pid1));
  EXPECT_TRUE(ProcessExists(pid0));
  EXPECT_FALSE(FileExists(dir.File("ckpt-0")));
  // Acknowledged and no longer desired: it leaves the reports.
  ASSERT_TRUE(WaitUntil([&] { return !daemon.ReportedNow(1); })) << log();

  // SIGTERM to the agent: rank 0 checkpoints, the agent exits 0 with nothing left behind.
  kill(agent->pid(), SIGTERM);
  EXPECT_EQ(agent->Wait(), 0) << log();
  EXPECT_EQ(ReadFile(dir.File("ckpt-0")), "saved\n");
  EXPECT_FALSE(ProcessExists(pid0));
  EXPECT_NE(ReadFile(dir.File("agent.log")).find("all tasks stopped"), std::string::npos);
}

TEST(AgentEndToEnd, RefusedTokenEndsTheAgentWithExitOne) {
  ScratchDir dir;
  FakeDaemon daemon("true");
  std::ofstream(dir.File("inventory.yaml")) << "cpu: 1\nmemory: 1Gi\ndevices: []\n";
  auto agent = ChildProcess::Spawn(
      {.argv = {AgentBinary(), "--server", "http://127.0.0.1:" + std::to_string(daemon.port()),
                "--token", "not-the-token", "--node", "n1", "--inventory",
                dir.File("inventory.yaml"), "--work-dir", dir.File("work"), "--address",
                "127.0.0.1"},
       .env = {"PATH=/usr/bin:/bin"},
       .stdout_path = dir.File("agent.log"),
       .stderr_path = dir.File("agent.log")});
  ASSERT_TRUE(agent.has_value()) << agent.error().message;
  EXPECT_EQ(agent->Wait(), 1);
  EXPECT_NE(ReadFile(dir.File("agent.log")).find("register refused: POST"), std::string::npos)
      << ReadFile(dir.File("agent.log"));
  EXPECT_EQ(daemon.registers(), 1);
}

TEST(AgentEndToEnd, BadFlagsAndMissingDevicesExitTwoWithOneLine) {
  ScratchDir dir;
  const auto run = [&](std::vector<std::string> argv) {
    argv.insert(argv.begin(), AgentBinary());
    auto agent = ChildProcess::Spawn({.argv = argv,
                                      .env = {"PATH=/usr/bin:/bin"},
                                      .stdout_path = dir.File("out"),
                                      .stderr_path = dir.File("err")});
    EXPECT_TRUE(agent.has_value());
    const int code = agent->Wait();
    const std::string err = ReadFile(dir.File("err"));
    std::remove(dir.File("err").c_str());
    return std::make_pair(code, err);
  };
  auto [code, err] = run({"--server", "http://127.0.0.1:1", "--bogus"});
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, "headroom-agent: The following argument was not expected: --bogus\n");
  std::tie(code, err) = run({"--server", "http://127.0.0.1:1", "--token", "t", "--node", "n1",
                             "--nvml-library", "libnvidia-ml-absent.so.1"});
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err.rfind("headroom-agent: no devices to register: NVML is not present: cannot load "
                      "libnvidia-ml-absent.so.1 (",
                      0),
            0u)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1);
  std::tie(code, err) = run({"--node", "n1", "--inventory", dir.File("missing.yaml")});
  EXPECT_EQ(code, 2);
  EXPECT_EQ(err, "headroom-agent: " + dir.File("missing.yaml") + ": cannot open file\n");
}

}  // namespace
}  // namespace headroom::agent
