#include "engine/engine.h"

#include <gtest/gtest.h>

#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::MakeCluster;
using testing::MakeJob;

model::Cluster TwoRacksOfTwo() {
  return MakeCluster({{"r0", {{"n0"}, {"n1"}}}, {"r1", {{"n2"}, {"n3"}}}});
}

TEST(EngineScenario, GangGoesToTheRackThatHoldsItWhole) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "headroom");
  const JobId small = h.Submit(MakeJob(1, 4, 1000));
  h.Step(0);
  EXPECT_EQ(h.NodesOf(small), std::vector<std::string>{"n0"});
  const JobId gang = h.Submit(MakeJob(2, 8, 100));
  h.Step(1);
  EXPECT_EQ(h.NodesOf(gang), (std::vector<std::string>{"n2", "n3"}));
}

// The engine's job states are the API's (model::JobState): a job ends completed, failed or
// cancelled, and a failed job's devices are free again as a completed one's are.
TEST(EngineScenario, JobsEndCompletedFailedOrCancelled) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, testing::InArrivalOrder("headroom"));
  const JobId done = h.Submit(MakeJob(1, 4, 1000));
  const JobId broken = h.Submit(MakeJob(1, 4, 1000));
  const JobId queued = h.Submit(MakeJob(4, 8, 1000));  // Needs all four nodes whole: waits.
  h.Step(0);
  EXPECT_EQ(h.engine().state(done), JobState::kRunning);
  EXPECT_EQ(h.engine().state(queued), JobState::kPending);
  EXPECT_FALSE(h.engine().state(JobId(99)).has_value());
  h.Finish(done);
  h.Finish(broken, /*failed=*/true);
  h.Step(1);
  EXPECT_EQ(h.engine().state(done), JobState::kCompleted);
  EXPECT_EQ(h.engine().state(broken), JobState::kFailed);
  EXPECT_EQ(h.engine().state(queued), JobState::kRunning);  // On the devices both freed.
  const JobId withdrawn = h.Submit(MakeJob(1, 4, 1000));
  h.Step(2);
  EXPECT_EQ(h.engine().state(withdrawn), JobState::kPending);  // Every device is taken.
  h.Cancel(withdrawn);
  h.Step(3);
  EXPECT_EQ(h.engine().state(withdrawn), JobState::kCancelled);
}

TEST(EngineScenario, BestFitFillsThePartlyUsedNode) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "headroom");
  const JobId first = h.Submit(MakeJob(1, 4, 1000));
  h.Step(0);
  const JobId second = h.Submit(MakeJob(1, 4, 1000));
  const JobId third = h.Submit(MakeJob(1, 2, 1000));
  h.Step(1);
  EXPECT_EQ(h.NodesOf(first), std::vector<std::string>{"n0"});
  EXPECT_EQ(h.NodesOf(second), std::vector<std::string>{"n0"});
  // n0 is full: the 2-device job breaks into one node, not one per rack.
  EXPECT_EQ(h.NodesOf(third), std::vector<std::string>{"n1"});
}

TEST(EngineScenario, SpreadPutsEachTaskOnTheEmptiestNode) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "spread");
  const JobId a = h.Submit(MakeJob(1, 1, 1000));
  const JobId b = h.Submit(MakeJob(1, 1, 1000));
  const JobId c = h.Submit(MakeJob(2, 1, 1000));
  h.Step(0);
  EXPECT_EQ(h.NodesOf(a), std::vector<std::string>{"n0"});
  EXPECT_EQ(h.NodesOf(b), std::vector<std::string>{"n1"});
  EXPECT_EQ(h.NodesOf(c), (std::vector<std::string>{"n2", "n3"}));
}

