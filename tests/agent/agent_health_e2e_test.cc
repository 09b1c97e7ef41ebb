// End to end, device health with real processes: headroomd on the agents backend and two
// headroom-agents of two fake devices, each reading its telemetry from a dcgm-exporter text file
// (--telemetry-file). A fatal XID written to the file of the node that runs a job moves that
// device to failed; the job is requeued as an interruption and runs again on the other node; a
// job that needs both devices of the first node waits until an operator repairs and returns the
// failed one; /metrics and the API show each state; and the daemon's history replays offline.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "agent_processes.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::FileExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

// Replaces `path` at once, so that an agent never reads half of it.
void WriteAtomically(const std::string& path, const std::string& text) {
  std::ofstream(path + ".tmp") << text;
  std::filesystem::rename(path + ".tmp", path);
}

// dcgm-exporter text for a node of two devices, with `xid` as device 1's last XID.
void WriteTelemetry(const std::string& path, int xid) {
  WriteAtomically(path,
                  "# TYPE DCGM_FI_DEV_XID_ERRORS gauge\n"
                  "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\",UUID=\"GPU-0\",modelName=\"H100\"} 0\n"
                  "DCGM_FI_DEV_XID_ERRORS{gpu=\"1\",UUID=\"GPU-1\",modelName=\"H100\"} " +
                      std::to_string(xid) +
                      "\nDCGM_FI_DEV_GPU_TEMP{gpu=\"0\"} 40\nDCGM_FI_DEV_GPU_TEMP{gpu=\"1\"} 41\n");
}

// Submits a one-task job of `devices` devices running `script` (testing::CheckpointingTask);
// returns its id, 0 when refused.
int64_t Submit(testing::DaemonApi& admin, const std::string& script, int devices) {
  const json spec = {{"spec",
                      {{"tenant", "team-a"},
                       {"timeLimit", "1h"},
                       {"command", {"/bin/sh", "-c", script}},
                       {"resources", {{"cpu", "1"}, {"memory", "1Gi"}}},
                       {"devices", {{"requests", {{{"name", "gpus"}, {"count", devices}}}}}}}}};
  auto [code, job] = admin.Post("/v1/jobs", spec);
  EXPECT_EQ(code, 201) << job.dump();
  return job.value("id", int64_t{0});
}

