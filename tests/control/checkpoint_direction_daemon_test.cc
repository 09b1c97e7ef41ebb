// recovery.direct_checkpoints live (the headroom preset): a job that declares its checkpoint
// cost is told at its start how often to checkpoint, in its tasks' heartbeat reply (the agent's
// HEADROOM_CHECKPOINT_INTERVAL_S) and in its JOB, and still after a daemon restart; a job that
// declares none is told nothing. The engine's part is in tests/engine/checkpoint_direction_test.cc.
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "daemon_fixture.h"

namespace headroom::control {
namespace {

using testing::JobBody;
using testing::Json;
using testing::RegisterAgents;
using testing::TestDaemon;
using testing::WaitFor;

TEST(DaemonCheckpointDirection, AStartIsToldItsIntervalAndARestartKeepsIt) {
  DaemonOptions options;
  options.backend = BackendKind::kAgents;
  options.http_workers = 16;
  options.policy = "headroom";
  options.policy_given = true;
  TestDaemon daemon(options);
  const std::vector<std::string> names = {"n1", "n2", "n3"};
  std::map<std::string, std::string> tokens = RegisterAgents(daemon, names, 1);
  const auto desired = [&](const std::string& node) {
    return daemon
        .Post("/v1/agents/" + node + "/heartbeat", tokens[node],
              Json{{"ready", true}, {"tasks", Json::array()}}.dump())
        .body["tasks"];
  };
  const auto job = [&](uint64_t id) {
    return daemon.Get("/v1/jobs/" + std::to_string(id), daemon.admin()).body;
  };
  Json costing = Json::parse(JobBody(2, 1, 0));
  costing["spec"]["checkpointCost"] = "10s";
  costing["spec"]["checkpointInterval"] = "1d";  // What it is told is at most its own.
  const uint64_t gang = daemon.Post("/v1/jobs", daemon.admin(), costing.dump()).body["id"];
  const uint64_t plain = daemon.Post("/v1/jobs", daemon.admin(), JobBody(1, 1, 0)).body["id"];
  ASSERT_TRUE(
      WaitFor([&] { return job(gang)["state"] == "running" && job(plain)["state"] == "running"; }));
  // Two nodes at the preset's 0.0038 faults per node-day: M = 11,368,421 s; √(2 δ M) =
  // 15,078.7 s; × (1 + √(δ/2M) / 3 + δ/2M / 9) = × 1.000221, − 10 s = 15,072.1 s.
  constexpr int64_t kTold = 15072;
  EXPECT_EQ(job(gang)["checkpoint_interval_s"], kTold);
  EXPECT_TRUE(job(plain)["checkpoint_interval_s"].is_null());
  const auto told_on = [&](const std::string& node) {
    std::map<uint64_t, Json> by_job;
    for (const Json& task : desired(node)) {
      by_job[task["job"].get<uint64_t>()] = task.value("checkpoint_interval_s", Json());
    }
    return by_job;
  };
  int gang_tasks = 0;
  for (const std::string& node : names) {
    for (const auto& [id, told] : told_on(node)) {
      if (id == gang) {
        ++gang_tasks;
        EXPECT_EQ(told, kTold) << node;
      } else {
        EXPECT_TRUE(told.is_null()) << node << ": " << told.dump();
      }
    }
  }
  EXPECT_EQ(gang_tasks, 2);

  // A restart recovers what the start told from the engine log.
  daemon.Stop();
  daemon.Start();
  EXPECT_EQ(job(gang)["state"], "running");
  EXPECT_EQ(job(gang)["checkpoint_interval_s"], kTold);
  gang_tasks = 0;
  for (const std::string& node : names) {
    for (const auto& [id, told] : told_on(node)) {
      if (id != gang) continue;
      ++gang_tasks;
      EXPECT_EQ(told, kTold) << node;
    }
  }
  EXPECT_EQ(gang_tasks, 2);
}

}  // namespace
}  // namespace headroom::control
