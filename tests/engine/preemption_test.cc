// Preemption (engine/preemption.h, engine_preempt.cc): exact scenarios on two 8-device nodes —
// who is requeued for a higher-priority job, what it loses, who is spared (equal priority, the
// minimum run time, a victim the blocked job did not need, the changeover and per-job budgets),
// a job past its budget or long requeued going ahead of the queue, gangs requeued whole — and the
// lost-work arithmetic.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/preemption.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::MakeCluster;
using testing::MakeJob;
using testing::Victims;

PolicyConfig WithPreemption(std::string_view preset = "headroom") {
  PolicyConfig policy = testing::Preset(preset);
  policy.queue_order = "fifo";  // Placements in arrival order, whatever the priorities.
  policy.victim_selector = "lowest_priority";
  policy.preemption.enabled = true;
  policy.preemption.checkpoint_interval_us = 3600 * kUsPerSecond;
  policy.preemption.restart_us = 600 * kUsPerSecond;
  return policy;
}

model::Job Prioritized(model::Job job, int32_t priority) {
  job.priority = priority;
  return job;
}

struct TwoNodes {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
};

TEST(PreemptionScenario, AHighPriorityJobRequeuesTheLowestPriorityJobAndStartsInItsPlace) {
  for (std::string_view preset : {"headroom", "fifo", "slurm-like", "spread"}) {
    SCOPED_TRACE(preset);
    TwoNodes t;
    Harness h(t.cluster, WithPreemption(preset));
    const JobId low = h.Submit(Prioritized(MakeJob(1, 8, 36000), 0));
    const JobId mid = h.Submit(Prioritized(MakeJob(1, 8, 36000), 5));
    h.Step(0);
    ASSERT_EQ(h.NodesOf(low), std::vector<std::string>{"n0"});
    ASSERT_EQ(h.NodesOf(mid), std::vector<std::string>{"n1"});

    const JobId high = h.Submit(Prioritized(MakeJob(1, 8, 3600), 10));
    const Decisions decisions = h.Step(7300);
    ASSERT_EQ(Victims(decisions), std::vector<JobId>{low});
    const PreemptJob& preemption = decisions.preemptions[0];
    EXPECT_EQ(preemption.preemptor, high);
    EXPECT_EQ(preemption.checkpoint_interval_us, SecondsToUs(3600));
    EXPECT_EQ(preemption.lost_us, SecondsToUs(100));  // 7300 s run, checkpoints at 1 h and 2 h.
    EXPECT_EQ(preemption.restart_us, SecondsToUs(600));
    EXPECT_EQ(preemption.cost_device_us, SecondsToUs(700) * 8);
    EXPECT_EQ(h.NodesOf(high), std::vector<std::string>{"n0"});
    EXPECT_EQ(h.engine().state(low), JobState::kPending);
    EXPECT_EQ(h.engine().state(mid), JobState::kRunning);

    // The requeued job starts again, same id, once the high-priority job is done.
    h.Finish(high);
    const Decisions after = h.Step(11000);
    ASSERT_EQ(after.starts.size(), 1u);
    EXPECT_EQ(after.starts[0].job, low);
    EXPECT_TRUE(after.preemptions.empty());
  }
}

// Among jobs of the lowest priority, Kubernetes' order (lowest_priority_newest) takes the one
// that started last, whatever it loses; lowest_priority takes the one that loses least.
TEST(PreemptionScenario, KubernetesOrderTakesTheNewestJobWhateverItLoses) {
  for (const std::string_view selector : {"lowest_priority_newest", "lowest_priority"}) {
    SCOPED_TRACE(selector);
    TwoNodes t;
    PolicyConfig policy = WithPreemption();
    policy.victim_selector = std::string(selector);
    Harness h(t.cluster, policy);
    const JobId older = h.Submit(Prioritized(MakeJob(1, 8, 36000), 0));
    h.Step(0);
    const JobId newer = h.Submit(Prioritized(MakeJob(1, 8, 36000), 0));
    h.Step(1000);
    ASSERT_EQ(h.engine().running_count(), 2u);
    // At 4,000 s the older job has saved at 3,600 s (loses 400 s), the newer none (3,000 s).
    const JobId high = h.Submit(Prioritized(MakeJob(1, 8, 3600), 10));
    const Decisions decisions = h.Step(4000);
    const JobId expected = selector == "lowest_priority_newest" ? newer : older;
    ASSERT_EQ(Victims(decisions), std::vector<JobId>{expected});
    EXPECT_EQ(decisions.preemptions[0].lost_us,
              SecondsToUs(selector == "lowest_priority_newest" ? 3000 : 400));
    EXPECT_EQ(h.engine().state(high), JobState::kRunning);
  }
}

