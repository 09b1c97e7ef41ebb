// End to end, preemption with real processes: headroomd on the agents backend with a policy
// that preempts, and one headroom-agent of two fake devices. A low-priority two-device job runs;
// a high-priority one arrives and takes its devices: the low job's task gets SIGTERM (its
// checkpoint signal) and writes its checkpoint, the job is pending again with its attempt
// count unchanged, and once the high-priority job ends it runs again as attempt 2.
#include <fstream>

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

TEST(AgentPreemptionEndToEnd, APreemptedJobCheckpointsOnItsSignalAndRunsAgainAsAttemptTwo) {
  ScratchDir dir;
  {
    std::ofstream policy(dir.File("preempting.yaml"));
    policy << "name: preempting\nqueue: {order: priority}\nbackfill: {mode: skip}\n"
              "victim_selector: lowest_priority\n"
              "preemption: {enabled: true, checkpoint_interval_s: 3600, restart_s: 0}\n";
  }
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start(dir.File("preempting.yaml"), {"a1"}, 2), "");
  testing::DaemonApi& admin = floor.admin();
  const std::string& data = floor.data();
  const auto logs = [&] { return floor.Logs(); };

  // Each attempt writes run-JOB-ATTEMPT; SIGTERM makes it write ckpt-JOB-ATTEMPT and exit; the
  // file stop-JOB ends the job.
  const std::string script = testing::CheckpointingTask(dir.File(""));
  const auto submit = [&](int priority) {
    const json spec = {{"metadata", {{"name", "j"}}},
                       {"spec",
                        {{"tenant", "team-a"},
                         {"priority", priority},
                         {"timeLimit", "1h"},
                         {"checkpointInterval", "10m"},
                         {"command", {"/bin/sh", "-c", script}},
                         {"resources", {{"cpu", "1"}, {"memory", "1Gi"}}},
                         {"devices", {{"requests", {{{"name", "gpus"}, {"count", 2}}}}}}}}};
    auto [code, job] = admin.Post("/v1/jobs", spec);
    EXPECT_EQ(code, 201) << job.dump();
    return job.value("id", int64_t{0});
  };
  const auto file_of = [&](const std::string& kind, int64_t job, int attempt) {
    return dir.File(kind + "-" + std::to_string(job) + "-" + std::to_string(attempt));
  };
  const auto state_of = [&](int64_t job) { return admin.Get("/v1/jobs/" + std::to_string(job)); };

  const int64_t low = submit(0);
  ASSERT_TRUE(WaitUntil([&] { return FileExists(file_of("run", low, 1)); })) << logs();
  const int64_t high = submit(5);
  ASSERT_TRUE(WaitUntil([&] { return state_of(high)["state"] == "running"; },
                        std::chrono::milliseconds(20'000)))
      << state_of(high).dump() << logs();
  const json preempted = state_of(low);
  EXPECT_EQ(preempted["state"], "pending") << preempted.dump();
  EXPECT_EQ(preempted["attempt"], 1) << preempted.dump();
  EXPECT_NE(
      preempted.value("message", "").find("preempted (attempt 1) for job " + std::to_string(high)),
      std::string::npos)
      << preempted.dump();
  // The preempted attempt saved its checkpoint on its signal before the high job ran.
  EXPECT_TRUE(WaitUntil([&] { return FileExists(file_of("ckpt", low, 1)); })) << logs();
  EXPECT_EQ(ReadFile(file_of("ckpt", low, 1)), "saved\n");
  EXPECT_TRUE(WaitUntil([&] { return FileExists(file_of("run", high, 1)); })) << logs();
  auto metrics = admin.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_preemptions_total 1"), std::string::npos);

  // The high job ends; the preempted one runs again as attempt 2, then ends.
  std::ofstream(dir.File("stop-" + std::to_string(high)));
  ASSERT_TRUE(WaitUntil([&] { return FileExists(file_of("run", low, 2)); },
                        std::chrono::milliseconds(20'000)))
      << logs();
  EXPECT_EQ(state_of(low)["attempt"], 2);
  EXPECT_EQ(state_of(high)["state"], "completed");
  std::ofstream(dir.File("stop-" + std::to_string(low)));
  EXPECT_TRUE(WaitUntil([&] { return state_of(low)["state"] == "completed"; })) << logs();
  EXPECT_EQ(floor.Stop(), "");

  // The daemon's history replays offline: three starts and the preemption, each reproduced.
  EXPECT_EQ(floor.RunHeadroom({"replay", "--data-dir", data}, "replay.out"), 0)
      << ReadFile(dir.File("replay.out"));
  EXPECT_NE(ReadFile(dir.File("replay.out")).find(" 4 decisions; every decision reproduced"),
            std::string::npos)
      << ReadFile(dir.File("replay.out"));
}

}  // namespace
}  // namespace headroom::agent
