// headroom-agent --emulate against a real headroomd (--backend agents): 50 emulated nodes of
// 8 GPUs register and heartbeat from one process, a job of `sleep 1` on 8 GPUs runs on one of
// them and completes, and the summary line counts what happened. Issue 10 item 6.
#include <signal.h>

#include <cctype>

#include <random>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent/child_process.h"
#include "agent/emulated_node.h"
#include "agent_processes.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::Bin;
using testing::FileExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

TEST(EmulatedNode, TaskDurationsComeFromSleepCommands) {
  const TimeUs fallback = 7 * kUsPerSecond;
  EXPECT_EQ(EmulatedDurationUs({"sleep", "2"}, fallback), 2 * kUsPerSecond);
  EXPECT_EQ(EmulatedDurationUs({"/bin/sleep", "0.5"}, fallback), kUsPerSecond / 2);
  EXPECT_EQ(EmulatedDurationUs({"sleep", "3m"}, fallback), 180 * kUsPerSecond);
  EXPECT_EQ(EmulatedDurationUs({"sleep", "1x"}, fallback), fallback);
  EXPECT_EQ(EmulatedDurationUs({"python", "train.py"}, fallback), fallback);
}

TEST(EmulatedNode, ReportsRunningThenExitedUntilAcknowledged) {
  EmulatedNode node("emu-00000", 8, 60 * kUsPerSecond);
  EXPECT_EQ(node.Registration("127.0.0.1").inventory.devices.size(), 8u);
  EmulatedTaskCounts counts;
  const DesiredTask task{.key = {.job = 5, .rank = 0, .attempt = 1},
                         .devices = {0, 1},
                         .command = {"sleep", "1"},
                         .tenant = "team-a"};
  HeartbeatRequest sent = node.Heartbeat(0);
  node.Answered(sent, {task}, 0, counts);
  EXPECT_EQ(counts.started, 1);
  EXPECT_EQ(node.NextExitUs(), kUsPerSecond);
  sent = node.Heartbeat(kUsPerSecond / 2);
  ASSERT_EQ(sent.tasks.size(), 1u);
  EXPECT_EQ(sent.tasks[0].state, TaskState::kRunning);
  EXPECT_EQ(sent.telemetry[1].job, 5);
  EXPECT_EQ(sent.telemetry[2].job, std::nullopt);
  // Its second has passed: exited 0, reported while desired, dropped once acknowledged.
  sent = node.Heartbeat(kUsPerSecond);
  ASSERT_EQ(sent.tasks.size(), 1u);
  EXPECT_EQ(sent.tasks[0].state, TaskState::kExited);
  EXPECT_EQ(sent.tasks[0].exit_code, 0);
  node.Answered(sent, {task}, kUsPerSecond, counts);
  EXPECT_EQ(counts.exited, 1);
  EXPECT_EQ(counts.started, 1);  // Still desired: never started twice.
  EXPECT_EQ(node.Heartbeat(kUsPerSecond).tasks.size(), 1u);
  sent = node.Heartbeat(kUsPerSecond);
  node.Answered(sent, {}, kUsPerSecond, counts);
  EXPECT_TRUE(node.Heartbeat(kUsPerSecond).tasks.empty());
}

// Promise 4: while version() holds, the heartbeat body is the same, so the emulator may keep
// its encoding. Random hand-outs, withdrawals and passing time, over many seeds.
TEST(EmulatedNode, VersionChangesWheneverTheHeartbeatBodyWould) {
  for (unsigned seed = 1; seed <= 50; ++seed) {
    std::minstd_rand random(seed);
    EmulatedNode node("emu-00001", 8, 5 * kUsPerSecond);
    EmulatedTaskCounts counts;
    std::vector<DesiredTask> desired;
    TimeUs now_us = 0;
    uint64_t last_version = node.version();
    std::string last_body = HeartbeatJson(node.Heartbeat(now_us)).dump();
    for (int step = 0; step < 60; ++step) {
      now_us += static_cast<TimeUs>(random() % 3) * kUsPerSecond;
      const HeartbeatRequest sent = node.Heartbeat(now_us);
      const std::string body = HeartbeatJson(sent).dump();
      if (node.version() == last_version) {
        ASSERT_EQ(body, last_body) << "seed " << seed << " step " << step;
      }
      last_version = node.version();
      last_body = body;
      switch (random() % 3) {
        case 0:  // Hand out a task.
          desired.push_back(DesiredTask{.key = {.job = step, .rank = 0, .attempt = 1},
                                        .devices = {static_cast<int>(random() % 8)},
                                        .command = {"sleep", std::to_string(random() % 4)},
                                        .tenant = "team-a"});
          break;
        case 1:  // Withdraw one.
          if (!desired.empty()) desired.erase(desired.begin() + random() % desired.size());
          break;
        default:
          break;
      }
      node.Answered(sent, desired, now_us, counts);
      const std::string after = HeartbeatJson(node.Heartbeat(now_us)).dump();
      if (node.version() == last_version) {
        ASSERT_EQ(after, last_body) << "seed " << seed << " step " << step << " after the reply";
      }
      last_version = node.version();
      last_body = after;
    }
  }
}