TEST(PreemptionScenario, EqualPriorityNeverPreemptsAndPreemptionOffNeverPreempts) {
  TwoNodes t;
  for (const bool enabled : {true, false}) {
    PolicyConfig policy = WithPreemption();
    policy.queue_order = "priority";  // The higher job goes ahead of the equal one.
    policy.preemption.enabled = enabled;
    Harness h(t.cluster, policy);
    h.Submit(Prioritized(MakeJob(2, 8, 36000), 3));
    h.Step(0);
    const JobId equal = h.Submit(Prioritized(MakeJob(1, 8, 3600), 3));
    EXPECT_TRUE(h.Step(5000).preemptions.empty());
    EXPECT_EQ(h.engine().state(equal), JobState::kPending);
    const JobId higher = h.Submit(Prioritized(MakeJob(1, 8, 3600), 4));
    EXPECT_EQ(h.Step(5010).preemptions.size(), enabled ? 1u : 0u);
    EXPECT_EQ(h.engine().state(higher), enabled ? JobState::kRunning : JobState::kPending);
  }
}

TEST(PreemptionScenario, AJobIsNotPreemptedBeforeItsMinimumRunTime) {
  TwoNodes t;
  PolicyConfig policy = WithPreemption();
  policy.preemption.min_run_us = SecondsToUs(1800);
  Harness h(t.cluster, policy);
  const JobId low = h.Submit(Prioritized(MakeJob(2, 8, 36000), 0));
  h.Step(100);
  const JobId high = h.Submit(Prioritized(MakeJob(1, 8, 3600), 9));
  EXPECT_TRUE(h.Step(1000).preemptions.empty());
  EXPECT_TRUE(h.Step(1899).preemptions.empty());  // 1799 s run.
  const Decisions decisions = h.Step(1900);
  EXPECT_EQ(Victims(decisions), std::vector<JobId>{low});
  EXPECT_EQ(h.engine().state(high), JobState::kRunning);
}

