// Queues with quotas in the engine (quota.h, engine_pass.cc, engine_preempt.cc): exact scenarios
// on two 8-device nodes — a queue held at its limit holds up nobody behind it and says why,
// idle guarantees are lent and reclaimed by preemption (borrowed work first, never below the
// borrower's guarantee), priority preempts only inside one queue, and what a queue does not lend
// stays idle for it.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::MakeCluster;
using testing::MakeJob;
using testing::Of;
using testing::Victims;
using testing::WithQueues;

struct TwoNodes {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
};

// Half of the 16 devices each, no limits.
constexpr std::string_view kEven = R"(queues:
  - {name: a, guaranteed: {devices: 8}}
  - {name: b, guaranteed: {devices: 8}}
)";

constexpr std::string_view kHalves = R"(queues:
  - {name: a, guaranteed: {devices: 8}, borrowing_limit: {devices: 4}}
  - {name: b, guaranteed: {devices: 8}}
)";

TEST(QuotaScenario, AQueueAtItsLimitWaitsWithItsReasonAndHoldsUpNobodyBehindIt) {
  TwoNodes t;
  Harness h(t.cluster, WithQueues(kHalves, false));
  const JobId first = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  const JobId over = h.Submit(Of("a", MakeJob(1, 8, 3600)));  // 16 > 8 + 4.
  const JobId small = h.Submit(Of("a", MakeJob(1, 4, 3600)));
  const JobId other = h.Submit(Of("b", MakeJob(1, 4, 3600)));
  h.Step(0);
  EXPECT_EQ(h.engine().state(first), JobState::kRunning);
  EXPECT_EQ(h.engine().state(over), JobState::kPending);
  EXPECT_EQ(h.engine().state(small), JobState::kRunning);  // a borrows 4 of b's idle 8.
  EXPECT_EQ(h.engine().state(other), JobState::kRunning);
  const PendingStatus status = h.engine().Explain(over);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kQuota);
  EXPECT_EQ(PendingCodeName(status.reasons.front()), "quota");
  // a's other jobs end at 3600 s: then it is within its limit again.
  EXPECT_EQ(status.expected_start_us, SecondsToUs(3600));
  EXPECT_NE(status.message.find("Queue 'a' uses 12 devices of the 12 devices it may (guaranteed "
                                "8 devices + borrowing limit 4 devices)"),
            std::string::npos)
      << status.message;
  EXPECT_EQ(h.engine().quotas().usage(h.engine().quotas().QueueOf("a"))[0], 12'000);
  const PendingSnapshot snapshot = h.engine().SnapshotPending({}, false);
  ASSERT_EQ(snapshot.jobs.size(), 1u);
  EXPECT_EQ(snapshot.groups[snapshot.jobs[0].group].status.reasons.front(), PendingCode::kQuota);
}

// The start plan follows the queues' books as it follows capacity: a job waits for its queue
// even where devices free earlier, and the jobs planned before it count against its queues.
TEST(QuotaScenario, ExpectedStartsWaitForTheQueueNotOnlyForDevices) {
  TwoNodes t;
  Harness h(t.cluster, WithQueues(R"(queues:
  - {name: a, guaranteed: {devices: 8}, borrowing_limit: {devices: 0}}
  - {name: b, guaranteed: {devices: 8}}
)",
                                  false));
  const JobId a1 = h.Submit(Of("a", MakeJob(1, 8, 1000)));
  const JobId b1 = h.Submit(Of("b", MakeJob(1, 8, 500)));
  const JobId a2 = h.Submit(Of("a", MakeJob(1, 4, 600)));  // Devices free at 500, a at 1000.
  const JobId a3 = h.Submit(Of("a", MakeJob(1, 8, 600)));  // a is full again until 1600.
  const JobId b2 = h.Submit(Of("b", MakeJob(1, 4, 600)));  // b and the devices free at 500.
  h.Step(0);
  ASSERT_EQ(h.engine().state(a1), JobState::kRunning);
  ASSERT_EQ(h.engine().state(b1), JobState::kRunning);
  const auto& starts = h.engine().ExpectedStarts();
  ASSERT_TRUE(starts.contains(a2.value()));
  EXPECT_EQ(starts.at(a2.value()), SecondsToUs(1000));
  ASSERT_TRUE(starts.contains(a3.value()));
  EXPECT_EQ(starts.at(a3.value()), SecondsToUs(1600));
  ASSERT_TRUE(starts.contains(b2.value()));
  EXPECT_EQ(starts.at(b2.value()), SecondsToUs(500));
  EXPECT_EQ(h.engine().Explain(a2).expected_start_us, SecondsToUs(1000));
}

