// End to end, an elastic job with real processes: headroomd on the agents backend (the headroom
// policy: elastic jobs shrink and grow) and two headroom-agent processes of two fake devices
// each. An elastic gang of two ranks, one per node, fills the floor; a job of higher priority
// arrives, and instead of requeuing the gang the engine shrinks it to one rank: every task of
// the first attempt gets SIGTERM (its checkpoint signal), the gang restarts as attempt 2 with
// WORLD_SIZE 1, and the urgent job starts on the node it gave up. When the urgent job ends and
// nothing waits, the gang grows back to two ranks as attempt 3. The history replays offline.
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

TEST(AgentElasticEndToEnd, AGangShrinksForAnUrgentJobAndGrowsBackAsItsNextAttempts) {
  ScratchDir dir;
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("headroom", {"a1", "a2"}, 2), "");
  testing::DaemonApi& admin = floor.admin();
  const auto logs = [&] { return floor.Logs(); };

  // Each task writes its node and world size (run-JOB-ATTEMPT-RANK); SIGTERM makes it write its
  // checkpoint (ckpt-JOB-ATTEMPT-RANK) and exit; the file stop-JOB ends the job (as does the
  // scratch directory's removal, so that a failed test leaves no task behind).
  const std::string d = dir.File("");
  const std::string task = "$HEADROOM_JOB_ID-$HEADROOM_ATTEMPT-$HEADROOM_RANK";
  const std::string script =
      "r=" + d + "run-" + task +
      "; echo \"$NODE_TAG $WORLD_SIZE\" > $r.tmp && mv $r.tmp $r; c=" + d + "ckpt-" + task +
      "; trap 'echo saved > $c.tmp && mv $c.tmp $c; exit 0' TERM; while [ ! -e " + d +
      "stop-$HEADROOM_JOB_ID ] && [ -d " + d + " ]; do sleep 0.05; done";
  const auto submit = [&](int tasks, int priority, bool elastic) {
    json spec = {{"metadata", {{"name", "j"}}},
                 {"spec",
                  {{"tenant", "team-a"},
                   {"priority", priority},
                   {"tasks", tasks},
                   {"timeLimit", "1h"},
                   {"command", {"/bin/sh", "-c", script}},
                   {"resources", {{"cpu", "1"}, {"memory", "1Gi"}}},
                   {"devices", {{"requests", {{{"name", "gpus"}, {"count", 2}}}}}}}}};
    if (elastic) spec["spec"]["elastic"] = {{"minTasks", 1}};
    auto [status, job] = admin.Post("/v1/jobs", spec);
    EXPECT_EQ(status, 201) << job.dump();
    return job.value("id", int64_t{0});
  };
  const auto run_of = [&](int64_t job, int attempt, int rank) {
    return dir.File("run-" + std::to_string(job) + "-" + std::to_string(attempt) + "-" +
                    std::to_string(rank));
  };
  const auto state_of = [&](int64_t job) { return admin.Get("/v1/jobs/" + std::to_string(job)); };

  const int64_t gang = submit(2, 0, true);
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(run_of(gang, 1, 0)) && FileExists(run_of(gang, 1, 1));
  })) << logs();
  EXPECT_EQ(ReadFile(run_of(gang, 1, 1)).substr(3), "2\n");

  // The urgent job outranks the gang: the gang gives it a node and runs on with one rank.
  const int64_t urgent = submit(1, 5, false);
  ASSERT_TRUE(WaitUntil([&] { return state_of(urgent)["state"] == "running"; },
                        std::chrono::milliseconds(20'000)))
      << state_of(urgent).dump() << logs();
  json shrunk = state_of(gang);
  EXPECT_EQ(shrunk["state"], "running") << shrunk.dump();
  EXPECT_EQ(shrunk["attempt"], 2);
  EXPECT_EQ(shrunk["requeues"], 0);
  ASSERT_EQ(shrunk["placement"].size(), 1u) << shrunk.dump();
  EXPECT_NE(shrunk["message"].get<std::string>().find("shrunk from 2 to 1 tasks"),
            std::string::npos)
      << shrunk.dump();
  const std::string kept = shrunk["placement"][0]["node"];
  EXPECT_NE(state_of(urgent)["placement"][0]["node"], kept);
  ASSERT_TRUE(WaitUntil([&] { return FileExists(run_of(gang, 2, 0)); })) << logs();
  EXPECT_EQ(ReadFile(run_of(gang, 2, 0)), kept + " 1\n");
  for (int rank : {0, 1}) {
    const std::string checkpoint =
        dir.File("ckpt-" + std::to_string(gang) + "-1-" + std::to_string(rank));
    EXPECT_TRUE(WaitUntil([&] { return FileExists(checkpoint); })) << checkpoint << logs();
  }

  // The urgent job ends and nothing waits: the gang grows back to both nodes.
  std::ofstream(dir.File("stop-" + std::to_string(urgent)));
  ASSERT_TRUE(
      WaitUntil([&] { return state_of(gang)["attempt"] == 3; }, std::chrono::milliseconds(20'000)))
      << state_of(gang).dump() << logs();
  EXPECT_EQ(state_of(urgent)["state"], "completed");
  EXPECT_EQ(state_of(gang)["placement"].size(), 2u);
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(run_of(gang, 3, 0)) && FileExists(run_of(gang, 3, 1));
  })) << logs();
  EXPECT_EQ(ReadFile(run_of(gang, 3, 1)).substr(3), "2\n");
  auto metrics = admin.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_elastic_resizes_total 2"), std::string::npos);
  EXPECT_NE(metrics->body.find("headroom_preemptions_total 0"), std::string::npos);

  std::ofstream(dir.File("stop-" + std::to_string(gang)));
  EXPECT_TRUE(WaitUntil([&] { return state_of(gang)["state"] == "completed"; })) << logs();
  EXPECT_EQ(floor.Stop(), "");

  // The daemon's history replays offline: two starts and two resizes, each reproduced.
  EXPECT_EQ(floor.RunHeadroom({"replay", "--data-dir", floor.data()}, "replay.out"), 0)
      << ReadFile(dir.File("replay.out"));
  EXPECT_NE(ReadFile(dir.File("replay.out")).find(" 4 decisions; every decision reproduced"),
            std::string::npos)
      << ReadFile(dir.File("replay.out"));
}

}  // namespace
}  // namespace headroom::agent