TEST(PreemptionScenario, AGangIsRequeuedWholeAndNothingElseIsTaken) {
  TwoNodes t;
  Harness h(t.cluster, WithPreemption());
  // A two-task gang holds half of each node (its CPU keeps its tasks apart); the other halves
  // run higher-priority work.
  const JobId gang = h.Submit(Prioritized(MakeJob(2, 4, 36000, "", 40'000), 0));
  const JobId side0 = h.Submit(Prioritized(MakeJob(1, 4, 36000), 5));
  const JobId side1 = h.Submit(Prioritized(MakeJob(1, 4, 36000), 5));
  h.Step(0);
  ASSERT_EQ(h.NodesOf(gang), (std::vector<std::string>{"n0", "n1"}));
  const JobId high = h.Submit(Prioritized(MakeJob(1, 4, 3600), 9));
  const Decisions decisions = h.Step(4000);
  ASSERT_EQ(Victims(decisions), std::vector<JobId>{gang});
  EXPECT_EQ(h.engine().allocations(gang), nullptr);  // Neither task is left behind.
  EXPECT_EQ(h.NodesOf(high).size(), 1u);
  EXPECT_EQ(h.engine().state(side0), JobState::kRunning);
  EXPECT_EQ(h.engine().state(side1), JobState::kRunning);
  // Four devices the gang held are free: the gang's other half.
  EXPECT_EQ(h.engine().cluster_state().allocated_milli(), 12'000u);
}

TEST(PreemptionScenario, AVictimTheBlockedJobDidNotNeedKeepsRunning) {
  TwoNodes t;
  Harness h(t.cluster, WithPreemption());
  // n0: `cheap` (lowest priority, 2 devices) and `other` (priority 3, 6 devices); n1: `low`
  // (priority 1, all 8). Releasing `cheap` first does not make room; `low` does, and then
  // `cheap` gets its devices back.
  const JobId cheap = h.Submit(Prioritized(MakeJob(1, 2, 36000), 0));
  const JobId other = h.Submit(Prioritized(MakeJob(1, 6, 36000), 3));
  const JobId low = h.Submit(Prioritized(MakeJob(1, 8, 36000), 1));
  h.Step(0);
  ASSERT_EQ(h.NodesOf(cheap), std::vector<std::string>{"n0"});
  ASSERT_EQ(h.NodesOf(other), std::vector<std::string>{"n0"});
  ASSERT_EQ(h.NodesOf(low), std::vector<std::string>{"n1"});
  const JobId high = h.Submit(Prioritized(MakeJob(1, 8, 3600), 9));
  const Decisions decisions = h.Step(4000);
  EXPECT_EQ(Victims(decisions), std::vector<JobId>{low});
  EXPECT_EQ(h.NodesOf(high), std::vector<std::string>{"n1"});
  EXPECT_EQ(h.engine().state(cheap), JobState::kRunning);
  EXPECT_EQ(h.engine().state(other), JobState::kRunning);
}

TEST(PreemptionScenario, ARequeuedJobsCheckpointsCountFromTheEndOfItsRestart) {
  TwoNodes t;
  Harness h(t.cluster, WithPreemption());
  const JobId low = h.Submit(Prioritized(MakeJob(2, 8, 36000), 0));
  h.Step(0);
  const JobId high = h.Submit(Prioritized(MakeJob(1, 8, 1000), 9));
  ASSERT_EQ(Victims(h.Step(4000)), std::vector<JobId>{low});
  h.Finish(high);
  ASSERT_EQ(h.Step(5000).starts.size(), 1u);  // `low` again; it works from 5600 s on.
  const JobId again = h.Submit(Prioritized(MakeJob(1, 8, 1000), 9));
  const Decisions decisions = h.Step(5600 + 3600 + 50);
  ASSERT_EQ(Victims(decisions), std::vector<JobId>{low});
  EXPECT_EQ(decisions.preemptions[0].lost_us, SecondsToUs(50));
  EXPECT_EQ(h.engine().state(again), JobState::kRunning);
}

TEST(PreemptionGuards, TheChangeoverBudgetBoundsWhatPreemptionsLoseInAnyHour) {
  TwoNodes t;
  PolicyConfig policy = WithPreemption();
  // A victim of 8 devices preempted 100 s after a checkpoint loses (100 + 600) s x 8 = 5,600
  // device-seconds; the budget allows one such an hour.
  policy.preemption.changeover_budget_device_s_per_hour = 6000;
  policy.queue_order = "priority";  // The high jobs go ahead of the requeued one.
  Harness h(t.cluster, policy);
  const JobId a = h.Submit(Prioritized(MakeJob(1, 8, 36000), 0));
  const JobId b = h.Submit(Prioritized(MakeJob(1, 8, 36000), 0));
  h.Step(0);
  h.Submit(Prioritized(MakeJob(1, 8, 36000), 9));
  EXPECT_EQ(Victims(h.Step(3700)), std::vector<JobId>{a});
  const JobId second = h.Submit(Prioritized(MakeJob(1, 8, 36000), 9));
  EXPECT_TRUE(h.Step(7299).preemptions.empty());  // 400 device-s left: b costs 5,592.
  EXPECT_EQ(h.engine().state(second), JobState::kPending);
  // The engine asks to be stepped when the first charge leaves the rolling hour, and then
  // preempts b.
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(7300));
  EXPECT_EQ(Victims(h.Step(7300)), std::vector<JobId>{b});
  EXPECT_EQ(h.engine().Carried(SecondsToUs(7300)).preemption_spent,
            (std::vector<std::pair<TimeUs, int64_t>>{{SecondsToUs(7300), SecondsToUs(5600)}}));

  policy.preemption.changeover_budget_device_s_per_hour = 5000;  // Below one victim's cost.
  Harness none(t.cluster, policy);
  none.Submit(Prioritized(MakeJob(2, 8, 36000), 0));
  none.Step(0);
  none.Submit(Prioritized(MakeJob(1, 8, 36000), 9));
  EXPECT_TRUE(none.Step(3700).preemptions.empty());
}

TEST(PreemptionGuards, AJobPreemptedItsBudgetOfTimesIsNeverAVictimAgain) {
  TwoNodes t;
  PolicyConfig policy = WithPreemption();
  policy.preemption.max_preemptions_per_job = 1;
  Harness h(t.cluster, policy);
  const JobId low = h.Submit(Prioritized(MakeJob(2, 8, 36000), 0));
  h.Step(0);
  const JobId first = h.Submit(Prioritized(MakeJob(1, 8, 100), 9));
  EXPECT_EQ(Victims(h.Step(1000)), std::vector<JobId>{low});
  h.Finish(first);
  ASSERT_EQ(h.Step(1100).starts.size(), 1u);  // `low` again.
  const JobId second = h.Submit(Prioritized(MakeJob(1, 8, 100), 9));
  EXPECT_TRUE(h.Step(5000).preemptions.empty());
  EXPECT_EQ(h.engine().state(second), JobState::kPending);
  EXPECT_EQ(h.engine().state(low), JobState::kRunning);
}

// One node: `low` runs from 0 s, `high` preempts it at 1000 s, and `newcomer`, of a priority
// between the two, arrives at 1050 s.
struct RequeuedBeforeANewcomer {
  explicit RequeuedBeforeANewcomer(const PolicyConfig& policy) : h(cluster, policy) {
    low = h.Submit(Prioritized(MakeJob(1, 8, 36000), 0));
    h.Step(0);
    high = h.Submit(Prioritized(MakeJob(1, 8, 100), 9));
    EXPECT_EQ(Victims(h.Step(1000)), std::vector<JobId>{low});
    newcomer = h.Submit(Prioritized(MakeJob(1, 8, 100), 5));
    h.Step(1050);
  }
  // Which of `low` and `newcomer` is first in the queue.
  JobId FirstPending() {
    const PendingSnapshot pending = h.engine().SnapshotPending({}, false);
    EXPECT_EQ(pending.jobs.size(), 2u);
    return pending.jobs[0].queue_position < pending.jobs[1].queue_position ? pending.jobs[0].job
                                                                           : pending.jobs[1].job;
  }

  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}}}});
  Harness h;
  JobId low, high, newcomer;
};

