// Engine::Follow (engine.h): an engine that executes recorded decisions. Scenarios for what it
// refuses, and that a refused step changes no capacity or job; that it agrees with the engine it
// follows over whole runs with moves is defrag_property_test.cc's property 5.
#include <vector>

#include <gtest/gtest.h>

#include "engine/engine.h"
#include "scenario.h"

namespace headroom::engine {
namespace {

using testing::MakeCluster;
using testing::MakeJob;
using testing::Preset;

std::vector<TaskAllocation> OnDevices(NodeId node, std::vector<uint32_t> devices) {
  TaskAllocation task{.node = node};
  for (uint32_t device : devices) task.devices.push_back(DeviceId(device));
  return {task};
}

class EngineFollowTest : public ::testing::Test {
 protected:
  EngineFollowTest()
      : cluster_(MakeCluster({{"r0", {{"n0", 4}, {"n1", 4}}}})),
        engine_(cluster_, Preset("headroom")) {
    std::vector<Event> events = {JobSubmitted{JobId(0), MakeJob(1, 2, 100)},
                                 JobSubmitted{JobId(1), MakeJob(1, 2, 100)}};
    Decisions first;
    first.starts.push_back(StartJob{JobId(0), OnDevices(NodeId(0), {0, 1})});
    EXPECT_EQ(engine_.Follow(events, first, SecondsToUs(10)), "");
  }

  uint32_t FreeMilli() const {
    uint32_t free = 0;
    for (uint32_t d = 0; d < cluster_.devices().size(); ++d) {
      free += engine_.cluster_state().free_milli(DeviceId(d));
    }
    return free;
  }

  model::Cluster cluster_;
  Engine engine_;
};

TEST_F(EngineFollowTest, ARecordedStartRunsTheJobWhereTheRecordSays) {
  EXPECT_EQ(engine_.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine_.state(JobId(1)), JobState::kPending);
  const std::vector<TaskAllocation>* tasks = engine_.allocations(JobId(0));
  ASSERT_NE(tasks, nullptr);
  EXPECT_EQ(*tasks, OnDevices(NodeId(0), {0, 1}));
  EXPECT_EQ(FreeMilli(), 6000u);
  EXPECT_EQ(engine_.CheckInvariants(), "");
  // Following is not searching: job 1 fits, but nothing recorded starts it.
  std::vector<Event> none;
  EXPECT_EQ(engine_.Follow(none, {}, SecondsToUs(20)), "");
  EXPECT_EQ(engine_.state(JobId(1)), JobState::kPending);
}

TEST_F(EngineFollowTest, ADecisionThatDoesNotApplyIsRefusedAndChangesNothing) {
  std::vector<Event> none;
  Decisions taken;  // Device 1 is job 0's.
  taken.starts.push_back(StartJob{JobId(1), OnDevices(NodeId(0), {1, 2})});
  EXPECT_NE(engine_.Follow(none, taken, SecondsToUs(20)), "");

  Decisions again;  // Job 0 runs already.
  again.starts.push_back(StartJob{JobId(0), OnDevices(NodeId(1), {4, 5})});
  EXPECT_NE(engine_.Follow(none, again, SecondsToUs(20)), "");

  Decisions pending_move;  // Only a running job moves.
  pending_move.migrations.push_back(
      MigrateJob{.job = JobId(1), .tasks = OnDevices(NodeId(1), {4, 5})});
  EXPECT_NE(engine_.Follow(none, pending_move, SecondsToUs(20)), "");

  Decisions elsewhere;  // Device 4 is on n1, not n0.
  elsewhere.starts.push_back(StartJob{JobId(1), OnDevices(NodeId(0), {2, 4})});
  EXPECT_NE(engine_.Follow(none, elsewhere, SecondsToUs(20)), "");

  Decisions unknown;
  unknown.starts.push_back(StartJob{JobId(7), OnDevices(NodeId(1), {4})});
  EXPECT_NE(engine_.Follow(none, unknown, SecondsToUs(20)), "");

  EXPECT_NE(engine_.Follow(none, {}, SecondsToUs(5)), "") << "time went backwards";

  EXPECT_EQ(engine_.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine_.state(JobId(1)), JobState::kPending);
  EXPECT_EQ(FreeMilli(), 6000u);
  EXPECT_EQ(engine_.CheckInvariants(), "");
}

TEST_F(EngineFollowTest, ARecordedMoveFreesTheOldDevicesAndChargesTheBudget) {
  EXPECT_TRUE(engine_.Carried(SecondsToUs(30)).migration_spent.empty());
  std::vector<Event> none;
  Decisions decisions;  // Job 0 to n1, and job 1 into the devices it left on n0.
  decisions.migrations.push_back(MigrateJob{
      .job = JobId(0), .tasks = OnDevices(NodeId(1), {4, 5}), .pause_us = SecondsToUs(1)});
  decisions.starts.push_back(StartJob{JobId(1), OnDevices(NodeId(0), {0, 1})});
  ASSERT_EQ(engine_.Follow(none, decisions, SecondsToUs(30)), "");
  EXPECT_EQ(*engine_.allocations(JobId(0)), OnDevices(NodeId(1), {4, 5}));
  EXPECT_EQ(*engine_.allocations(JobId(1)), OnDevices(NodeId(0), {0, 1}));
  EXPECT_EQ(FreeMilli(), 4000u);
  EXPECT_EQ(engine_.CheckInvariants(), "");
  const CarriedState carried = engine_.Carried(SecondsToUs(30));
  ASSERT_EQ(carried.migration_spent.size(), 1u);
  EXPECT_EQ(carried.migration_spent.front().first, SecondsToUs(30));
  // The policy's checkpoint + restart times the job's two devices, as the planner charges.
  const PolicyConfig policy = Preset("headroom");
  EXPECT_EQ(carried.migration_spent.front().second,
            (policy.migration.checkpoint_us + policy.migration.restart_us) * 2);
}

TEST_F(EngineFollowTest, FairShareChargesWhatRanUntilTheJobEnds) {
  std::vector<Event> finish = {JobFinished{JobId(0)}};
  ASSERT_EQ(engine_.Follow(finish, {}, SecondsToUs(110)), "");
  const CarriedState carried = engine_.Carried(SecondsToUs(110));
  ASSERT_EQ(carried.tenant_usage.size(), 1u);
  // Two devices from 10 s to 110 s, in milli-device-seconds, decayed over a week's half-life.
  EXPECT_NEAR(carried.tenant_usage.begin()->second, 2000.0 * 100, 2000.0 * 100 * 1e-3);
  ASSERT_EQ(carried.runtimes.size(), 1u);
  const RuntimeTally& tally = carried.runtimes.begin()->second.at(2000);
  EXPECT_EQ(tally.runs, 1u);
  EXPECT_DOUBLE_EQ(tally.sum_s, 100.0);
}

}  // namespace
}  // namespace headroom::engine
