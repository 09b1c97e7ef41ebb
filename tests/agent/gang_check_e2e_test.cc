// End to end, the check across a gang's nodes (--gang-check-cmd) with real processes: headroomd
// on the agents backend and two headroom-agents of one fake device each. A job of one task runs
// unchecked; a job of two tasks, one on each node, starts only after each node's check passed,
// the check seeing the rank's environment. When the checks fail (a bad link fails the
// collective on every node), no task of the attempt runs, the nodes say why, headroomd requeues
// the job, and it runs once the link is mended.
#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "agent_processes.h"

namespace headroom::agent {
namespace {

using nlohmann::json;
using testing::FileExists;
using testing::ReadFile;
using testing::ScratchDir;
using testing::WaitUntil;

int64_t Submit(testing::DaemonApi& admin, const std::string& script, int tasks) {
  const json spec = {{"spec",
                      {{"timeLimit", "1h"},
                       {"tasks", tasks},
                       {"command", {"/bin/sh", "-c", script}},
                       {"resources", {{"cpu", "1"}, {"memory", "1Gi"}}},
                       {"devices", {{"requests", {{{"name", "gpus"}, {"count", 1}}}}}}}}};
  auto [code, job] = admin.Post("/v1/jobs", spec);
  EXPECT_EQ(code, 201) << job.dump();
  return job.value("id", int64_t{0});
}

// Each node's check writes its environment to gang-NODE, waits for the other node's, as a
// collective waits for every rank, and fails while the file `bad` exists, saying so last.
std::vector<std::string> CheckFlags(const ScratchDir& dir) {
  const std::string mine = dir.File("gang-{node}");
  return {"--gang-check-cmd",
          "env > " + mine + ".tmp && mv " + mine + ".tmp " + mine + "; while [ ! -e " +
              dir.File("gang-a1") + " ] || [ ! -e " + dir.File("gang-a2") +
              " ]; do sleep 0.05; done; if [ -e " + dir.File("bad") +
              " ]; then echo link down at {node}; exit 3; fi",
          "--readiness-interval-s", "2"};
}

TEST(GangCheckEndToEnd, AGangStartsOnlyAfterItsCheckAcrossTheNodesPasses) {
  ScratchDir dir;
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("fifo", {"a1", "a2"}, 1, {}, CheckFlags(dir)), "");
  testing::DaemonApi& admin = floor.admin();
  const std::string script = testing::CheckpointingTask(dir.File(""));
  // One task on one node: nothing to check across.
  const int64_t single = Submit(admin, script, 1);
  ASSERT_TRUE(WaitUntil([&] {
    return FileExists(dir.File("run-" + std::to_string(single) + "-1"));
  })) << floor.Logs();
  EXPECT_FALSE(FileExists(dir.File("gang-a1")));
  EXPECT_FALSE(FileExists(dir.File("gang-a2")));
  std::ofstream(dir.File("stop-" + std::to_string(single)));

  const int64_t gang = Submit(admin, script, 2);
  const std::string run = dir.File("run-" + std::to_string(gang) + "-1");
  ASSERT_TRUE(WaitUntil([&] { return FileExists(run); })) << floor.Logs();
  // Each node checked with its rank's environment, and the checks met before a task ran.
  std::set<std::string> ranks;
  for (const std::string node : {"a1", "a2"}) {
    const std::string seen = ReadFile(dir.File("gang-" + node));
    EXPECT_NE(seen.find("HEADROOM_JOB_ID=" + std::to_string(gang) + "\n"), std::string::npos)
        << seen;
    EXPECT_NE(seen.find("HEADROOM_WORLD_SIZE=2\n"), std::string::npos) << seen;
    EXPECT_NE(seen.find("CUDA_VISIBLE_DEVICES=0\n"), std::string::npos) << seen;
    const size_t at = seen.find("HEADROOM_RANK=");
    ASSERT_NE(at, std::string::npos) << seen;
    ranks.insert(seen.substr(at, seen.find('\n', at) - at));
    EXPECT_LE(std::filesystem::last_write_time(dir.File("gang-" + node)),
              std::filesystem::last_write_time(run));
  }
  EXPECT_EQ(ranks, (std::set<std::string>{"HEADROOM_RANK=0", "HEADROOM_RANK=1"}));
  std::ofstream(dir.File("stop-" + std::to_string(gang)));
  EXPECT_EQ(floor.Stop(), "");
}

TEST(GangCheckEndToEnd, AFailedCheckKeepsTheAttemptOffAndItRunsOnceTheLinkIsMended) {
  ScratchDir dir;
  std::ofstream(dir.File("bad")) << "";
  testing::AgentsFloor floor(dir);
  ASSERT_EQ(floor.Start("fifo", {"a1", "a2"}, 1, {}, CheckFlags(dir)), "");
  testing::DaemonApi& admin = floor.admin();
  const auto node_json = [&](const std::string& node) {
    const json nodes = admin.Get("/v1/nodes");
    for (const json& entry : nodes["nodes"]) {
      if (entry["name"] == node) return entry;
    }
    return json();
  };
  const int64_t gang = Submit(admin, testing::CheckpointingTask(dir.File("")), 2);
  const auto job = [&] { return admin.Get("/v1/jobs/" + std::to_string(gang)); };
  ASSERT_TRUE(WaitUntil([&] { return job()["requeues"].get<int64_t>() >= 1; })) << floor.Logs();
  const std::string message = node_json("a1")["readiness_message"].get<std::string>() +
                              node_json("a2")["readiness_message"].get<std::string>();
  EXPECT_NE(message.find("gang communication check of job " + std::to_string(gang) +
                         " attempt 1 exited 3: link down at a"),
            std::string::npos)
      << message << floor.Logs();
  EXPECT_FALSE(FileExists(dir.File("run-" + std::to_string(gang) + "-1")));

  // Mended: the nodes are ready again after their readiness interval, and an attempt runs.
  std::filesystem::remove(dir.File("bad"));
  ASSERT_TRUE(WaitUntil(
      [&] {
        return job()["state"] == "running" &&
               FileExists(dir.File("run-" + std::to_string(gang) + "-" +
                                   std::to_string(job()["attempt"].get<int64_t>())));
      },
      std::chrono::milliseconds(20'000)))
      << job().dump() << floor.Logs();
  std::ofstream(dir.File("stop-" + std::to_string(gang)));
  EXPECT_EQ(floor.Stop(), "");
}

}  // namespace
}  // namespace headroom::agent
