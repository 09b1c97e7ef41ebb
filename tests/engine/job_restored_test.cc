// JobRestored: a running job re-created with its placement holds exactly that capacity, is
// finished like any running job, and blocks new work from the devices it holds.
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "engine/event.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::JobOf;
using testing::TinyCluster;

TaskAllocation Whole(uint32_t node, std::vector<uint32_t> devices) {
  TaskAllocation task;
  task.node = NodeId(node);
  for (uint32_t d : devices) task.devices.push_back(DeviceId(d));
  return task;
}

TEST(JobRestoredTest, HoldsItsPlacementUntilFinished) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}}).Build();
  auto policy = PresetPolicy("headroom");
  ASSERT_TRUE(policy.has_value());
  Engine engine(cluster, *policy);

  // A 2-task job restored on both nodes' first three devices, started at t=5 s.
  std::vector<Event> restore = {
      JobRestored{JobId(0), JobOf(2, 3), {Whole(0, {0, 1, 2}), Whole(1, {4, 5, 6})}, 5'000'000}};
  Decisions decisions = engine.Step(restore, 10'000'000);
  EXPECT_TRUE(decisions.starts.empty());
  EXPECT_EQ(engine.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine.running_count(), 1u);
  EXPECT_EQ(engine.cluster_state().allocated_milli(), 6000u);
  ASSERT_NE(engine.allocations(JobId(0)), nullptr);
  EXPECT_EQ(engine.allocations(JobId(0))->at(1).devices.front(), DeviceId(4));
  EXPECT_EQ(engine.CheckInvariants(), "");

  // Only one device is free per node: a 2-device job waits, a 1-device job runs on a free one.
  std::vector<Event> submit = {JobSubmitted{JobId(1), JobOf(1, 2)},
                               JobSubmitted{JobId(2), JobOf(1, 1)}};
  decisions = engine.Step(submit, 11'000'000);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].job, JobId(2));
  const DeviceId used = decisions.starts[0].tasks[0].devices[0];
  EXPECT_TRUE(used == DeviceId(3) || used == DeviceId(7));
  EXPECT_EQ(engine.state(JobId(1)), JobState::kPending);

  // Finishing the restored job releases its devices: the waiting job starts.
  std::vector<Event> finish = {JobFinished{JobId(0)}};
  decisions = engine.Step(finish, 12'000'000);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].job, JobId(1));
  EXPECT_EQ(engine.state(JobId(0)), JobState::kCompleted);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(JobRestoredTest, SharesOfOneDeviceAddUp) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 1}}).Build();
  auto policy = PresetPolicy("headroom");
  ASSERT_TRUE(policy.has_value());
  Engine engine(cluster, *policy);
  TaskAllocation half = Whole(0, {0});
  half.milli_per_device = 500;
  model::Job share = testing::ShareJobOf(1, 500);
  std::vector<Event> restore = {JobRestored{JobId(0), share, {half}, 0},
                                JobRestored{JobId(1), share, {half}, 0}};
  engine.Step(restore, 1);
  EXPECT_EQ(engine.cluster_state().free_milli(DeviceId(0)), 0u);
  EXPECT_EQ(engine.running_count(), 2u);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(JobRestoredDeathTest, PlacementThatDoesNotFitIsABug) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}}).Build();
  auto policy = PresetPolicy("headroom");
  ASSERT_TRUE(policy.has_value());
  auto restore_overlapping = [&] {
    Engine engine(cluster, *policy);
    std::vector<Event> restore = {JobRestored{JobId(0), JobOf(1, 2), {Whole(0, {0, 1})}, 0},
                                  JobRestored{JobId(1), JobOf(1, 1), {Whole(0, {1})}, 0}};
    engine.Step(restore, 1);
  };
  EXPECT_DEATH(restore_overlapping(), "check failed");
}

}  // namespace
}  // namespace headroom::engine
