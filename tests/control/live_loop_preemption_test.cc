// LiveLoop preemption, live as the simulator has it: a higher-priority job preempts a running
// one, which requeues and runs its next attempt; under Tiresias's least attained service, a
// job that has run into a higher queue is preempted by a newcomer, the attained service is
// kept on the job's record (a requeue from a lost node's too) and the engine log replays the
// decisions with it.
#include <gtest/gtest.h>

#include "control/engine_replay.h"
#include "live_loop_fixture.h"

namespace headroom::control {
namespace {

class LiveLoopPreemptionTest : public live_loop_testing::LiveLoopTest {};

TEST_F(LiveLoopPreemptionTest,
       AHigherPriorityJobPreemptsARunningJobWhichRequeuesAndRunsItsNextAttempt) {
  StartLoop({}, "preemption: {enabled: true, checkpoint_interval_s: 600, restart_s: 60}\n");
  // Four four-device jobs fill the four nodes.
  std::vector<uint64_t> low;
  for (int i = 0; i < 4; ++i) low.push_back(Submit(1, 4));
  for (uint64_t id : low) ASSERT_TRUE(WaitForState(id, JobState::kRunning, 1));
  clock_.AdvanceUs(900 * kUsPerSecond);
  loop_->Barrier();

  const uint64_t high = Submit(1, 4, 10);
  ASSERT_TRUE(WaitForState(high, JobState::kRunning, 1));
  ASSERT_EQ(backend_->preemptions().size(), 1u);
  const JobRecord victim = backend_->preemptions()[0];
  ASSERT_NE(std::find(low.begin(), low.end(), victim.id), low.end());
  EXPECT_EQ(victim.state, JobState::kPending);
  EXPECT_EQ(victim.starts, 1u);
  EXPECT_NE(victim.message.find(fmt::format("preempted (attempt 1) for job {}", high)),
            std::string::npos)
      << victim.message;
  EXPECT_NE(victim.message.find("300 s of work lost"), std::string::npos) << victim.message;
  EXPECT_EQ(InState(high).placement, OnDisk(high).placement);
  // Journaled, and counted.
  const JobRecord row = OnDisk(victim.id);
  EXPECT_EQ(row.state, JobState::kPending);
  EXPECT_TRUE(row.placement.empty());
  {
    std::lock_guard lock(state_.mu);
    EXPECT_EQ(state_.preemptions_total, 1u);
  }
  EXPECT_EQ(InState(victim.id).preemptions, 1u);  // For the per-job budget across rebuilds,
  EXPECT_GT(InState(victim.id).requeued_us, InState(victim.id).submit_us);  // and hysteresis.

  // When the high-priority job ends, the victim runs its next attempt.
  clock_.AdvanceUs(60 * kUsPerSecond);
  loop_->Barrier();
  backend_->Report(BackendReport{.completions = {{.job = high, .exit_code = 0}}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(victim.id, JobState::kRunning, 2));
  // The engine log replays: five starts, the preemption and the restart come out the same.
  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.decisions(), 7u);
  EXPECT_EQ(replay.mismatch_count(), 0u);
  EXPECT_EQ(replay.engine()->preemptions(*replay.EngineIdOf(victim.id)), 1u);
}

TEST_F(LiveLoopPreemptionTest,
       UnderLeastAttainedServiceANewcomerPreemptsTheJobThatRanIntoAHigherQueue) {
  // One queue limit of 1,000 device-seconds: the whole building (16 devices) crosses it after
  // 62.5 s.
  StartLoop({},
            "queue: {order: las, las: {limits_device_s: [1000]}}\n"
            "preemption: {enabled: true, scope: cluster, checkpoint_interval_s: 60}\n");
  const uint64_t whole = Submit(4, 4);
  ASSERT_TRUE(WaitForState(whole, JobState::kRunning, 1));
  const uint64_t newcomer = Submit(1, 4);
  Iterated();
  EXPECT_EQ(InState(newcomer).state, JobState::kPending);  // Both in the first queue.
  EXPECT_TRUE(backend_->preemptions().empty());

  clock_.AdvanceUs(100 * kUsPerSecond);
  loop_->Wake();
  ASSERT_TRUE(WaitForState(newcomer, JobState::kRunning, 1));
  ASSERT_EQ(backend_->preemptions().size(), 1u);
  EXPECT_EQ(backend_->preemptions()[0].id, whole);
  const JobRecord victim = InState(whole);
  EXPECT_EQ(victim.state, JobState::kPending);
  EXPECT_NE(victim.message.find(fmt::format("preempted (attempt 1) for job {}, which has had "
                                            "less service",
                                            newcomer)),
            std::string::npos)
      << victim.message;
  // Its attained service, 16 devices for as long as it ran, goes with its record to the next
  // engine (rebuilds, restarts).
  EXPECT_EQ(victim.attained_device_us, 16 * (clock_.NowUs() - victim.submit_us));
  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.mismatch_count(), 0u);
  EXPECT_EQ(replay.engine()->attained_device_us(*replay.EngineIdOf(whole)),
            victim.attained_device_us);
}

TEST_F(LiveLoopPreemptionTest, UnderLeastAttainedServiceAJobRequeuedFromALostNodeKeepsItsService) {
  StartLoop({}, "queue: {order: las, las: {limits_device_s: [1000]}}\n");
  const uint64_t id = Submit(1, 4);
  ASSERT_TRUE(WaitForState(id, JobState::kRunning, 1));
  clock_.AdvanceUs(50 * kUsPerSecond);
  loop_->Barrier();
  const TimeUs ran_us = clock_.NowUs() - InState(id).start_us;
  backend_->Report(BackendReport{.lost_nodes = {InState(id).placement.at(0).node}});
  loop_->Wake();
  ASSERT_TRUE(WaitForState(id, JobState::kRunning, 2));
  // 4 devices for as long as its first attempt ran, on its record and in the engine log's
  // submission of its next attempt (which a restart replays).
  EXPECT_EQ(InState(id).attained_device_us, 4 * ran_us);
  const EngineReplay replay = ReplayLog();
  EXPECT_EQ(replay.mismatch_count(), 0u);
  EXPECT_EQ(replay.engine()->attained_device_us(*replay.EngineIdOf(id)), 4 * ran_us);
}

}  // namespace
}  // namespace headroom::control
