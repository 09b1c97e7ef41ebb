// End to end, migration with real processes: headroomd on the agents backend (the headroom
// policy: defragmentation by migration on) and two headroom-agent processes of two fake devices
// each. Four one-device jobs fill both nodes; one job ends on each, leaving a free device on
// each node; a two-device job then waits only for fragmentation. The engine moves one of the
// remaining jobs next to the other: its task gets SIGTERM (its checkpoint signal) and exits,
// the job starts again as attempt 2 on the other node's freed device, and the blocked job
// starts on the node it left.
#include <fstream>
#include <map>

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

TEST(AgentMigrationEndToEnd, ABlockedJobStartsAfterARunningJobMovesAndRestartsAsAttemptTwo) {
  ScratchDir dir;
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("headroom", {"a1", "a2"}, 2), "");
  testing::DaemonApi& admin = floor.admin();
  const std::string& data = floor.data();
  const auto logs = [&] { return floor.Logs(); };

  // Each attempt writes where it runs (run-JOB-ATTEMPT); SIGTERM makes it write its checkpoint
  // (ckpt-JOB-ATTEMPT) and exit; the file stop-JOB ends the job (as does the scratch directory's
  // removal, so that a failed test leaves no task behind).
  const std::string d = dir.File("");
  const std::string script =
      "r=" + d +
      "run-$HEADROOM_JOB_ID-$HEADROOM_ATTEMPT; echo \"$NODE_TAG $CUDA_VISIBLE_DEVICES\" "
      "> $r.tmp && mv $r.tmp $r; c=" +
      d +
      "ckpt-$HEADROOM_JOB_ID-$HEADROOM_ATTEMPT; trap 'echo saved > $c.tmp && mv $c.tmp $c; exit 0' "
      "TERM; while [ ! -e " +
      d + "stop-$HEADROOM_JOB_ID ] && [ -d " + d + " ]; do sleep 0.05; done";
  const auto submit = [&](int devices) {
    const json spec = {{"metadata", {{"name", "j"}}},
                       {"spec",
                        {{"tenant", "team-a"},
                         {"timeLimit", "1h"},
                         {"command", {"/bin/sh", "-c", script}},
                         {"resources", {{"cpu", "1"}, {"memory", "1Gi"}}},
                         {"devices", {{"requests", {{{"name", "gpus"}, {"count", devices}}}}}}}}};
    auto [status, job] = admin.Post("/v1/jobs", spec);
    EXPECT_EQ(status, 201) << job.dump();
    return job.value("id", int64_t{0});
  };
  const auto run_of = [&](int64_t job, int attempt) {
    return dir.File("run-" + std::to_string(job) + "-" + std::to_string(attempt));
  };
  const auto state_of = [&](int64_t job) { return admin.Get("/v1/jobs/" + std::to_string(job)); };

  std::vector<int64_t> ones;
  for (int i = 0; i < 4; ++i) ones.push_back(submit(1));
  ASSERT_TRUE(WaitUntil([&] {
    for (int64_t job : ones) {
      if (!FileExists(run_of(job, 1))) return false;
    }
    return true;
  })) << logs();
  std::map<std::string, std::vector<int64_t>> on_node;
  for (int64_t job : ones) on_node[state_of(job)["placement"][0]["node"]].push_back(job);
  ASSERT_EQ(on_node.size(), 2u) << logs();
  ASSERT_EQ(on_node["a1"].size(), 2u);
  for (const std::string node : {"a1", "a2"}) {
    std::ofstream(dir.File("stop-" + std::to_string(on_node[node][0])));
  }
  ASSERT_TRUE(WaitUntil([&] {
    return state_of(on_node["a1"][0])["state"] == "completed" &&
           state_of(on_node["a2"][0])["state"] == "completed";
  })) << logs();

  const int64_t pair = submit(2);
  ASSERT_TRUE(WaitUntil([&] { return state_of(pair)["state"] == "running"; },
                        std::chrono::milliseconds(20'000)))
      << state_of(pair).dump() << logs();
  // Exactly one of the two remaining jobs moved, and the pair took the node it left.
  const int64_t stayed_a1 = on_node["a1"][1];
  const int64_t stayed_a2 = on_node["a2"][1];
  const bool a1_moved = state_of(stayed_a1)["attempt"] == 2;
  const int64_t moved = a1_moved ? stayed_a1 : stayed_a2;
  const int64_t kept = a1_moved ? stayed_a2 : stayed_a1;
  const std::string from = a1_moved ? "a1" : "a2";
  const std::string to = a1_moved ? "a2" : "a1";
  const json moved_state = state_of(moved);
  EXPECT_EQ(moved_state["attempt"], 2) << moved_state.dump();
  EXPECT_EQ(moved_state["state"], "running");
  EXPECT_EQ(moved_state["placement"][0]["node"], to);
  EXPECT_EQ(state_of(kept)["attempt"], 1);
  EXPECT_EQ(state_of(pair)["placement"][0]["node"], from);
  // The old attempt checkpointed on its signal; the new one runs on the other node.
  EXPECT_TRUE(WaitUntil([&] { return FileExists(run_of(moved, 2)); })) << logs();
  const std::string checkpoint = dir.File("ckpt-" + std::to_string(moved) + "-1");
  EXPECT_TRUE(WaitUntil([&] { return FileExists(checkpoint); })) << logs();
  EXPECT_EQ(ReadFile(checkpoint), "saved\n");
  EXPECT_EQ(ReadFile(run_of(moved, 2)).substr(0, 2), to) << ReadFile(run_of(moved, 2));
  auto metrics = admin.client().Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("headroom_migrations_total 1"), std::string::npos);

  // The floor is full: a fifth job waits, and is cancelled.
  const int64_t waiting = submit(1);
  ASSERT_TRUE(WaitUntil([&] { return !state_of(waiting)["pending_reason"].is_null(); })) << logs();
  ASSERT_EQ(
      admin.client()
          .Post(("/v1/jobs/" + std::to_string(waiting) + "/cancel").c_str(), "", "application/json")
          ->status,
      200);

  // Everything ends with exit code 0, the moved job as its second attempt.
  for (int64_t job : {moved, kept, pair}) std::ofstream(dir.File("stop-" + std::to_string(job)));
  EXPECT_TRUE(WaitUntil([&] {
    return state_of(moved)["state"] == "completed" && state_of(kept)["state"] == "completed" &&
           state_of(pair)["state"] == "completed";
  })) << logs();
  EXPECT_EQ(floor.Stop(), "");

  // The daemon's history replays offline: the five starts and the move, each reproduced.
  EXPECT_EQ(floor.RunHeadroom({"replay", "--data-dir", data}, "replay.out"), 0)
      << ReadFile(dir.File("replay.out"));
  EXPECT_NE(ReadFile(dir.File("replay.out")).find(" 6 decisions; every decision reproduced"),
            std::string::npos)
      << ReadFile(dir.File("replay.out"));
  EXPECT_EQ(
      floor.RunHeadroom({"explain", std::to_string(waiting), "--data-dir", data}, "explain.out"),
      0);
  EXPECT_NE(ReadFile(dir.File("explain.out")).find("at the log's end: cancelled"),
            std::string::npos)
      << ReadFile(dir.File("explain.out"));
}

}  // namespace
}  // namespace headroom::agent