TEST(AgentHealthEndToEnd, AFatalXidFailsTheDeviceRequeuesItsJobAndAnOperatorReturnsIt) {
  ScratchDir dir;
  WriteTelemetry(dir.File("a1.prom"), 0);
  WriteTelemetry(dir.File("a2.prom"), 0);
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(
      floor.Start("fifo", {"a1", "a2"}, 2, {}, {"--telemetry-file", dir.File("") + "{node}.prom"}),
      "");
  testing::DaemonApi& admin = floor.admin();
  const auto logs = [&] { return floor.Logs(); };
  const std::string script = testing::CheckpointingTask(dir.File(""));
  const auto submit = [&] { return Submit(admin, script, 2); };
  const auto job_of = [&](int64_t id) { return admin.Get("/v1/jobs/" + std::to_string(id)); };
  const auto node_of = [&](int64_t id) -> std::string {
    const json job = job_of(id);
    if (job["state"] != "running" || job["placement"].empty()) return "";
    return job["placement"][0].value("node", "");
  };
  const auto health_of = [&](const std::string& node) -> json {
    const json nodes = admin.Get("/v1/nodes");
    for (const json& entry : nodes["nodes"]) {
      if (entry["name"] == node) return entry;
    }
    return nullptr;
  };

  const int64_t job = submit();
  ASSERT_TRUE(WaitUntil([&] { return !node_of(job).empty(); })) << logs();
  const std::string first = node_of(job);
  const std::string other = first == "a1" ? "a2" : "a1";
  ASSERT_TRUE(WaitUntil([&] { return FileExists(dir.File("run-" + std::to_string(job) + "-1")); }))
      << logs();
  EXPECT_EQ(health_of(first)["device_health"], json::object());

  // Device 1 of the job's node raises XID 79 (fallen off the bus).
  WriteTelemetry(dir.File(first + ".prom"), 79);
  ASSERT_TRUE(WaitUntil([&] { return health_of(first)["device_health"].value("failed", 0) == 1; }))
      << health_of(first).dump() << logs();
  const json failed = health_of(first)["unhealthy_devices"][0];
  EXPECT_EQ(failed["index"], 1);
  EXPECT_EQ(failed["state"], "failed");
  EXPECT_EQ(failed["evidence"], "XID 79");
  ASSERT_TRUE(WaitUntil([&] { return node_of(job) == other; }, std::chrono::milliseconds(20'000)))
      << job_of(job).dump() << logs();
  EXPECT_EQ(job_of(job)["attempt"], 2);
  EXPECT_TRUE(WaitUntil([&] { return FileExists(dir.File("run-" + std::to_string(job) + "-2")); }))
      << logs();
  auto metrics = admin.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(
      metrics->body.find("headroom_devices_by_health{node=\"" + first + "\",state=\"failed\"} 1"),
      std::string::npos)
      << metrics->body.substr(0, 4000);
  EXPECT_NE(
      metrics->body.find("headroom_devices_by_health{node=\"" + first + "\",state=\"healthy\"} 1"),
      std::string::npos);

  // A second two-device job has one usable device on the first node: it waits.
  const int64_t waiting = submit();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(job_of(waiting)["state"], "pending") << job_of(waiting).dump();

  // The operator sends the device to repair, then returns it: the waiting job starts there.
  const std::string device = "/v1/nodes/" + first + "/devices/1/";
  auto [repair_code, repaired] = admin.Post(device + "repair", {{"reason", "RMA 77"}});
  EXPECT_EQ(repair_code, 200) << repaired.dump();
  EXPECT_EQ(repaired["state"], "in_repair");
  EXPECT_EQ(std::get<0>(admin.Post(device + "return", json::object())), 200);
  ASSERT_TRUE(
      WaitUntil([&] { return node_of(waiting) == first; }, std::chrono::milliseconds(20'000)))
      << job_of(waiting).dump() << logs();
  EXPECT_EQ(health_of(first)["device_health"], json::object());
  EXPECT_EQ(std::get<0>(admin.Post(device + "return", json::object())), 409);
  EXPECT_EQ(std::get<0>(admin.Post("/v1/nodes/" + first + "/devices/7/repair", json::object())),
            404);
  EXPECT_EQ(std::get<0>(admin.Post(device + "explode", json::object())), 404);

  std::ofstream(dir.File("stop-" + std::to_string(job)));
  std::ofstream(dir.File("stop-" + std::to_string(waiting)));
  EXPECT_TRUE(WaitUntil([&] { return job_of(waiting)["state"] == "completed"; })) << logs();
  EXPECT_EQ(floor.Stop(), "");

  // The withdrawal and the return are in the engine log; every decision replays.
  EXPECT_EQ(floor.RunHeadroom({"replay", "--data-dir", floor.data()}, "replay.out"), 0)
      << ReadFile(dir.File("replay.out"));
  EXPECT_NE(ReadFile(dir.File("replay.out")).find("every decision reproduced"), std::string::npos)
      << ReadFile(dir.File("replay.out"));
}

// A readiness command that exits non-zero keeps work off its node, with real processes: a1's
// check fails, so a job runs on a2; when a2 is busy the next job waits, although a1 is free,
// until a1's check passes.
TEST(AgentHealthEndToEnd, AFailingReadinessCommandKeepsWorkOffTheNode) {
  ScratchDir dir;
  std::ofstream(dir.File("ready-a2")) << "";
  testing::AgentsFloor floor(dir);
  // The floor waits for both nodes up: a not-ready node is still up.
  ASSERT_EQ(floor.Start("fifo", {"a1", "a2"}, 1, {},
                        {"--readiness-cmd", "test -e " + dir.File("ready-{node}"),
                         "--readiness-interval-s", "1"}),
            "");
  testing::DaemonApi& admin = floor.admin();
  const auto logs = [&] { return floor.Logs(); };
  const auto ready_of = [&](const std::string& node) {
    const json nodes = admin.Get("/v1/nodes");
    for (const json& entry : nodes["nodes"]) {
      if (entry["name"] == node) return entry["ready"] == true;
    }
    return false;
  };
  ASSERT_TRUE(WaitUntil([&] { return !ready_of("a1") && ready_of("a2"); })) << logs();
  const std::string script = testing::CheckpointingTask(dir.File(""));
  const auto submit = [&] { return Submit(admin, script, 1); };
  const auto job_of = [&](int64_t id) { return admin.Get("/v1/jobs/" + std::to_string(id)); };
  const int64_t first = submit();
  ASSERT_TRUE(WaitUntil([&] { return job_of(first)["state"] == "running"; })) << logs();
  EXPECT_EQ(job_of(first)["placement"][0]["node"], "a2");
  const int64_t second = submit();
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  EXPECT_EQ(job_of(second)["state"], "pending") << job_of(second).dump();
  EXPECT_FALSE(FileExists(dir.File("run-" + std::to_string(second) + "-1")));
  std::ofstream(dir.File("ready-a1")) << "";
  ASSERT_TRUE(WaitUntil([&] { return job_of(second)["state"] == "running"; },
                        std::chrono::milliseconds(20'000)))
      << logs();
  EXPECT_EQ(job_of(second)["placement"][0]["node"], "a1");
  for (int64_t id : {first, second}) std::ofstream(dir.File("stop-" + std::to_string(id)));
  EXPECT_EQ(floor.Stop(), "");
}

// Checks as work is admitted (--readiness-before-start-s): the periodic check is hourly, so
// neither node has passed one in the last second when two jobs arrive. Each agent checks before
// it starts its job; a2's check now fails, so its job never starts there: a2 is not ready, and
// headroomd requeues that job as an interruption, to run on a1 once a1's job is done.
TEST(AgentHealthEndToEnd, ACheckBeforeAStartKeepsAJobOffANodeThatFailsIt) {
  ScratchDir dir;
  std::ofstream(dir.File("ready-a1")) << "";
  std::ofstream(dir.File("ready-a2")) << "";
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("fifo", {"a1", "a2"}, 1, {},
                        {"--readiness-cmd", "test -e " + dir.File("ready-{node}"),
                         "--readiness-interval-s", "3600", "--readiness-before-start-s", "1"}),
            "");
  testing::DaemonApi& admin = floor.admin();
  const auto logs = [&] { return floor.Logs(); };
  const auto node_json = [&](const std::string& node) {
    const json nodes = admin.Get("/v1/nodes");
    for (const json& entry : nodes["nodes"]) {
      if (entry["name"] == node) return entry;
    }
    return json();
  };
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // Both checks are stale.
  std::filesystem::remove(dir.File("ready-a2"));
  EXPECT_EQ(node_json("a2")["ready"], true);  // Its next periodic check is an hour away.
  const std::string script = testing::CheckpointingTask(dir.File(""));
  const auto job_of = [&](int64_t id) { return admin.Get("/v1/jobs/" + std::to_string(id)); };
  const int64_t first = Submit(admin, script, 1);
  const int64_t second = Submit(admin, script, 1);
  ASSERT_TRUE(WaitUntil([&] { return node_json("a2")["ready"] == false; })) << logs();
  EXPECT_NE(node_json("a2")["readiness_message"].get<std::string>().find("readiness check exited"),
            std::string::npos);
  // One job runs on a1; the other was requeued from a2 without running there.
  int64_t running = 0;
  int64_t requeued = 0;
  ASSERT_TRUE(WaitUntil([&] {
    for (int64_t id : {first, second}) {
      const json job = job_of(id);
      if (job["state"] == "running" && job["placement"][0]["node"] == "a1") running = id;
      if (job["state"] == "pending" && job["requeues"] == 1) requeued = id;
    }
    return running != 0 && requeued != 0;
  })) << logs();
  EXPECT_NE(job_of(requeued)["message"].get<std::string>().find("failed a readiness check"),
            std::string::npos)
      << job_of(requeued).dump();
  EXPECT_FALSE(FileExists(dir.File("run-" + std::to_string(requeued) + "-1")));
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("run-" + std::to_string(running) + "-1"));
  })) << logs();
  // a1 frees: the requeued job starts there as its second attempt, after a1 checks again.
  std::ofstream(dir.File("stop-" + std::to_string(running)));
  ASSERT_TRUE(
      WaitUntil([&] { return FileExists(dir.File("run-" + std::to_string(requeued) + "-2")); },
                std::chrono::milliseconds(20'000)))
      << logs();
  EXPECT_EQ(job_of(requeued)["placement"][0]["node"], "a1");
  std::ofstream(dir.File("stop-" + std::to_string(requeued)));
  EXPECT_EQ(floor.Stop(), "");
}

// A job that declares its checkpoint cost, under the headroom preset, is told how often to
// checkpoint in its task's environment: one node at the preset's 0.0038 faults per node-day,
// M = 22,736,842 s, √(2 δ M) = 21,324.7 s for δ = 10 s, × 1.000156 − 10 s = 21,317.9 s.
TEST(AgentHealthEndToEnd, ATaskIsToldHowOftenToCheckpoint) {
  ScratchDir dir;
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("headroom", {"a1"}, 1), "");
  testing::DaemonApi& admin = floor.admin();
  const json spec = {{"spec",
                      {{"timeLimit", "1h"},
                       {"checkpointCost", "10s"},
                       {"checkpointInterval", "1d"},  // What it is told is at most its own.
                       {"command",
                        {"/bin/sh", "-c",
                         "echo \"$HEADROOM_CHECKPOINT_INTERVAL_S\" > " + dir.File("told.tmp") +
                             " && mv " + dir.File("told.tmp") + " " + dir.File("told")}},
                       {"resources", {{"cpu", "1"}, {"memory", "1Gi"}}},
                       {"devices", {{"requests", {{{"name", "gpus"}, {"count", 1}}}}}}}}};
  auto [code, job] = admin.Post("/v1/jobs", spec);
  ASSERT_EQ(code, 201) << job.dump();
  ASSERT_TRUE(WaitUntil([&] { return FileExists(dir.File("told")); })) << floor.Logs();
  EXPECT_EQ(ReadFile(dir.File("told")), "21318\n");
  EXPECT_EQ(floor.Stop(), "");
}

// Active diagnostics with real processes: the operator sends both devices of a node to
// diagnosis; the agent runs its --diagnostics-cmd on each ({device} replaced), which passes
// device 0 and fails device 1; headroomd returns one to service and fails the other.
TEST(AgentHealthEndToEnd, AnAgentsDiagnosticsReturnOrFailTheDevicesItDiagnoses) {
  ScratchDir dir;
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("fifo", {"a1"}, 2, {},
                        {"--diagnostics-cmd",
                         "echo testing {device}; [ {device} = 0 ] || { echo 'GPU {device}: "
                         "EUD memory test failed'; exit 4; }"}),
            "");
  testing::DaemonApi& admin = floor.admin();
  for (int index : {0, 1}) {
    auto [code, moved] =
        admin.Post("/v1/nodes/a1/devices/" + std::to_string(index) + "/diagnose", json::object());
    ASSERT_EQ(code, 200) << moved.dump();
    EXPECT_EQ(moved["state"], "diagnosing");
  }
  const auto a1 = [&] {
    const json nodes = admin.Get("/v1/nodes");
    return nodes["nodes"][0];
  };
  ASSERT_TRUE(WaitUntil(
      [&] {
        return a1()["device_health"] == json({{"failed", 1}});
      },
      std::chrono::milliseconds(20'000)))
      << a1().dump() << floor.Logs();
  EXPECT_EQ(a1()["unhealthy_devices"][0]["index"], 1);
  EXPECT_EQ(a1()["unhealthy_devices"][0]["evidence"],
            "diagnostics failed: diagnostics exited 4: GPU 1: EUD memory test failed");
  EXPECT_EQ(floor.Stop(), "");
  EXPECT_NE(ReadFile(dir.File("a1.log")).find("diagnostics of device 0 passed"), std::string::npos);
}

// The storm guard with real processes: three agents, a share of 0.5; XID 79 on two nodes'
// devices in the window trips it at the second, whose device stays in use and takes a job;
// `headroom device resume` lets the withdrawal through and that job goes back to the queue.
TEST(AgentHealthEndToEnd, TheStormGuardStopsTakingDevicesOutOfUseUntilResumed) {
  ScratchDir dir;
  for (const char* node : {"a1", "a2", "a3"}) {
    std::ofstream(dir.File(std::string(node) + ".prom")) << "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 0\n";
  }
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("fifo", {"a1", "a2", "a3"}, 1, {"--health-storm-share", "0.5"},
                        {"--telemetry-file", dir.File("") + "{node}.prom"}),
            "");
  testing::DaemonApi& admin = floor.admin();
  const auto logs = [&] { return floor.Logs(); };
  const auto storm = [&] { return admin.Get("/v1/cluster")["health_storm"]; };
  const auto fail = [&](const char* node) {
    WriteAtomically(dir.File(std::string(node) + ".prom"),
                    "DCGM_FI_DEV_XID_ERRORS{gpu=\"0\"} 79\n");
  };
  const auto failed_devices = [&] {
    int failed = 0;
    const json nodes = admin.Get("/v1/nodes");
    for (const json& node : nodes["nodes"]) failed += node["device_health"].value("failed", 0);
    return failed;
  };
  fail("a1");
  ASSERT_TRUE(WaitUntil([&] { return failed_devices() == 1; })) << logs();
  fail("a2");
  ASSERT_TRUE(WaitUntil([&] { return storm()["tripped"] == true; })) << storm().dump() << logs();
  EXPECT_EQ(failed_devices(), 2);  // Judged failed, but held in use.

  const std::string script = testing::CheckpointingTask(dir.File(""));
  std::vector<int64_t> jobs;
  for (int i = 0; i < 2; ++i) jobs.push_back(Submit(admin, script, 1));
  const auto node_of = [&](int64_t id) -> std::string {
    const json job = admin.Get("/v1/jobs/" + std::to_string(id));
    return job["state"] == "running" ? job["placement"][0].value("node", "") : "";
  };
  ASSERT_TRUE(WaitUntil([&] { return !node_of(jobs[0]).empty() && !node_of(jobs[1]).empty(); }))
      << logs();
  EXPECT_EQ((std::set<std::string>{node_of(jobs[0]), node_of(jobs[1])}),
            (std::set<std::string>{"a2", "a3"}));
  const int64_t on_a2 = node_of(jobs[0]) == "a2" ? jobs[0] : jobs[1];

  EXPECT_EQ(floor.RunHeadroom({"--server", "http://127.0.0.1:" + std::to_string(floor.port()),
                               "--token", floor.admin_token(), "device", "resume"},
                              "resume.out"),
            0)
      << ReadFile(dir.File("resume.out"));
  EXPECT_EQ(ReadFile(dir.File("resume.out")),
            "storm guard reset: health takes devices out of use again\n");
  EXPECT_TRUE(WaitUntil([&] {
    return admin.Get("/v1/jobs/" + std::to_string(on_a2))["state"] == "pending";
  })) << logs();
  EXPECT_EQ(storm()["tripped"], false);
  for (int64_t id : jobs) std::ofstream(dir.File("stop-" + std::to_string(id)));
  EXPECT_EQ(floor.Stop(), "");
}

}  // namespace
}  // namespace headroom::agent