// A service's replicas (one spread group) alternate racks where training jobs of the same shape
// pack into one; a replica that replaces an ended one goes where its group is thinnest.
TEST(EngineScenario, ReplicasOfAServiceSpreadAcrossRacks) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, testing::InArrivalOrder("headroom"));
  std::vector<JobId> replicas;
  std::vector<JobId> jobs;
  for (int i = 0; i < 4; ++i) {
    model::Job replica = MakeJob(1, 4, 1000);
    replica.spread_group = "service/web";
    replicas.push_back(h.Submit(replica));
  }
  h.Step(0);
  const std::vector<std::vector<std::string>> spread = {{"n0"}, {"n2"}, {"n0"}, {"n2"}};
  for (size_t i = 0; i < replicas.size(); ++i) EXPECT_EQ(h.NodesOf(replicas[i]), spread[i]) << i;
  h.Finish(replicas[0]);
  model::Job replacement = MakeJob(1, 4, 1000);
  replacement.spread_group = "service/web";
  const JobId replaced = h.Submit(replacement);
  // Another service's replica counts only its own group: an empty node of r0 (racks tie).
  model::Job other = MakeJob(1, 4, 1000);
  other.spread_group = "service/api";
  const JobId other_group = h.Submit(other);
  h.Step(1);
  EXPECT_EQ(h.NodesOf(replaced), std::vector<std::string>{"n0"});  // r0 holds one, r1 two.
  EXPECT_EQ(h.NodesOf(other_group), std::vector<std::string>{"n1"});

  Harness packed(cluster, testing::InArrivalOrder("headroom"));
  for (int i = 0; i < 4; ++i) jobs.push_back(packed.Submit(MakeJob(1, 4, 1000)));
  packed.Step(0);
  const std::vector<std::vector<std::string>> pack = {{"n0"}, {"n0"}, {"n1"}, {"n1"}};
  for (size_t i = 0; i < jobs.size(); ++i) EXPECT_EQ(packed.NodesOf(jobs[i]), pack[i]) << i;
}

TEST(EngineScenario, FifoIsFirstFitAndBlocksBehindTheHead) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "fifo");
  const JobId a = h.Submit(MakeJob(1, 6, 100));
  const JobId b = h.Submit(MakeJob(1, 2, 100));
  const JobId big = h.Submit(MakeJob(4, 8, 100));
  const JobId after = h.Submit(MakeJob(1, 1, 100));
  h.Step(0);
  EXPECT_EQ(h.NodesOf(a), std::vector<std::string>{"n0"});
  EXPECT_EQ(h.NodesOf(b), std::vector<std::string>{"n0"});
  EXPECT_EQ(h.engine().state(big), JobState::kPending);
  EXPECT_EQ(h.engine().state(after), JobState::kPending);
  const PendingStatus head = h.engine().Explain(big);
  ASSERT_FALSE(head.reasons.empty());
  EXPECT_EQ(head.reasons.front(), PendingCode::kCapacity);
  EXPECT_EQ(head.queue_position, 1u);
  const PendingStatus behind = h.engine().Explain(after);
  ASSERT_FALSE(behind.reasons.empty());
  EXPECT_EQ(behind.reasons.front(), PendingCode::kPriority);
  EXPECT_EQ(behind.queue_position, 2u);
}

TEST(EngineScenario, EasyBackfillReservesTheHeadAndFillsAroundIt) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h(cluster, testing::InArrivalOrder(testing::HeadroomWithReservations()));
  const JobId j1 = h.Submit(MakeJob(1, 8, 100));
  const JobId j2 = h.Submit(MakeJob(1, 4, 200));
  const JobId head = h.Submit(MakeJob(2, 8, 50));
  const JobId too_long = h.Submit(MakeJob(1, 4, 300));
  const JobId short_one = h.Submit(MakeJob(1, 4, 150));
  const Decisions decisions = h.Step(0);
  ASSERT_EQ(decisions.starts.size(), 3u);
  EXPECT_EQ(h.NodesOf(j1), std::vector<std::string>{"n0"});
  EXPECT_EQ(h.NodesOf(j2), std::vector<std::string>{"n1"});
  EXPECT_EQ(h.NodesOf(short_one), std::vector<std::string>{"n1"});

  const PendingStatus reserved = h.engine().Explain(head);
  EXPECT_EQ(reserved.expected_start_us, SecondsToUs(200));
  // When it was looked at, it fit only on devices held for the head; since then the short job
  // took them, so capacity is short too. Both are reported.
  const PendingStatus held = h.engine().Explain(too_long);
  EXPECT_EQ(held.reasons,
            (std::vector<PendingCode>{PendingCode::kCapacity, PendingCode::kReservation}));

  h.Finish(j1);
  h.Step(100);
  EXPECT_EQ(h.engine().state(head), JobState::kPending);
  EXPECT_EQ(h.engine().state(too_long), JobState::kPending);
  h.Finish(short_one);
  h.Step(150);
  h.Finish(j2);
  h.Step(200);
  EXPECT_EQ(h.engine().state(head), JobState::kRunning);
  EXPECT_EQ(h.NodesOf(head), (std::vector<std::string>{"n0", "n1"}));
}