PolicyConfig ByPriority(PolicyConfig policy) {
  policy.queue_order = "priority";
  return policy;
}

// Past its budget a job's priority rises too: requeued for the last time, it goes ahead of a
// job the order would put first (here, of higher priority), and starts when room frees.
TEST(PreemptionGuards, AJobPreemptedItsBudgetOfTimesGoesAheadOfTheQueue) {
  for (const uint32_t budget : {1u, 0u}) {
    SCOPED_TRACE(budget);
    PolicyConfig policy = ByPriority(WithPreemption());
    policy.preemption.max_preemptions_per_job = budget;
    RequeuedBeforeANewcomer t(policy);
    EXPECT_EQ(t.FirstPending(), budget > 0 ? t.low : t.newcomer);
    t.h.Finish(t.high);
    const Decisions after = t.h.Step(1100);
    ASSERT_EQ(after.starts.size(), 1u);
    EXPECT_EQ(after.starts[0].job, budget > 0 ? t.low : t.newcomer);
    EXPECT_TRUE(after.preemptions.empty());
  }
}

PolicyConfig RaisingAnHourAfterARequeue() {
  PolicyConfig policy = ByPriority(WithPreemption());
  policy.preemption.raise_requeued_after_us = SecondsToUs(3600);
  return policy;
}

