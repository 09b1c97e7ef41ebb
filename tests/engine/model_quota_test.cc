// Quotas by device model in the engine (quota_config.h, engine_model_quota.cc): exact scenarios
// on a floor of two H100 nodes, one A100 node and one L40S node, 8 devices each — a job runs on
// one model's devices, within its queues' guarantees first, then on models without quotas, then
// borrowing; a model's limit holds a job with its reason; reclaim takes back only what is
// borrowed of the model it wants; a job that only fits where its queues never admit it says so.
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

struct MixedFloor {
  const model::Cluster cluster = MakeCluster(
      {{"r0", {{"h0", 8, "H100"}, {"h1", 8, "H100"}, {"a0", 8, "A100"}, {"l0", 8, "L40S"}}}});
};

int64_t ModelUsage(const Engine& engine, std::string_view queue, std::string_view model) {
  const QuotaTree& tree = engine.quotas();
  const size_t slot = tree.DeviceModelSlot(model);
  EXPECT_LT(slot, kQuotaResources) << model;
  return tree.usage(tree.QueueOf(queue))[slot];
}

constexpr std::string_view kModels = R"(queues:
  - name: a
    guaranteed: {device_models: {H100: 8, A100: 8}}
    borrowing_limit: {device_models: {H100: 0}}
  - name: b
    guaranteed: {device_models: {H100: 8}}
)";