TEST(EngineScenario, AReservationWaitsUntilTheHeadHasWaitedReserveAfter) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  PolicyConfig policy = testing::InArrivalOrder(testing::HeadroomWithReservations());
  policy.reserve_after_us = SecondsToUs(100);
  Harness h(cluster, policy);
  const JobId j1 = h.Submit(MakeJob(1, 8, 100));
  const JobId j2 = h.Submit(MakeJob(1, 4, 200));
  const JobId head = h.Submit(MakeJob(2, 8, 50));
  const JobId too_long = h.Submit(MakeJob(1, 4, 300));
  const JobId short_one = h.Submit(MakeJob(1, 4, 150));
  // The head has not waited 100 s: nothing is held for it, and the job that EASY would keep off
  // n1 (it ends after the head could start) starts there.
  ASSERT_EQ(h.Step(0).starts.size(), 3u);
  EXPECT_EQ(h.NodesOf(too_long), std::vector<std::string>{"n1"});
  EXPECT_EQ(h.engine().state(short_one), JobState::kPending);

  // Now it has: it is reserved for when too_long ends, and only work that ends by then starts.
  h.Finish(j1);
  h.Step(100);
  EXPECT_EQ(h.engine().Explain(head).expected_start_us, SecondsToUs(300));
  EXPECT_EQ(h.NodesOf(short_one), std::vector<std::string>{"n0"});
  const JobId late = h.Submit(MakeJob(1, 4, 1000));
  h.Step(101);
  EXPECT_EQ(h.engine().state(late), JobState::kPending);
  h.Finish(j2);
  h.Step(200);
  h.Finish(short_one);
  h.Step(250);
  h.Finish(too_long);
  h.Step(300);
  EXPECT_EQ(h.NodesOf(head), (std::vector<std::string>{"n0", "n1"}));
}

TEST(EngineScenario, ALargerFairShareGoesFirstAtEqualUsage) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0", 4}}}});
  auto run = [&](std::map<std::string, double> shares) {
    PolicyConfig policy =
        testing::HeadroomWithReservations();  // Fair share outweighs every other factor.
    policy.multifactor.tenant_shares = std::move(shares);
    Harness h(cluster, policy);
    auto of = [](std::string tenant) {
      model::Job job = MakeJob(1, 4, 100);
      job.tenant = std::move(tenant);
      return job;
    };
    const JobId a = h.Submit(of("a"));
    h.Step(0);
    h.Finish(a);
    const JobId b = h.Submit(of("b"));
    h.Step(100);
    h.Finish(b);
    const JobId next_a = h.Submit(of("a"));
    const JobId next_b = h.Submit(of("b"));
    const Decisions decisions = h.Step(200);
    EXPECT_EQ(decisions.starts.size(), 1u);
    const auto tenants = h.engine().TenantFairShares();
    EXPECT_EQ(tenants.size(), 2u);
    for (const Engine::TenantFairShare& tenant : tenants) {
      EXPECT_NEAR(tenant.usage_device_s, 400, 1) << tenant.tenant;  // 4 devices for 100 s.
    }
    const JobId first = decisions.starts.empty() ? JobId() : decisions.starts.front().job;
    return std::pair{first == next_a   ? "a"
                     : first == next_b ? "b"
                                       : "none",
                     tenants.empty() ? 0.0 : tenants.back().share};  // b's.
  };
  // Equal shares: a's usage is the older, so the more decayed; a goes first.
  const auto [equal_first, equal_b_share] = run({});
  EXPECT_STREQ(equal_first, "a");
  EXPECT_DOUBLE_EQ(equal_b_share, 0.5);
  // b's share three times a's: b goes first.
  const auto [weighted_first, weighted_b_share] = run({{"b", 3}});
  EXPECT_STREQ(weighted_first, "b");
  EXPECT_DOUBLE_EQ(weighted_b_share, 0.75);
}

TEST(EngineScenario, JobsThatCanNeverFitAreUnschedulableAndDoNotBlock) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}, {"n2"}}}});
  Harness h(cluster, "fifo");
  const JobId wrong_model = h.Submit(MakeJob(1, 1, 10, "model == \"A100\""));
  const JobId too_big = h.Submit(MakeJob(4, 8, 10));
  const JobId too_wide = h.Submit(MakeJob(1, 16, 10));
  const JobId fine = h.Submit(MakeJob(1, 8, 10, "model == \"H100\""));
  h.Step(0);
  for (JobId id : {wrong_model, too_big, too_wide}) {
    const PendingStatus status = h.engine().Explain(id);
    ASSERT_FALSE(status.reasons.empty());
    EXPECT_EQ(status.reasons.front(), PendingCode::kUnschedulable) << status.message;
  }
  EXPECT_EQ(h.engine().state(fine), JobState::kRunning);
}

