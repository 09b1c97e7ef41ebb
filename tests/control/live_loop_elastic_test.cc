// Elastic jobs in the live loop (model/job.h): on the tiny building (two racks of two 4-GPU
// nodes), an elastic gang starts on the nodes that are free, the backend hears of that width,
// an engine rebuilt from the store restores it at that width (not a misfit to requeue), it grows
// into capacity nothing waits for and shrinks for a job of higher priority (the headroom
// policy's ElasticConfig), and the engine log replays all of it.
#include "live_loop_fixture.h"

namespace headroom::control::live_loop_testing {
namespace {

TEST_F(LiveLoopTest, AnElasticGangStartsNarrowGrowsAndShrinksAndTheLogReplays) {
  const uint64_t rigid = Submit(2, 4);
  ASSERT_TRUE(WaitForState(rigid, JobState::kRunning, 1));
  const uint64_t elastic = Submit(4, 4, 0, "  elastic: {minTasks: 1}\n");
  ASSERT_TRUE(WaitForState(elastic, JobState::kRunning, 1));
  const JobRecord started = OnDisk(elastic);
  EXPECT_EQ(started.placement.size(), 2u);
  EXPECT_EQ(DevicesOf(started), 8u);
  EXPECT_EQ(started.spec.min_tasks, 1u);
  ASSERT_EQ(backend_->starts().size(), 2u);
  EXPECT_EQ(backend_->starts()[1].placement.size(), 2u);

  // A new loop rebuilds its engine from the state: the job runs on at the width it started at.
  StartLoop({});
  Iterated();
  const JobRecord restored = InState(elastic);
  EXPECT_EQ(restored.state, JobState::kRunning);
  EXPECT_EQ(restored.starts, 1u);
  EXPECT_EQ(restored.placement, started.placement);

  // The rigid job ends and nothing waits: under the headroom policy the elastic job grows
  // into its nodes, a resize the backend executes as a move to four tasks.
  clock_.AdvanceUs(4000 * kUsPerSecond);
  loop_->Barrier();
  backend_->Report(BackendReport{.completions = {{.job = rigid, .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(rigid, JobState::kCompleted, 1));
  ASSERT_TRUE(testing::WaitFor([&] { return InState(elastic).placement.size() == 4; }));
  EXPECT_EQ(InState(elastic).starts, 2u);  // The restart at the new width is its next attempt.
  EXPECT_NE(InState(elastic).message.find("grown from 2 to 4 tasks"), std::string::npos)
      << InState(elastic).message;
  ASSERT_EQ(backend_->migrations().size(), 1u);

  // A job of higher priority is blocked: the elastic job gives it two tasks back instead of
  // being requeued.
  clock_.AdvanceUs(60 * kUsPerSecond);
  loop_->Barrier();
  const uint64_t urgent = Submit(2, 4, 5);
  ASSERT_TRUE(WaitForState(urgent, JobState::kRunning, 1));
  const JobRecord shrunk = InState(elastic);
  EXPECT_EQ(shrunk.state, JobState::kRunning);
  EXPECT_EQ(shrunk.placement.size(), 2u);
  EXPECT_NE(shrunk.message.find("shrunk from 4 to 2 tasks"), std::string::npos) << shrunk.message;
  EXPECT_TRUE(backend_->preemptions().empty());
  EXPECT_EQ(backend_->migrations().size(), 2u);
  {
    std::lock_guard lock(state_.mu);
    EXPECT_EQ(state_.resizes_total, 2u);
    EXPECT_EQ(state_.migrations_total, 0u);
  }

  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.mismatch_count(), 0u);
  EXPECT_GE(replay.decisions(), 2u);
}

}  // namespace
}  // namespace headroom::control::live_loop_testing