TEST(QuotaScenario, IdleGuaranteeIsLentAndReclaimedByPreemptingBorrowedWorkOnly) {
  TwoNodes t;
  Harness h(t.cluster, WithQueues(kEven, true));
  // b fills the cluster (8 of it borrowed from a), at a high priority.
  const JobId b1 = h.Submit(Of("b", MakeJob(1, 4, 36000), 10));
  const JobId b2 = h.Submit(Of("b", MakeJob(1, 4, 36000), 10));
  const JobId b3 = h.Submit(Of("b", MakeJob(1, 8, 36000), 10));
  h.Step(0);
  ASSERT_EQ(h.engine().running_count(), 3u);
  // a asks for 8, within its guarantee, at a low priority: it takes back what b borrows.
  const JobId a = h.Submit(Of("a", MakeJob(1, 8, 3600), 0));
  const Decisions decisions = h.Step(600);
  EXPECT_EQ(h.engine().state(a), JobState::kRunning);
  const std::vector<JobId> victims = Victims(decisions);
  ASSERT_FALSE(victims.empty());
  for (const PreemptJob& preemption : decisions.preemptions) {
    EXPECT_EQ(preemption.preemptor, a);
    EXPECT_EQ(preemption.reason, PreemptReason::kReclaim);
  }
  // Never below b's guarantee: b keeps 8 running.
  EXPECT_EQ(h.engine().quotas().usage(h.engine().quotas().QueueOf("b"))[0], 8'000);
  // The victims are b's jobs on the node a went to.
  const std::vector<std::string> a_nodes = h.NodesOf(a);
  ASSERT_EQ(a_nodes.size(), 1u);
  if (a_nodes[0] == h.NodesOf(b3).front()) {
    EXPECT_EQ(victims, std::vector<JobId>{b3});
  } else {
    EXPECT_EQ(victims.size(), 2u);
    EXPECT_EQ(h.engine().state(b1), JobState::kPending);
    EXPECT_EQ(h.engine().state(b2), JobState::kPending);
  }
  // The requeued work waits with b at its guarantee; nothing more is reclaimed from a.
  const Decisions after = h.Step(1200);
  EXPECT_TRUE(after.preemptions.empty());
}

TEST(QuotaScenario, AReclaimWaitsItsHysteresisAndNoLonger) {
  TwoNodes t;
  PolicyConfig policy = WithQueues(kEven, true);
  policy.preemption.reclaim_after_us = 900 * kUsPerSecond;
  Harness h(t.cluster, policy);
  h.Submit(Of("b", MakeJob(1, 8, 36000), 10));
  h.Submit(Of("b", MakeJob(1, 8, 36000), 10));  // 8 of it borrowed from a.
  h.Step(0);
  model::Job job = Of("a", MakeJob(1, 8, 3600), 0);
  job.submit_time_us = SecondsToUs(600);
  const JobId a = h.Submit(job);
  // Within its guarantee, but it has waited less than 900 s: nothing is taken back yet, and
  // the engine asks to be woken when it has.
  EXPECT_TRUE(h.Step(600).preemptions.empty());
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(1500));
  EXPECT_TRUE(h.Step(1499).preemptions.empty());
  EXPECT_EQ(h.engine().state(a), JobState::kPending);
  const Decisions decisions = h.Step(1500);
  EXPECT_EQ(decisions.preemptions.size(), 1u);
  EXPECT_EQ(h.engine().state(a), JobState::kRunning);
}

// A job an earlier engine requeued arrives with when that was (model::Job::pending_since_us,
// which the daemon carries across rebuilds): the hysteresis counts from the requeue, not from
// its submission long before.
TEST(QuotaScenario, TheHysteresisCountsFromARequeueBeforeThisEngine) {
  TwoNodes t;
  PolicyConfig policy = WithQueues(kEven, true);
  policy.preemption.reclaim_after_us = 900 * kUsPerSecond;
  Harness h(t.cluster, policy);
  h.Submit(Of("b", MakeJob(1, 8, 36000), 10));
  h.Submit(Of("b", MakeJob(1, 8, 36000), 10));  // 8 of it borrowed from a.
  h.Step(0);
  model::Job job = Of("a", MakeJob(1, 8, 3600), 0);
  job.pending_since_us = SecondsToUs(600);  // Submitted at 0, requeued at 600.
  const JobId a = h.Submit(job);
  EXPECT_TRUE(h.Step(1000).preemptions.empty());
  EXPECT_EQ(h.engine().pending_since_us(a), SecondsToUs(600));
  EXPECT_EQ(h.engine().NextWakeupUs(), SecondsToUs(1500));
  EXPECT_EQ(h.Step(1500).preemptions.size(), 1u);
  EXPECT_EQ(h.engine().state(a), JobState::kRunning);
  EXPECT_EQ(h.engine().pending_since_us(a), 0);  // Not pending.
}