TEST(EngineScenario, FragmentedFreeDevicesAreReportedAsTopology) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, testing::InArrivalOrder("headroom"));
  for (int i = 0; i < 4; ++i) h.Submit(MakeJob(1, 5, 1000));
  const JobId whole_node = h.Submit(MakeJob(1, 8, 10));
  h.Step(0);
  EXPECT_EQ(h.engine().state(whole_node), JobState::kPending);
  const PendingStatus status = h.engine().Explain(whole_node);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kTopology);
  // 12 devices free, on nodes that cannot take an 8-device task: all of them fragmented.
  EXPECT_EQ(h.engine().FragmentedMilli(), 12'000u);
}

TEST(EngineScenario, DrainedNodesTakeNoNewWork) {
  const model::Cluster cluster = TwoRacksOfTwo();
  Harness h(cluster, "fifo");
  h.Drain("n0");
  const JobId job = h.Submit(MakeJob(1, 8, 10));
  h.Step(0);
  EXPECT_EQ(h.NodesOf(job), std::vector<std::string>{"n1"});
}

// The node scorers' best fit for shares of a device (the headroom preset places them by share
// scoring instead: tests/engine/share_placement_test.cc).
TEST(EngineScenario, SharesOfOneDevicePackBestFit) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0", 2}}}});
  PolicyConfig policy = testing::Preset("headroom");
  policy.share.scorer.clear();
  Harness h(cluster, policy);
  model::Job half = MakeJob(1, 1, 100);
  half.task.milli_per_device = 500;
  model::Job quarter = half;
  quarter.task.milli_per_device = 250;
  const JobId a = h.Submit(half);
  const JobId b = h.Submit(quarter);
  const JobId c = h.Submit(half);
  h.Step(0);
  const auto* ta = h.engine().allocations(a);
  const auto* tb = h.engine().allocations(b);
  const auto* tc = h.engine().allocations(c);
  ASSERT_TRUE(ta && tb && tc);
  EXPECT_EQ(ta->at(0).devices, tb->at(0).devices);  // The quarter fills the half-used device.
  EXPECT_NE(ta->at(0).devices, tc->at(0).devices);  // 250 left there: the next half goes on.
  EXPECT_EQ(h.engine().cluster_state().allocated_milli(), 1250u);
}

TEST(EngineScenario, CpuLimitsKeepWorkOffANode) {
  const model::Cluster cluster =
      MakeCluster({{"r0", {{"small", 8, "H100", 1000}, {"large", 8, "H100", 64000}}}});
  Harness h(cluster, "fifo");
  const JobId job = h.Submit(MakeJob(1, 1, 10, "", 2000));
  h.Step(0);
  EXPECT_EQ(h.NodesOf(job), std::vector<std::string>{"large"});
}

TEST(EngineScenario, CpuOrMemoryShortfallIsNamed) {
  const model::Cluster cluster =
      MakeCluster({{"r0", {{"small", 8, "H100", 1000}, {"large", 8, "H100", 64000}}}});
  Harness h(cluster, "fifo");
  const JobId filler = h.Submit(MakeJob(1, 8, 100, "", 2000));
  const JobId needs_cpu = h.Submit(MakeJob(1, 1, 10, "", 2000));
  h.Step(0);
  // Only "small" has free devices now, and it has 1000 mCPU.
  EXPECT_EQ(h.NodesOf(filler), std::vector<std::string>{"large"});
  const PendingStatus status = h.engine().Explain(needs_cpu);
  EXPECT_EQ(status.reasons, std::vector<PendingCode>{PendingCode::kCpuMemory}) << status.message;
}

TEST(EngineScenario, CancelledJobsLeaveTheQueueAndReleaseCapacity) {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}}}});
  Harness h(cluster, "fifo");
  const JobId running = h.Submit(MakeJob(1, 8, 100));
  const JobId waiting = h.Submit(MakeJob(1, 8, 100));
  h.Step(0);
  EXPECT_EQ(h.engine().pending_count(), 1u);
  std::vector<Event> cancel = {JobCancelled{running}};
  h.engine().Step(cancel, SecondsToUs(1));
  EXPECT_EQ(h.engine().state(running), JobState::kCancelled);
  EXPECT_EQ(h.engine().state(waiting), JobState::kRunning);
  EXPECT_EQ(h.engine().CheckInvariants(), "");
}

}  // namespace
}  // namespace headroom::engine
