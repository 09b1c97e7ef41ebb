// The environment a task gets: headroom's placement variables over the job's env over the
// agent's, and rendezvous split into MASTER_ADDR/MASTER_PORT.
#include "agent/task_environment.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

TEST(AgentTaskEnvironment, LayersAgentJobAndPlacementVariables) {
  DesiredTask task{.key = {.job = 42, .rank = 3, .attempt = 2},
                   .world_size = 4,
                   .devices = {4, 5, 6, 7},
                   .command = {"python", "train.py"},
                   .env = {{"MASTER_PORT", "1"}, {"RANK", "99"}, {"EXTRA", "x=y"}},
                   .rendezvous = "10.0.0.11:29500"};
  const std::vector<std::string> env =
      TaskEnvironment(task, {"PATH=/usr/bin", "EXTRA=agent", "HOME=/root", "broken"});
  const std::vector<std::string> expected = {"CUDA_DEVICE_ORDER=PCI_BUS_ID",
                                             "CUDA_VISIBLE_DEVICES=4,5,6,7",
                                             "EXTRA=x=y",
                                             "HEADROOM_ATTEMPT=2",
                                             "HEADROOM_JOB_ID=42",
                                             "HEADROOM_RANK=3",
                                             "HEADROOM_RENDEZVOUS=10.0.0.11:29500",
                                             "HEADROOM_WORLD_SIZE=4",
                                             "HOME=/root",
                                             "MASTER_ADDR=10.0.0.11",
                                             "MASTER_PORT=29500",
                                             "PATH=/usr/bin",
                                             "RANK=3",
                                             "WORLD_SIZE=4"};
  EXPECT_EQ(env, expected);
}

TEST(AgentTaskEnvironment, NoRendezvousLeavesTheJobsMasterVariables) {
  DesiredTask task{.key = {.job = 1, .rank = 0},
                   .world_size = 1,
                   .devices = {},
                   .command = {"true"},
                   .env = {{"MASTER_ADDR", "job-host"}}};
  const std::vector<std::string> env = TaskEnvironment(task, {});
  EXPECT_NE(std::find(env.begin(), env.end(), "MASTER_ADDR=job-host"), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "CUDA_VISIBLE_DEVICES="), env.end());
  EXPECT_NE(std::find(env.begin(), env.end(), "HEADROOM_RENDEZVOUS="), env.end());
}

TEST(AgentTaskEnvironment, ACheckpointIntervalIsToldOnlyWhereTheSchedulerSetsOne) {
  DesiredTask task{.key = {.job = 1, .rank = 0},
                   .command = {"true"},
                   .env = {{"HEADROOM_CHECKPOINT_INTERVAL_S", "5"}},
                   .checkpoint_interval_s = 370};
  std::vector<std::string> env = TaskEnvironment(task, {});
  EXPECT_NE(std::find(env.begin(), env.end(), "HEADROOM_CHECKPOINT_INTERVAL_S=370"), env.end());
  // Where the scheduler says nothing the variable is absent, whatever the job's or the agent's
  // environment holds: a task that sees it was told by the scheduler.
  task.checkpoint_interval_s = 0;
  env = TaskEnvironment(task, {"HEADROOM_CHECKPOINT_INTERVAL_S=9"});
  EXPECT_TRUE(std::none_of(env.begin(), env.end(), [](const std::string& entry) {
    return entry.starts_with("HEADROOM_CHECKPOINT_INTERVAL_S=");
  }));
}

TEST(AgentTaskEnvironment, SplitsRendezvousForms) {
  using Pair = std::pair<std::string, std::string>;
  EXPECT_EQ(SplitRendezvous("10.0.0.11:29500"), Pair("10.0.0.11", "29500"));
  EXPECT_EQ(SplitRendezvous("[fd00::1]:29500"), Pair("fd00::1", "29500"));
  EXPECT_EQ(SplitRendezvous("fd00::1"), Pair("fd00::1", ""));
  EXPECT_EQ(SplitRendezvous("node-a"), Pair("node-a", ""));
}

}  // namespace
}  // namespace headroom::agent
