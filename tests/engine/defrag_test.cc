// Defragmentation by migration (engine/defrag.h, engine_migrate.cc): exact scenarios on a
// fragmented two-node cluster — a migration that pays, one whose cost exceeds its gain, one the
// budget forbids — and the Defragmenter's budget window.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/defrag.h"
#include "engine/engine.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using testing::Harness;
using testing::InArrivalOrder;
using testing::MakeCluster;
using testing::MakeJob;

PolicyConfig WithMigration(PolicyConfig policy) {
  policy = InArrivalOrder(std::move(policy));
  policy.migration.enabled = true;
  policy.migration.checkpoint_us = 60 * kUsPerSecond;
  policy.migration.restart_us = 600 * kUsPerSecond;
  policy.migration.budget_device_s_per_hour = 8 * 3600;
  policy.migration.horizon_us = 3600 * kUsPerSecond;
  return policy;
}
PolicyConfig WithMigration(std::string_view preset) {
  return WithMigration(testing::Preset(preset));
}

// Two 8-device nodes in one rack, each half used by a 4-device job (b on n0, c on n1), with
// `runtime_s` left; then an 8-device job arrives that only a whole node takes.
struct Fragmented {
  const model::Cluster cluster = MakeCluster({{"r0", {{"n0"}, {"n1"}}}});
  Harness h;
  JobId b, c, gang;
  Decisions decisions;

  Fragmented(const PolicyConfig& policy, double runtime_s) : h(cluster, policy) {
    const JobId a = h.Submit(MakeJob(1, 4, runtime_s));
    b = h.Submit(MakeJob(1, 4, runtime_s));
    c = h.Submit(MakeJob(1, 4, runtime_s));
    h.Step(0);
    EXPECT_EQ(h.NodesOf(a), std::vector<std::string>{"n0"});
    EXPECT_EQ(h.NodesOf(b), std::vector<std::string>{"n0"});
    EXPECT_EQ(h.NodesOf(c), std::vector<std::string>{"n1"});
    h.Finish(a);
    h.Step(10);
    gang = h.Submit(MakeJob(1, 8, 3600));
    decisions = h.Step(20);
  }
};

TEST(DefragScenario, MovingOneSmallJobFreesAWholeNodeForTheBlockedGang) {
  for (std::string_view preset : {"headroom", "fifo", "slurm-like"}) {
    SCOPED_TRACE(preset);
    Fragmented f(WithMigration(preset), 36000);
    ASSERT_EQ(f.decisions.migrations.size(), 1u);
    const MigrateJob& move = f.decisions.migrations[0];
    EXPECT_EQ(move.job, f.b);
    ASSERT_EQ(move.tasks.size(), 1u);
    EXPECT_EQ(f.cluster.node(move.tasks[0].node).name, "n1");
    // c holds n1's devices 8-11; b takes the other four.
    EXPECT_EQ(move.tasks[0].devices,
              (std::vector<DeviceId>{DeviceId(12), DeviceId(13), DeviceId(14), DeviceId(15)}));
    EXPECT_EQ(move.pause_us, 660 * kUsPerSecond);
    EXPECT_EQ(move.cost_device_us, 4 * 660 * kUsPerSecond);
    ASSERT_EQ(f.decisions.starts.size(), 1u);
    EXPECT_EQ(f.decisions.starts[0].job, f.gang);
    EXPECT_EQ(f.h.NodesOf(f.gang), std::vector<std::string>{"n0"});
    EXPECT_EQ(f.h.NodesOf(f.b), std::vector<std::string>{"n1"});
    EXPECT_EQ(f.h.NodesOf(f.c), std::vector<std::string>{"n1"});
    EXPECT_EQ(f.h.engine().state(f.b), JobState::kRunning);
  }
}

TEST(DefragScenario, NoMigrationWithoutTheFlag) {
  PolicyConfig policy = InArrivalOrder("headroom");
  policy.migration.enabled = false;
  Fragmented f(policy, 36000);
  EXPECT_TRUE(f.decisions.migrations.empty());
  EXPECT_TRUE(f.h.NodesOf(f.gang).empty());
  const PendingStatus status = f.h.engine().Explain(f.gang);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kTopology);
}