// A victim that has waited raise_requeued_after_us since its requeue goes ahead of the queue
// too: the engine wakes when that time comes, and the victim starts first when room frees.
TEST(PreemptionGuards, AVictimWaitingLongEnoughSinceItsRequeueGoesAheadOfTheQueue) {
  RequeuedBeforeANewcomer t(RaisingAnHourAfterARequeue());
  EXPECT_EQ(t.FirstPending(), t.newcomer);  // Waited 50 s of its 3600.
  EXPECT_EQ(t.h.engine().NextWakeupUs(), SecondsToUs(1000 + 3600));
  EXPECT_TRUE(t.h.Step(1000 + 3600).empty());
  EXPECT_EQ(t.FirstPending(), t.low);
  t.h.Finish(t.high);
  const Decisions after = t.h.Step(5000);
  ASSERT_EQ(after.starts.size(), 1u);
  EXPECT_EQ(after.starts[0].job, t.low);
  // Running again, it is not raised: a new arrival of higher priority preempts it as before.
  t.h.Submit(Prioritized(MakeJob(1, 8, 100), 9));
  EXPECT_EQ(Victims(t.h.Step(6000)), std::vector<JobId>{t.low});
}

// An earlier engine's requeue counts (model::Job::preemptions and pending_since_us, which the
// daemon carries across rebuilds): such a job is raised when its wait since then comes to the
// limit, not the limit after this engine first saw it.
TEST(PreemptionGuards, ARequeueByAnEarlierEngineCountsTowardTheRaise) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}}}});
  Harness h(cluster, RaisingAnHourAfterARequeue());
  const JobId running = h.Submit(Prioritized(MakeJob(1, 8, 36000), 9));
  h.Step(0);
  model::Job requeued = Prioritized(MakeJob(1, 8, 100), 0);
  requeued.submit_time_us = SecondsToUs(10);
  requeued.preemptions = 1;
  requeued.pending_since_us = SecondsToUs(500);
  const JobId victim = h.Submit(requeued);
  const JobId newcomer = h.Submit(Prioritized(MakeJob(1, 8, 100), 5));
  h.Step(600);
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(500 + 3600));
  h.Step(500 + 3600);
  h.Finish(running);
  const Decisions after = h.Step(4200);
  ASSERT_EQ(after.starts.size(), 1u);
  EXPECT_EQ(after.starts[0].job, victim);
  EXPECT_EQ(h.engine().state(newcomer), JobState::kPending);
}

// The budget counts the preemptions earlier engines made (model::Job::preemptions, which the
// daemon carries across rebuilds): a job that arrives with its budget spent is never a victim.
TEST(PreemptionGuards, PreemptionsFromAnEarlierEngineCountAgainstTheBudget) {
  for (const uint32_t earlier : {1u, 0u}) {
    SCOPED_TRACE(earlier);
    const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}}}});
    PolicyConfig policy = WithPreemption();
    policy.preemption.max_preemptions_per_job = 1;
    Harness h(cluster, policy);
    model::Job job = Prioritized(MakeJob(1, 8, 36000), 0);
    job.preemptions = earlier;
    const JobId low = h.Submit(job);
    h.Step(0);
    EXPECT_EQ(h.engine().preemptions(low), earlier);
    h.Submit(Prioritized(MakeJob(1, 8, 100), 9));
    EXPECT_EQ(Victims(h.Step(1000)), earlier > 0 ? std::vector<JobId>{} : std::vector<JobId>{low});
  }
}

TEST(PreemptionLostWork, WorkSinceTheLastCheckpointOrAllOfItWithoutCheckpoints) {
  EXPECT_EQ(Preempter::LostUs(100, 60, 100 + 150), 30);
  EXPECT_EQ(Preempter::LostUs(100, 60, 100 + 120), 0);
  EXPECT_EQ(Preempter::LostUs(100, 0, 100 + 150), 150);
  EXPECT_EQ(Preempter::LostUs(100, 60, 50), 0);  // Still in its restart pause.
}

}  // namespace
}  // namespace headroom::engine