TEST(AgentEmulatorEndToEnd, FiftyNodesRegisterHeartbeatAndCompleteAJob) {
  constexpr int kNodes = 50;
  ScratchDir dir;
  const std::string data = dir.File("data");
  auto daemon =
      ChildProcess::Spawn({.argv = {Bin("headroomd"), "--listen", "127.0.0.1:0", "--data-dir", data,
                                    "--backend", "agents", "--port-file", dir.File("port")},
                           .env = {"PATH=/usr/bin:/bin"},
                           .stdout_path = dir.File("headroomd.log"),
                           .stderr_path = dir.File("headroomd.log")});
  ASSERT_TRUE(daemon.has_value()) << daemon.error().message;
  const auto logs = [&] {
    return "headroomd log:\n" + ReadFile(dir.File("headroomd.log")) + "\nemulator log:\n" +
           ReadFile(dir.File("emulator.log"));
  };
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("port")) && FileExists(data + "/admin.token");
  })) << logs();
  const int port = std::stoi(ReadFile(dir.File("port")));
  // The admin token goes by file, as an operator would pass it.
  auto emulator = ChildProcess::Spawn(
      {.argv = {Bin("headroom-agent"), "--emulate", std::to_string(kNodes), "--server",
                "http://127.0.0.1:" + std::to_string(port), "--token-file", data + "/admin.token",
                "--heartbeat-s", "0.5", "--emulate-seconds", "120"},
       .env = {"PATH=/usr/bin:/bin"},
       .stdout_path = dir.File("summary.json"),
       .stderr_path = dir.File("emulator.log")});
  ASSERT_TRUE(emulator.has_value()) << emulator.error().message;

  testing::DaemonApi admin(port, testing::AdminToken(data));
  json nodes;
  ASSERT_TRUE(WaitUntil(
      [&] {
        nodes = admin.Get("/v1/nodes");
        if (!nodes.is_object() || nodes["nodes"].size() != kNodes) return false;
        for (const json& node : nodes["nodes"]) {
          if (node["state"] != "up") return false;
        }
        return true;
      },
      std::chrono::seconds(60)))
      << nodes.dump() << logs();

  const json spec = {{"apiVersion", "headroom/v1"},
                     {"kind", "Job"},
                     {"spec",
                      {{"tasks", 1},
                       {"timeLimit", 600},
                       {"command", {"sleep", "1"}},
                       {"devices", {{"requests", {{{"name", "gpus"}, {"count", 8}}}}}}}}};
  auto submitted = admin.client().Post("/v1/jobs", spec.dump(), "application/json");
  ASSERT_TRUE(submitted && submitted->status == 201) << logs();
  const std::string job_path =
      "/v1/jobs/" + std::to_string(json::parse(submitted->body)["id"].get<int64_t>());
  json job;
  ASSERT_TRUE(WaitUntil(
      [&] {
        job = admin.Get(job_path);
        return job.is_object() && job["state"] == "completed";
      },
      std::chrono::seconds(30)))
      << job.dump() << logs();
  EXPECT_EQ(job["exit_code"], 0) << job.dump();

  // Stopped by SIGTERM, the emulator prints its summary as one JSON line.
  emulator->SignalGroup(SIGTERM);
  ASSERT_EQ(emulator->Wait(), 0) << logs();
  const json summary = json::parse(ReadFile(dir.File("summary.json")), nullptr, false);
  ASSERT_TRUE(summary.is_object()) << ReadFile(dir.File("summary.json")) << logs();
  EXPECT_EQ(summary["nodes"], kNodes);
  EXPECT_EQ(summary["registered"], kNodes);
  EXPECT_EQ(summary["registrations_ok"], kNodes);
  EXPECT_EQ(summary["registrations_failed"], 0);
  EXPECT_EQ(summary["heartbeats_failed"], 0);
  EXPECT_GE(summary["heartbeats_sent"].get<int64_t>(), kNodes);
  EXPECT_EQ(summary["tasks_started"], 1);
  EXPECT_EQ(summary["tasks_exited"], 1);
  EXPECT_GT(summary["heartbeat_p99_ms"].get<double>(), 0.0);
  EXPECT_GE(summary["heartbeat_p99_ms"].get<double>(), summary["heartbeat_p50_ms"].get<double>());
  daemon->SignalGroup(SIGTERM);
  EXPECT_EQ(daemon->Wait(), 0) << logs();
}

}  // namespace
}  // namespace headroom::agent