TEST(ModelQuotaScenario, AJobRunsOnOneModelWithinItsGuaranteeFirstThenWithoutQuota) {
  MixedFloor f;
  Harness h(f.cluster, WithQueues(kModels, false));
  const JobId a1 = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  const JobId a2 = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  const JobId a3 = h.Submit(Of("a", MakeJob(1, 8, 3600)));
  const JobId b1 = h.Submit(Of("b", MakeJob(1, 8, 3600)));
  h.Step(0);
  // Within a's guarantees: its A100s and its H100s (models in name order); then, its H100
  // limit reached and the A100s all taken, the L40S that no quota counts.
  EXPECT_EQ(h.NodesOf(a1), std::vector<std::string>{"a0"});
  EXPECT_EQ(h.NodesOf(a2).size(), 1u);
  EXPECT_EQ(h.NodesOf(a2).front().front(), 'h');
  EXPECT_EQ(h.NodesOf(a3), std::vector<std::string>{"l0"});
  EXPECT_EQ(h.engine().state(b1), JobState::kRunning);
  EXPECT_EQ(ModelUsage(h.engine(), "a", "H100"), 8'000);
  EXPECT_EQ(ModelUsage(h.engine(), "a", "A100"), 8'000);
  EXPECT_EQ(ModelUsage(h.engine(), "b", "H100"), 8'000);
  // Every device counts as a device too.
  EXPECT_EQ(h.engine().quotas().usage(h.engine().quotas().QueueOf("a"))[0], 24'000);
  EXPECT_EQ(h.engine().CheckInvariants(), "");
}

TEST(ModelQuotaScenario, AModelsLimitHoldsAJobWithItsReasonWhileOtherModelsServeOthers) {
  MixedFloor f;
  Harness h(f.cluster, WithQueues(kModels, false));
  // a asks for H100s by name: 8 within its guarantee, none borrowed.
  const JobId first = h.Submit(Of("a", MakeJob(1, 8, 3600, "model == \"H100\"")));
  const JobId second = h.Submit(Of("a", MakeJob(1, 4, 3600, "model == \"H100\"")));
  const JobId any = h.Submit(Of("a", MakeJob(1, 4, 3600)));
  h.Step(0);
  EXPECT_EQ(h.engine().state(first), JobState::kRunning);
  EXPECT_EQ(h.engine().state(second), JobState::kPending);
  EXPECT_EQ(h.engine().state(any), JobState::kRunning);  // Held-up by nobody: on its A100s.
  EXPECT_EQ(h.NodesOf(any), std::vector<std::string>{"a0"});
  const PendingStatus status = h.engine().Explain(second);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kQuota);
  EXPECT_NE(status.message.find("Queue 'a' uses 8 H100 devices of the 8 H100 devices it may "
                                "(guaranteed 8 H100 devices + borrowing limit 0 H100 devices)"),
            std::string::npos)
      << status.message;
  // An H100 node stays idle for b, whose guarantee it is not; b's job takes it.
  const JobId b1 = h.Submit(Of("b", MakeJob(1, 8, 3600, "model == \"H100\"")));
  h.Step(10);
  EXPECT_EQ(h.engine().state(b1), JobState::kRunning);
}

TEST(ModelQuotaScenario, ReclaimTakesBackOnlyWhatIsBorrowedOfTheModelItWants) {
  MixedFloor f;
  Harness h(f.cluster, WithQueues(R"(queues:
  - {name: a, guaranteed: {device_models: {H100: 8, A100: 0}}}
  - {name: b, guaranteed: {device_models: {H100: 8, A100: 8}}}
)",
                                  true));
  // b holds both H100 nodes (one of them borrowed from a) and its own A100s, at a high
  // priority; a's L40S job is no quota's business.
  const JobId b_h1 = h.Submit(Of("b", MakeJob(1, 8, 36000, "model == \"H100\""), 10));
  const JobId b_h2 = h.Submit(Of("b", MakeJob(1, 8, 36000, "model == \"H100\""), 10));
  const JobId b_a = h.Submit(Of("b", MakeJob(1, 8, 36000, "model == \"A100\""), 10));
  h.Step(0);
  ASSERT_EQ(h.engine().running_count(), 3u);
  EXPECT_EQ(ModelUsage(h.engine(), "b", "H100"), 16'000);
  // a wants H100s, within its guarantee: it takes back the borrowed H100 node, and only that.
  const JobId a = h.Submit(Of("a", MakeJob(1, 8, 3600, "model == \"H100\""), 0));
  const Decisions decisions = h.Step(600);
  EXPECT_EQ(h.engine().state(a), JobState::kRunning);
  const std::vector<JobId> victims = Victims(decisions);
  ASSERT_EQ(victims.size(), 1u);
  EXPECT_TRUE(victims[0] == b_h1 || victims[0] == b_h2);
  EXPECT_EQ(decisions.preemptions[0].reason, PreemptReason::kReclaim);
  EXPECT_EQ(h.engine().state(b_a), JobState::kRunning);
  EXPECT_EQ(ModelUsage(h.engine(), "b", "H100"), 8'000);  // Never below b's guarantee.
  EXPECT_EQ(ModelUsage(h.engine(), "a", "H100"), 8'000);
  EXPECT_EQ(h.engine().CheckInvariants(), "");
}

TEST(ModelQuotaScenario, BorrowingOneModelLeavesAQueuesOtherModelsWorkAlone) {
  MixedFloor f;
  Harness h(f.cluster, WithQueues(R"(queues:
  - {name: a, guaranteed: {device_models: {H100: 16, A100: 8}}}
  - {name: b, guaranteed: {device_models: {H100: 0, A100: 0}}}
)",
                                  true));
  // b borrows a's idle A100s and H100s.
  const JobId b_a = h.Submit(Of("b", MakeJob(1, 8, 36000, "model == \"A100\""), 10));
  const JobId b_h = h.Submit(Of("b", MakeJob(1, 8, 36000, "model == \"H100\""), 10));
  const JobId a_h = h.Submit(Of("a", MakeJob(1, 8, 36000, "model == \"H100\""), 10));
  h.Step(0);
  ASSERT_EQ(h.engine().running_count(), 3u);
  // a wants the A100s back: b's A100 job goes, its H100 job (borrowed too, but of no use to
  // an A100 job) stays.
  const JobId a_a = h.Submit(Of("a", MakeJob(1, 8, 3600, "model == \"A100\"")));
  const Decisions decisions = h.Step(600);
  EXPECT_EQ(Victims(decisions), std::vector<JobId>{b_a});
  EXPECT_EQ(h.engine().state(a_a), JobState::kRunning);
  EXPECT_EQ(h.engine().state(b_h), JobState::kRunning);
  EXPECT_EQ(h.engine().state(a_h), JobState::kRunning);
  const QuotaTree& tree = h.engine().quotas();
  const QuotaAmounts wanted_h100 = [&] {
    QuotaAmounts demand{};
    demand[tree.DeviceModelSlot("H100")] = 8'000;
    return demand;
  }();
  const QuotaAmounts wanted_a100 = [&] {
    QuotaAmounts demand{};
    demand[tree.DeviceModelSlot("A100")] = 8'000;
    return demand;
  }();
  EXPECT_TRUE(tree.Borrowing(tree.QueueOf("b"), tree.QueueOf("a"), wanted_h100));
  EXPECT_FALSE(tree.Borrowing(tree.QueueOf("b"), tree.QueueOf("a"), wanted_a100));
}

TEST(ModelQuotaScenario, AJobThatFitsOnlyWhereItsQueuesNeverAdmitItSaysSo) {
  const model::Cluster cluster =
      MakeCluster({{"r0", {{"h0", 8, "H100"}, {"h1", 8, "H100"}, {"a0", 8, "A100"}}}});
  Harness h(cluster, WithQueues(R"(queues:
  - {name: a, guaranteed: {device_models: {H100: 0}}, borrowing_limit: {device_models: {H100: 0}}}
  - {name: b, guaranteed: {device_models: {H100: 16}}}
)",
                                false));
  // Two 8-device tasks fit only on the two H100 nodes, where a may use none; the A100s, which
  // no quota counts, are one node. Across models a gang does not go.
  const JobId gang = h.Submit(Of("a", MakeJob(2, 8, 3600)));
  h.Step(0);
  EXPECT_EQ(h.engine().state(gang), JobState::kPending);
  const PendingStatus status = h.engine().Explain(gang);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kQuota);
  EXPECT_NE(status.message.find("H100"), std::string::npos) << status.message;
  // A gang that fits on no one model at all never fits.
  const JobId across = h.Submit(Of("b", MakeJob(3, 8, 3600, "model in [\"H100\", \"A100\"]")));
  h.Step(10);
  EXPECT_EQ(h.engine().Explain(across).reasons.front(), PendingCode::kUnschedulable);
}

// A job placed across models before the quotas came into force (restored into an engine with
// them) counts its devices but no model's, and the books balance.
TEST(ModelQuotaScenario, AJobRestoredAcrossModelsCountsAgainstNoModel) {
  MixedFloor f;
  Engine engine(f.cluster, WithQueues(kModels, false));
  model::Job job = Of("a", MakeJob(2, 8, 3600));
  std::vector<TaskAllocation> tasks;
  for (const model::Node& node : f.cluster.nodes()) {
    if (node.name != "h0" && node.name != "a0") continue;
    TaskAllocation task{.node = node.id};
    for (uint32_t d = 0; d < node.device_count; ++d)
      task.devices.emplace_back(node.first_device + d);
    tasks.push_back(std::move(task));
  }
  ASSERT_EQ(tasks.size(), 2u);
  std::vector<Event> events = {JobRestored{JobId(0), job, tasks, 0}};
  engine.Step(events, SecondsToUs(10));
  EXPECT_EQ(engine.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine.CheckInvariants(), "");
  const QuotaTree& tree = engine.quotas();
  EXPECT_EQ(tree.usage(tree.QueueOf("a"))[0], 16'000);
  EXPECT_EQ(ModelUsage(engine, "a", "H100"), 0);
  EXPECT_EQ(ModelUsage(engine, "a", "A100"), 0);
}

}  // namespace
}  // namespace headroom::engine