// b and c end within 100 s: the EASY reservation says the gang waits ~90 s, a gain of
// 8 × 90 device-s, far below the 4 × 660 device-s a move costs.
TEST(DefragScenario, NoMigrationWhenCostExceedsGain) {
  // A reservation knows the wait: the gang starts in 100 s, and 100 s × 8 < 4 × 660.
  Fragmented f(WithMigration(testing::HeadroomWithReservations()), 100);
  EXPECT_TRUE(f.decisions.migrations.empty());
  EXPECT_TRUE(f.h.NodesOf(f.gang).empty());
  EXPECT_EQ(f.h.engine().Explain(f.gang).expected_start_us, 100 * kUsPerSecond);
  // Without a reservation the horizon stands in for the wait: 300 s × 8 < 4 × 660.
  PolicyConfig fifo = WithMigration("fifo");
  fifo.migration.horizon_us = 300 * kUsPerSecond;
  Fragmented g(fifo, 36000);
  EXPECT_TRUE(g.decisions.migrations.empty());
  EXPECT_TRUE(g.h.NodesOf(g.gang).empty());
}

TEST(DefragScenario, NoMigrationWhenTheBudgetIsSpent) {
  PolicyConfig policy = WithMigration("headroom");
  policy.migration.budget_device_s_per_hour = 4 * 660 - 1;  // One move costs 4 × 660.
  Fragmented f(policy, 36000);
  EXPECT_TRUE(f.decisions.migrations.empty());
  EXPECT_TRUE(f.h.NodesOf(f.gang).empty());
}

TEST(DefragScenario, NoMigrationWhenTheJobDoesNotFitEvenDefragmented) {
  Fragmented f(WithMigration("headroom"), 36000);
  // After the move all 16 devices are busy: a 12-device gang waits for capacity, which no
  // migration can help, so none is tried.
  const JobId big = f.h.Submit(MakeJob(2, 6, 100));
  const Decisions decisions = f.h.Step(30);
  EXPECT_TRUE(decisions.migrations.empty());
  EXPECT_TRUE(f.h.NodesOf(big).empty());
  const PendingStatus status = f.h.engine().Explain(big);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kCapacity);
}

TEST(DefragmenterTest, BudgetIsARollingHour) {
  MigrationConfig config;
  config.enabled = true;
  config.budget_device_s_per_hour = 100;
  Defragmenter defrag(config, *VictimSelectors().Make("cheapest_move"));
  EXPECT_EQ(defrag.budget().LeftDeviceUs(0), 100 * kUsPerSecond);
  defrag.budget().Charge(10 * kUsPerSecond, 60 * kUsPerSecond);
  EXPECT_EQ(defrag.budget().LeftDeviceUs(20 * kUsPerSecond), 40 * kUsPerSecond);
  defrag.budget().Charge(30 * kUsPerSecond, 40 * kUsPerSecond);
  EXPECT_EQ(defrag.budget().LeftDeviceUs(3609 * kUsPerSecond), 0);
  EXPECT_EQ(defrag.budget().LeftDeviceUs(3610 * kUsPerSecond), 60 * kUsPerSecond);
  EXPECT_EQ(defrag.budget().LeftDeviceUs(3630 * kUsPerSecond), 100 * kUsPerSecond);
}

TEST(DefragmenterTest, ValidationRejectsNegativeTimesAndZeroWork) {
  PolicyConfig policy = InArrivalOrder("headroom");
  policy.migration.enabled = true;
  policy.migration.restart_us = -1;
  EXPECT_FALSE(ValidatePolicy(policy).has_value());
  policy.migration.restart_us = 0;
  policy.migration.max_moves = 0;
  EXPECT_FALSE(ValidatePolicy(policy).has_value());
  policy.migration.max_moves = 1;
  policy.migration.budget_device_s_per_hour = -5;
  EXPECT_FALSE(ValidatePolicy(policy).has_value());
  policy.migration.budget_device_s_per_hour = 0;
  EXPECT_TRUE(ValidatePolicy(policy).has_value());
}

}  // namespace
}  // namespace headroom::engine