TEST(QuotaScenario, WithoutPreemptionTheOwnerWaitsForBorrowedWorkToEnd) {
  TwoNodes t;
  Harness h(t.cluster, WithQueues(kEven, false));
  const JobId b1 = h.Submit(Of("b", MakeJob(2, 8, 3600)));
  h.Step(0);
  ASSERT_EQ(h.engine().state(b1), JobState::kRunning);
  const JobId a = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  const Decisions decisions = h.Step(60);
  EXPECT_TRUE(decisions.preemptions.empty());
  EXPECT_EQ(h.engine().state(a), JobState::kPending);
  EXPECT_EQ(h.engine().Explain(a).reasons.front(), PendingCode::kQuota);
  EXPECT_NE(h.engine().Explain(a).message.find("The queues hold 16 devices of the cluster's 16"),
            std::string::npos);
  h.Finish(b1);
  h.Step(3600);
  EXPECT_EQ(h.engine().state(a), JobState::kRunning);
}

TEST(QuotaScenario, PriorityPreemptsInsideAQueueButNeverTakesAnotherQueuesGuarantee) {
  TwoNodes t;
  Harness h(t.cluster, WithQueues(kEven, true));
  const JobId a_low = h.Submit(Of("a", MakeJob(1, 8, 36000), 0));
  const JobId b_low = h.Submit(Of("b", MakeJob(1, 8, 36000), 0));
  h.Step(0);
  ASSERT_EQ(h.engine().running_count(), 2u);
  // b's job is of lower priority, but b is within its guarantee: a's urgent job takes a's own.
  const JobId a_high = h.Submit(Of("a", MakeJob(1, 8, 3600), 10));
  const Decisions decisions = h.Step(600);
  EXPECT_EQ(Victims(decisions), std::vector<JobId>{a_low});
  EXPECT_EQ(decisions.preemptions[0].reason, PreemptReason::kPriority);
  EXPECT_EQ(h.engine().state(a_high), JobState::kRunning);
  EXPECT_EQ(h.engine().state(b_low), JobState::kRunning);
  // A second job as urgent finds nothing of a's own lower: it waits, b untouched.
  const JobId a_more = h.Submit(Of("a", MakeJob(1, 8, 3600), 10));
  const Decisions later = h.Step(1200);
  EXPECT_TRUE(later.preemptions.empty());
  EXPECT_EQ(h.engine().state(a_more), JobState::kPending);
  EXPECT_EQ(h.engine().state(b_low), JobState::kRunning);
}

// Kubernetes' default preemption knows no queues (PreemptionScope::kCluster): priority takes
// from any queue, whatever guarantee the victim runs on.
TEST(QuotaScenario, ClusterScopePreemptsLowerPriorityWorkOfAnyQueue) {
  TwoNodes t;
  PolicyConfig policy = WithQueues(kEven, true);
  policy.preemption.scope = PreemptionScope::kCluster;
  policy.victim_selector = "lowest_priority_newest";
  Harness h(t.cluster, policy);
  const JobId a_low = h.Submit(Of("a", MakeJob(1, 8, 36000), 0));
  h.Step(0);
  const JobId b_low = h.Submit(Of("b", MakeJob(1, 8, 36000), 0));
  h.Step(100);
  ASSERT_EQ(h.engine().running_count(), 2u);
  // Both are of priority 0: the one that started last goes, though it is b's, within its
  // guarantee (by queue, a_low would go: QuotaScenario.PriorityPreemptsInsideAQueue…).
  const JobId a_high = h.Submit(Of("a", MakeJob(1, 8, 3600), 10));
  const Decisions decisions = h.Step(600);
  EXPECT_EQ(Victims(decisions), std::vector<JobId>{b_low});
  EXPECT_EQ(h.engine().state(a_high), JobState::kRunning);
  EXPECT_EQ(h.engine().state(a_low), JobState::kRunning);
  EXPECT_EQ(h.engine().quotas().usage(h.engine().quotas().QueueOf("a"))[0], 16'000);
  // b's job, back in the queue and within b's guarantee, reclaims nothing: no reclaim here.
  const Decisions later = h.Step(1200);
  EXPECT_TRUE(later.preemptions.empty());
  EXPECT_EQ(h.engine().state(b_low), JobState::kPending);
}

TEST(QuotaScenario, WhatAQueueDoesNotLendStaysIdleForItAndItStartsAtOnce) {
  TwoNodes t;
  Harness h(t.cluster, WithQueues(R"(queues:
  - {name: a, guaranteed: {devices: 8}}
  - {name: b, guaranteed: {devices: 8}, lending_limit: {devices: 0}}
)",
                                  false));
  const JobId a1 = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  const JobId a2 = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  h.Step(0);
  EXPECT_EQ(h.engine().state(a1), JobState::kRunning);
  EXPECT_EQ(h.engine().state(a2), JobState::kPending);
  EXPECT_EQ(h.engine().Explain(a2).reasons.front(), PendingCode::kQuota);
  const JobId b = h.Submit(Of("b", MakeJob(1, 8, 3600)));
  h.Step(10);
  EXPECT_EQ(h.engine().state(b), JobState::kRunning);
}

}  // namespace
}  // namespace headroom::engine
