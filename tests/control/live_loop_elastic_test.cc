// Elastic jobs in the live loop (model/job.h): on the tiny building (two racks of two 4-GPU
// nodes), an elastic gang starts on the nodes that are free, the backend hears of that width,
// an engine rebuilt from the store restores it at that width (not a misfit to requeue), and the
// engine log replays it.
#include "live_loop_fixture.h"

namespace headroom::control::live_loop_testing {
namespace {

TEST_F(LiveLoopTest, AnElasticGangStartsOnWhatIsFreeAndKeepsItsWidthAcrossARebuild) {
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

  // Once the rigid job ends, a rigid gang of two starts on its nodes: the elastic job holds
  // only the two it started on.
  clock_.AdvanceUs(60 * kUsPerSecond);
  loop_->Barrier();
  backend_->Report(BackendReport{.completions = {{.job = rigid, .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(rigid, JobState::kCompleted, 1));
  const uint64_t next = Submit(2, 4);
  ASSERT_TRUE(WaitForState(next, JobState::kRunning, 1));

  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.mismatch_count(), 0u);
  EXPECT_GE(replay.decisions(), 2u);
}

}  // namespace
}  // namespace headroom::control::live_loop_testing
