// Evacuation (recovery.evacuate, engine_evacuate.cc): a running job on a device health withdrew
// outright moves off it, with a checkpoint and restart, where a placement fits now; it stays
// where no placement fits and moves once capacity is released; a degraded withdrawal, a job
// about to end, one whose checkpoints leave too little at risk for a move to pay, and a policy
// without evacuation move nothing; a follower executes the moves.
#include <set>
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

constexpr TimeUs kSecond = kUsPerSecond;
constexpr TimeUs kHour = 3600 * kSecond;

PolicyConfig Evacuating(bool evacuate = true) {
  auto policy = PresetPolicy("fifo");
  EXPECT_TRUE(policy.has_value());
  policy->recovery.evacuate = evacuate;
  return *policy;
}

model::Job LongJob(uint32_t devices, TimeUs runtime_us = 10 * kHour) {
  model::Job job = JobOf(1, devices);
  job.runtime_us = runtime_us;
  job.runtime_estimate_us = runtime_us;
  return job;
}

std::set<uint32_t> NodesOf(const std::vector<TaskAllocation>& tasks) {
  std::set<uint32_t> nodes;
  for (const TaskAllocation& task : tasks) nodes.insert(task.node.value());
  return nodes;
}

// Two nodes of four devices; job 0 starts on node 0 (devices 0-3).
class EvacuationTest : public ::testing::Test {
 protected:
  void StartOnNodeZero(Engine& engine) {
    std::vector<Event> submit = {JobSubmitted{JobId(0), LongJob(4)}};
    const Decisions decisions = engine.Step(submit, 0);
    ASSERT_EQ(decisions.starts.size(), 1u);
    ASSERT_EQ(NodesOf(decisions.starts[0].tasks), (std::set<uint32_t>{0}));
  }

  const model::Cluster cluster_ = TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}}).Build();
};

TEST_F(EvacuationTest, AJobOnAWithdrawnDeviceMovesWithACheckpointAndARestart) {
  const PolicyConfig policy = Evacuating();
  Engine engine(cluster_, policy);
  Engine follower(cluster_, policy);
  std::vector<Event> submit = {JobSubmitted{JobId(0), LongJob(4)}};
  std::vector<Event> followed = submit;
  Decisions decisions = engine.Step(submit, 0);
  ASSERT_EQ(follower.Follow(followed, decisions, 0), "");

  std::vector<Event> warned = {DeviceWithdrawn{DeviceId(2), true}};
  followed = warned;
  decisions = engine.Step(warned, kHour);
  ASSERT_EQ(decisions.migrations.size(), 1u);
  const MigrateJob& move = decisions.migrations[0];
  EXPECT_EQ(move.job, JobId(0));
  EXPECT_EQ(NodesOf(move.tasks), (std::set<uint32_t>{1}));
  EXPECT_EQ(move.pause_us, policy.migration.checkpoint_us + policy.migration.restart_us);
  EXPECT_EQ(move.cost_device_us, move.pause_us * 4);
  // Node 0's healthy devices are free; the withdrawn one holds what the job released.
  EXPECT_EQ(engine.cluster_state().whole_free(NodeId(0), DeviceClassId(0)), 3u);
  EXPECT_EQ(engine.cluster_state().held_milli(DeviceId(2)), 1000u);
  EXPECT_EQ(engine.CheckInvariants(), "");
  ASSERT_EQ(follower.Follow(followed, decisions, kHour), "");
  EXPECT_EQ(follower.CheckInvariants(), "");

  // Moved once: a later step moves nothing.
  std::vector<Event> none;
  EXPECT_TRUE(engine.Step(none, kHour + kSecond).migrations.empty());
}

TEST_F(EvacuationTest, WithoutThePolicyTheJobRunsOnWhereItIs) {
  Engine engine(cluster_, Evacuating(false));
  StartOnNodeZero(engine);
  std::vector<Event> warned = {DeviceWithdrawn{DeviceId(2), true}};
  EXPECT_TRUE(engine.Step(warned, kHour).migrations.empty());
  EXPECT_EQ(engine.state(JobId(0)), JobState::kRunning);
}

TEST_F(EvacuationTest, ADegradedWithdrawalMovesNothing) {
  Engine engine(cluster_, Evacuating());
  StartOnNodeZero(engine);
  std::vector<Event> degraded = {DeviceWithdrawn{DeviceId(2), true, true}};
  EXPECT_TRUE(engine.Step(degraded, kHour).migrations.empty());
}

TEST_F(EvacuationTest, AJobEndingBeforeThePauseWouldBeOverStays) {
  const PolicyConfig policy = Evacuating();
  Engine engine(cluster_, policy);
  const TimeUs pause_us = policy.migration.checkpoint_us + policy.migration.restart_us;
  std::vector<Event> submit = {JobSubmitted{JobId(0), LongJob(4, kHour + pause_us / 2)}};
  ASSERT_EQ(engine.Step(submit, 0).starts.size(), 1u);
  std::vector<Event> warned = {DeviceWithdrawn{DeviceId(0), true}};
  EXPECT_TRUE(engine.Step(warned, kHour).migrations.empty());
}

