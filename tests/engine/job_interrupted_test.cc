// JobInterrupted: a fault ends a running attempt; the job is pending again under its id,
// starts where the drained node is not, counts no preemption, and with recovery.expedite goes
// ahead of the jobs that were waiting before it.
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

PolicyConfig Fifo(bool expedite) {
  auto policy = PresetPolicy("fifo");
  EXPECT_TRUE(policy.has_value());
  policy->recovery.expedite = expedite;
  return *policy;
}

TEST(JobInterruptedTest, TheJobRestartsAwayFromTheFaultedNodeAsNoPreemption) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}}).Build();
  Engine engine(cluster, Fifo(false));
  std::vector<Event> submit = {JobSubmitted{JobId(0), JobOf(1, 4)}};
  Decisions decisions = engine.Step(submit, 0);
  ASSERT_EQ(decisions.starts.size(), 1u);
  const NodeId first = decisions.starts[0].tasks[0].node;

  // The node fails: drained, and the job on it interrupted in the same step.
  std::vector<Event> fault = {NodeDrained{first, true}, JobInterrupted{JobId(0)}};
  decisions = engine.Step(fault, 10 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].job, JobId(0));
  EXPECT_NE(decisions.starts[0].tasks[0].node, first);
  EXPECT_TRUE(decisions.preemptions.empty());
  EXPECT_EQ(engine.preemptions(JobId(0)), 0u);
  EXPECT_EQ(engine.state(JobId(0)), JobState::kRunning);
  EXPECT_EQ(engine.CheckInvariants(), "");

  // An interruption of a job that is not running changes nothing.
  std::vector<Event> finish = {JobFinished{JobId(0)}};
  engine.Step(finish, 20 * kSecond);
  std::vector<Event> late = {JobInterrupted{JobId(0)}, JobInterrupted{JobId(7)}};
  decisions = engine.Step(late, 30 * kSecond);
  EXPECT_TRUE(decisions.starts.empty());
  EXPECT_EQ(engine.state(JobId(0)), JobState::kCompleted);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(JobInterruptedTest, WithNowhereToGoTheJobWaitsForTheRepair) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}}).Build();
  Engine engine(cluster, Fifo(false));
  std::vector<Event> submit = {JobSubmitted{JobId(0), JobOf(1, 4)}};
  ASSERT_EQ(engine.Step(submit, 0).starts.size(), 1u);
  std::vector<Event> fault = {NodeDrained{NodeId(0), true}, JobInterrupted{JobId(0)}};
  EXPECT_TRUE(engine.Step(fault, kSecond).starts.empty());
  EXPECT_EQ(engine.state(JobId(0)), JobState::kPending);
  EXPECT_EQ(engine.cluster_state().allocated_milli(), 0u);
  std::vector<Event> repair = {NodeDrained{NodeId(0), false}};
  const Decisions decisions = engine.Step(repair, 2 * kSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].job, JobId(0));
}

// Two nodes, priority order: jobs 0 and 1 run, then job 2 of higher priority waits for a whole
// node. Job 0's node fails and is repaired while job 2 still waits: without expedite job 2
// takes the node first; with it, the interrupted job 0 does.
JobId FirstToRestart(bool expedite) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}}).Build();
  PolicyConfig policy = Fifo(expedite);
  policy.queue_order = "priority";
  Engine engine(cluster, policy);
  std::vector<Event> submit = {JobSubmitted{JobId(0), JobOf(1, 4)},
                               JobSubmitted{JobId(1), JobOf(1, 4)}};
  EXPECT_EQ(engine.Step(submit, 0).starts.size(), 2u);
  model::Job urgent = JobOf(1, 4);
  urgent.priority = 1;
  std::vector<Event> later = {JobSubmitted{JobId(2), urgent}};
  EXPECT_TRUE(engine.Step(later, kSecond / 2).starts.empty());
  const NodeId node_of_0 = engine.allocations(JobId(0))->front().node;
  std::vector<Event> fault = {NodeDrained{node_of_0, true}, JobInterrupted{JobId(0)}};
  EXPECT_TRUE(engine.Step(fault, kSecond).starts.empty());
  std::vector<Event> repair = {NodeDrained{node_of_0, false}};
  const Decisions decisions = engine.Step(repair, 2 * kSecond);
  EXPECT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(engine.CheckInvariants(), "");
  return decisions.starts.empty() ? JobId() : decisions.starts[0].job;
}

TEST(JobInterruptedTest, ExpediteSendsTheInterruptedJobAheadOfTheQueue) {
  EXPECT_EQ(FirstToRestart(false), JobId(2));
  EXPECT_EQ(FirstToRestart(true), JobId(0));
}

// A successor engine (the daemon's rebuild or restart) learns from the job that a fault requeued
// it: it still goes ahead of the queue, and the engine says so until it starts.
TEST(JobInterruptedTest, AnExpeditedJobStaysAheadInASuccessorEngine) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 4}}).Build();
  for (const bool expedite : {true, false}) {
    Engine engine(cluster, Fifo(expedite));
    model::Job carried = JobOf(1, 4);
    carried.expedited = true;
    std::vector<Event> rebuild = {
        JobRestored{
            JobId(0),
            JobOf(1, 4),
            {{.node = NodeId(0), .devices = {DeviceId(0), DeviceId(1), DeviceId(2), DeviceId(3)}}},
            0},
        JobSubmitted{JobId(1), JobOf(1, 4)}, JobSubmitted{JobId(2), carried}};
    engine.Step(rebuild, kSecond);
    EXPECT_EQ(engine.expedited(JobId(2)), expedite);
    EXPECT_FALSE(engine.expedited(JobId(1)));
    std::vector<Event> finish = {JobFinished{JobId(0)}};
    const Decisions decisions = engine.Step(finish, 2 * kSecond);
    ASSERT_EQ(decisions.starts.size(), 1u);
    EXPECT_EQ(decisions.starts[0].job, expedite ? JobId(2) : JobId(1));
    EXPECT_FALSE(engine.expedited(decisions.starts[0].job));
  }
}

}  // namespace
}  // namespace headroom::engine
