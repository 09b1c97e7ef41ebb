// GangCheck alone: a job on one node, or an attempt all of whose ranks are here, is not held; a
// multi-node attempt's tasks wait for its check, which runs once with the lowest rank's
// environment, and start once it passed; a failure or a timeout holds them for good with a
// message naming the attempt; an attempt no longer desired has its check killed.
#include "agent/gang_check.h"

#include <fstream>

#include <gtest/gtest.h>

#include "agent/agent.h"
#include "agent_test_files.h"

namespace headroom::agent {
namespace {

using testing::ScratchDir;
using testing::WaitUntil;

DesiredTask TaskOf(int64_t job, int rank, int world_size) {
  DesiredTask task;
  task.key = {.job = job, .rank = rank, .attempt = 1};
  task.world_size = world_size;
  task.devices = {rank};
  task.command = {"true"};
  return task;
}

std::vector<int> RanksOf(const std::vector<DesiredTask>& tasks) {
  std::vector<int> ranks;
  for (const DesiredTask& task : tasks)
    ranks.push_back(static_cast<int>(task.key.job * 10) + task.key.rank);
  return ranks;
}

GangCheck::Finished TickUntilFinished(GangCheck& check) {
  GangCheck::Finished finished;
  WaitUntil([&] {
    finished = check.Tick(SteadyNowUs());
    return finished.passed > 0 || !finished.failures.empty();
  });
  return finished;
}

const auto kNotStarted = [](const TaskKey&) { return false; };

TEST(AgentGangCheck, OnlyAMultiNodeAttemptWaitsAndItStartsOnceItsCheckPassed) {
  ScratchDir dir;
  GangCheck check({.command = "echo $HEADROOM_RANK-$HEADROOM_WORLD_SIZE >> " + dir.File("ran"),
                   .work_dir = dir.File(""),
                   .agent_env = {"PATH=/usr/bin:/bin"}});
  // Job 1: one task. Job 2: both ranks here. Job 3: ranks 2 and 3 of 4 here.
  const std::vector<DesiredTask> desired = {TaskOf(1, 0, 1), TaskOf(2, 0, 2), TaskOf(2, 1, 2),
                                            TaskOf(3, 3, 4), TaskOf(3, 2, 4)};
  EXPECT_EQ(RanksOf(check.Admit(desired, kNotStarted, SteadyNowUs())),
            (std::vector<int>{10, 20, 21}));
  // Asked again while it runs, it starts no second check.
  EXPECT_EQ(RanksOf(check.Admit(desired, kNotStarted, SteadyNowUs())),
            (std::vector<int>{10, 20, 21}));
  const GangCheck::Finished finished = TickUntilFinished(check);
  EXPECT_EQ(finished.passed, 1);
  EXPECT_TRUE(finished.failures.empty());
  EXPECT_EQ(testing::ReadFile(dir.File("ran")), "2-4\n");
  EXPECT_EQ(check.Admit(desired, kNotStarted, SteadyNowUs()).size(), desired.size());
}

TEST(AgentGangCheck, AFailureOrATimeoutHoldsTheAttemptWithItsReason) {
  ScratchDir dir;
  const std::vector<DesiredTask> desired = {TaskOf(7, 1, 2)};
  GangCheck failing({.command = "echo first; echo NCCL timeout on mlx5_0 >&2; exit 3",
                     .work_dir = dir.File(""),
                     .agent_env = {"PATH=/usr/bin:/bin"}});
  EXPECT_TRUE(failing.Admit(desired, kNotStarted, SteadyNowUs()).empty());
  GangCheck::Finished finished = TickUntilFinished(failing);
  ASSERT_EQ(finished.failures.size(), 1u);
  EXPECT_EQ(finished.failures[0],
            "gang communication check of job 7 attempt 1 exited 3: NCCL timeout on mlx5_0");
  EXPECT_TRUE(failing.Admit(desired, kNotStarted, SteadyNowUs()).empty());
  EXPECT_TRUE(failing.Tick(SteadyNowUs()).failures.empty());  // Reported once, never rerun.
  // A task that already runs (it started before, under an earlier agent) is left alone.
  EXPECT_EQ(failing
                .Admit(
                    desired, [](const TaskKey&) { return true; }, SteadyNowUs())
                .size(),
            1u);

  GangCheck slow({.command = "sleep 30",
                  .timeout_us = 200'000,
                  .work_dir = dir.File(""),
                  .agent_env = {"PATH=/usr/bin:/bin"}});
  EXPECT_TRUE(slow.Admit(desired, kNotStarted, SteadyNowUs()).empty());
  finished = TickUntilFinished(slow);
  ASSERT_EQ(finished.failures.size(), 1u);
  EXPECT_EQ(finished.failures[0],
            "gang communication check of job 7 attempt 1 timed out after 0.2 s");
}

TEST(AgentGangCheck, AnAttemptNoLongerDesiredHasItsCheckKilled) {
  ScratchDir dir;
  GangCheck check({.command = "sleep 30; touch " + dir.File("finished"),
                   .work_dir = dir.File(""),
                   .agent_env = {"PATH=/usr/bin:/bin"}});
  EXPECT_TRUE(check.Admit({TaskOf(9, 0, 2)}, kNotStarted, SteadyNowUs()).empty());
  // Killed, not waited for: it never gets to touch its file.
  EXPECT_TRUE(check.Admit({}, kNotStarted, SteadyNowUs()).empty());
  const GangCheck::Finished finished = check.Tick(SteadyNowUs());
  EXPECT_EQ(finished.passed, 0);
  EXPECT_TRUE(finished.failures.empty());
  EXPECT_FALSE(testing::FileExists(dir.File("finished")));
}

}  // namespace
}  // namespace headroom::agent