// Checkpointing every 20 minutes, a job risks 10 minutes of work at a fault: less than a move
// costs when the warning is wrong half the time (60 s checkpoint twice, 10 min restart). Every
// 25 minutes it risks 12.5 and moves.
TEST_F(EvacuationTest, AJobThatCheckpointsOftenStaysWhereAMoveWouldNotPay) {
  for (const double minutes : {20.0, 25.0}) {
    SCOPED_TRACE(minutes);
    Engine engine(cluster_, Evacuating());
    model::Job job = LongJob(4);
    job.checkpoint_interval_us = static_cast<TimeUs>(minutes * 60) * kSecond;
    std::vector<Event> submit = {JobSubmitted{JobId(0), job}};
    ASSERT_EQ(engine.Step(submit, 0).starts.size(), 1u);
    std::vector<Event> warned = {DeviceWithdrawn{DeviceId(0), true}};
    EXPECT_EQ(engine.Step(warned, kHour).migrations.size(), minutes > 24 ? 1u : 0u);
  }
}

// A job that saves nothing risks all its work so far: 100 s of it is not worth a move, but once
// it has worked longer than a move costs, the next release of capacity moves it.
TEST_F(EvacuationTest, AJobThatSavesNothingMovesOnceItHasWorkedLongerThanAMoveCosts) {
  PolicyConfig policy = Evacuating();
  policy.preemption.checkpoint_interval_us = 0;
  Engine engine(cluster_, policy);
  // Both on node 0, job 0 on devices 0 and 1: node 1 is free throughout.
  std::vector<Event> submit = {JobSubmitted{JobId(0), LongJob(2)},
                               JobSubmitted{JobId(1), LongJob(2, kHour)}};
  Decisions decisions = engine.Step(submit, 0);
  ASSERT_EQ(decisions.starts.size(), 2u);
  ASSERT_EQ(NodesOf(decisions.starts[0].tasks), (std::set<uint32_t>{0}));
  ASSERT_EQ(NodesOf(decisions.starts[1].tasks), (std::set<uint32_t>{0}));
  const DeviceId first = decisions.starts[0].tasks[0].devices[0];
  std::vector<Event> warned = {DeviceWithdrawn{first, true}};
  EXPECT_TRUE(engine.Step(warned, 100 * kSecond).migrations.empty());
  std::vector<Event> freed = {JobFinished{JobId(1)}};
  decisions = engine.Step(freed, kHour);
  ASSERT_EQ(decisions.migrations.size(), 1u);
  EXPECT_EQ(decisions.migrations[0].job, JobId(0));
  for (const TaskAllocation& task : decisions.migrations[0].tasks) {
    for (DeviceId device : task.devices) EXPECT_NE(device, first);
  }
}

TEST_F(EvacuationTest, WithNoRoomTheJobStaysAndMovesOnceCapacityIsReleased) {
  Engine engine(cluster_, Evacuating());
  StartOnNodeZero(engine);
  std::vector<Event> other = {JobSubmitted{JobId(1), LongJob(4)}};
  ASSERT_EQ(engine.Step(other, kSecond).starts.size(), 1u);  // Node 1 is full.

  std::vector<Event> warned = {DeviceWithdrawn{DeviceId(1), true}};
  Decisions decisions = engine.Step(warned, kHour);
  EXPECT_TRUE(decisions.migrations.empty());
  // A pending job behind it does not take what the move needs: node 1 frees, job 0 moves there
  // first, and job 2 (four devices) finds no room on node 0's three.
  std::vector<Event> freed = {JobFinished{JobId(1)}, JobSubmitted{JobId(2), LongJob(4)}};
  decisions = engine.Step(freed, 2 * kHour);
  ASSERT_EQ(decisions.migrations.size(), 1u);
  EXPECT_EQ(decisions.migrations[0].job, JobId(0));
  EXPECT_EQ(NodesOf(decisions.migrations[0].tasks), (std::set<uint32_t>{1}));
  EXPECT_TRUE(decisions.starts.empty());
  EXPECT_EQ(engine.state(JobId(2)), JobState::kPending);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST_F(EvacuationTest, AMultiNodeJobMovesOnlyOffTheWithdrawnNode) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}}).Build();
  Engine engine(cluster, Evacuating());
  model::Job gang = LongJob(4);
  gang.task_count = 2;  // Two tasks of four devices: two whole nodes.
  std::vector<Event> submit = {JobSubmitted{JobId(0), gang}};
  Decisions decisions = engine.Step(submit, 0);
  ASSERT_EQ(decisions.starts.size(), 1u);
  const std::set<uint32_t> before = NodesOf(decisions.starts[0].tasks);
  ASSERT_EQ(before.size(), 2u);
  const uint32_t warned_node = *before.begin();
  std::vector<Event> warned = {DeviceWithdrawn{DeviceId(warned_node * 4), true}};
  decisions = engine.Step(warned, kHour);
  ASSERT_EQ(decisions.migrations.size(), 1u);
  const std::set<uint32_t> after = NodesOf(decisions.migrations[0].tasks);
  EXPECT_EQ(after.size(), 2u);
  EXPECT_EQ(after.count(warned_node), 0u);
  EXPECT_EQ(after.count(*before.rbegin()), 1u);  // Its healthy node is still one of them.
  EXPECT_EQ(engine.CheckInvariants(), "");
}

}  // namespace
}  // namespace headroom::engine
