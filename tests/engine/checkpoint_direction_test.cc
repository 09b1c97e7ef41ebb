// Directed checkpoints (engine_checkpoint.cc, recovery.direct_checkpoints): a start of a job
// that declares its checkpoint cost is told Daly's optimum interval for its nodes at the
// floor's fault rate (values worked out by hand below); no other job or policy is told one; a
// floor that meets more faults than the prior shortens it; a preemption loses work by the
// interval the job was told; a following engine keeps the interval it is given.
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
constexpr TimeUs kDay = 86400 * kSecond;

// fifo telling intervals, at a prior of one fault per node-day (a node's MTBF is a day); a job
// that declares no interval of its own saves nothing by itself, so nothing caps what it is told.
PolicyConfig Directing() {
  auto policy = PresetPolicy("fifo");
  EXPECT_TRUE(policy.has_value());
  policy->recovery.direct_checkpoints = true;
  policy->recovery.node_faults_per_day = 1;
  policy->preemption.checkpoint_interval_us = 0;
  return *policy;
}

// Directing, with a priority-10 job preempting the lowest-priority one.
PolicyConfig DirectingWithPreemption() {
  PolicyConfig policy = Directing();
  policy.preemption.enabled = true;
  policy.victim_selector = "lowest_priority";
  return policy;
}

// Submits job 1, of priority 10, for the whole of a one-node 8-device cluster, at `at_s`.
Decisions SubmitUrgent(Engine& engine, double at_s) {
  model::Job high = JobOf(1, 8, "", 0, 0, 100, 100);
  high.priority = 10;
  std::vector<Event> urgent = {JobSubmitted{JobId(1), high}};
  return engine.Step(urgent, SecondsToUs(at_s));
}

model::Cluster FourNodes() {
  return TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}, {"n3", 4}}).Build();
}

model::Job Costing(model::Job job, double cost_s) {
  job.checkpoint_cost_us = SecondsToUs(cost_s);
  return job;
}

TEST(CheckpointDirectionTest, AStartIsToldDalysIntervalForItsNodes) {
  const model::Cluster cluster = FourNodes();
  Engine engine(cluster, Directing());
  std::vector<Event> submit = {
      JobSubmitted{JobId(0), Costing(JobOf(1, 4, "", 0, 0, 1e6, 1e6), 432)},
      JobSubmitted{JobId(1), Costing(JobOf(2, 4, "", 0, 0, 1e6, 1e6), 432)},
      JobSubmitted{JobId(2), JobOf(1, 4, "", 0, 0, 1e6, 1e6)}};
  const Decisions decisions = engine.Step(submit, 0);
  ASSERT_EQ(decisions.starts.size(), 3u);
  // One node: M = 86,400 s, δ/2M = 0.0025; √(2 δ M) = 8,640 s;
  // 8,640 × (1 + 0.05 / 3 + 0.0025 / 9) − 432 = 8,354.4 s.
  EXPECT_EQ(decisions.starts[0].checkpoint_interval_us, 8354 * kSecond);
  // Two nodes: M = 43,200 s, δ/2M = 0.005; √(2 δ M) = 6,109.4 s; × 1.024124 − 432 = 5,824.8 s.
  EXPECT_EQ(decisions.starts[1].checkpoint_interval_us, 5825 * kSecond);
  // A job that declares no cost is left to checkpoint as it declared.
  EXPECT_EQ(decisions.starts[2].checkpoint_interval_us, 0);

  // A cost of two MTBFs or more: checkpoint once per MTBF.
  Engine costly(cluster, Directing());
  std::vector<Event> heavy = {
      JobSubmitted{JobId(0), Costing(JobOf(1, 4, "", 0, 0, 1e6, 1e6), 2 * 86400)}};
  EXPECT_EQ(costly.Step(heavy, 0).starts.at(0).checkpoint_interval_us, kDay);

  // Never longer than the job's own interval (a preemption loses the work since the last
  // checkpoint too), nor than the policy's default for a job that declares none.
  Engine capped(cluster, Directing());
  model::Job hourly = Costing(JobOf(1, 4, "", 0, 0, 1e6, 1e6), 432);
  hourly.checkpoint_interval_us = 3600 * kSecond;
  std::vector<Event> own = {JobSubmitted{JobId(0), hourly}};
  EXPECT_EQ(capped.Step(own, 0).starts.at(0).checkpoint_interval_us, 3600 * kSecond);
  PolicyConfig defaulting = Directing();
  defaulting.preemption.checkpoint_interval_us = 1800 * kSecond;
  Engine by_default(cluster, defaulting);
  std::vector<Event> undeclared = {
      JobSubmitted{JobId(0), Costing(JobOf(1, 4, "", 0, 0, 1e6, 1e6), 432)}};
  EXPECT_EQ(by_default.Step(undeclared, 0).starts.at(0).checkpoint_interval_us, 1800 * kSecond);

  // A policy that does not direct tells nothing.
  Engine plain(cluster, *PresetPolicy("fifo"));
  std::vector<Event> same = {JobSubmitted{JobId(0), Costing(JobOf(1, 4, "", 0, 0, 1e6, 1e6), 432)}};
  EXPECT_EQ(plain.Step(same, 0).starts.at(0).checkpoint_interval_us, 0);
}

TEST(CheckpointDirectionTest, AFloorThatMeetsMoreFaultsThanThePriorShortensTheInterval) {
  const model::Cluster cluster = FourNodes();
  PolicyConfig policy = Directing();
  policy.recovery.node_faults_per_day = 0.01;  // A node's MTBF: 100 days.
  Engine engine(cluster, policy);
  std::vector<Event> submit = {
      JobSubmitted{JobId(0), Costing(JobOf(1, 4, "", 0, 0, 1e7, 1e7), 432)}};
  const Decisions first = engine.Step(submit, 0);
  ASSERT_EQ(first.starts.size(), 1u);
  // M = 8,640,000 s: √(2 δ M) = 86,400 s; δ/2M = 2.5e-5; × (1 + 0.005/3 + 2.8e-6) − 432.
  EXPECT_EQ(first.starts[0].checkpoint_interval_us, 86112 * kSecond);
  // Half a day in, a fault ends it: the floor has met 2 faults per node-day (1 in 0.5
  // node-days), and its restart on another node is told the one-node interval at that rate:
  // M = 43,200 s, 5,824.8 s as above.
  const NodeId node = engine.allocations(JobId(0))->front().node;
  std::vector<Event> fault = {NodeDrained{node, true}, JobInterrupted{JobId(0), node}};
  const Decisions restart = engine.Step(fault, kDay / 2);
  ASSERT_EQ(restart.starts.size(), 1u);
  EXPECT_EQ(restart.starts[0].checkpoint_interval_us, 5825 * kSecond);
  EXPECT_EQ(engine.CheckInvariants(), "");
}

TEST(CheckpointDirectionTest, APreemptionLosesWorkByTheIntervalTheJobWasTold) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  Engine engine(cluster, DirectingWithPreemption());
  model::Job low = Costing(JobOf(1, 8, "", 0, 0, 1e6, 1e6), 432);
  std::vector<Event> submit = {JobSubmitted{JobId(0), low}};
  ASSERT_EQ(engine.Step(submit, 0).starts.at(0).checkpoint_interval_us, 8354 * kSecond);
  const Decisions decisions = SubmitUrgent(engine, 10000);
  ASSERT_EQ(decisions.preemptions.size(), 1u);
  EXPECT_EQ(decisions.preemptions[0].checkpoint_interval_us, 8354 * kSecond);
  // 10,000 s of work, a checkpoint at 8,354 s: 1,646 s lost.
  EXPECT_EQ(decisions.preemptions[0].lost_us, 1646 * kSecond);
}

TEST(CheckpointDirectionTest, AFollowingEngineKeepsTheIntervalItIsGiven) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 8}}).Build();
  Engine follower(cluster, DirectingWithPreemption());
  std::vector<Event> submit = {
      JobSubmitted{JobId(0), Costing(JobOf(1, 8, "", 0, 0, 1e6, 1e6), 432)}};
  // The leader told 1,000 s (at a rate this follower never saw).
  Decisions decided;
  decided.starts.push_back(
      StartJob{JobId(0),
               {TaskAllocation{NodeId(0),
                               {DeviceId(0), DeviceId(1), DeviceId(2), DeviceId(3), DeviceId(4),
                                DeviceId(5), DeviceId(6), DeviceId(7)}}},
               1000 * kSecond});
  ASSERT_EQ(follower.Follow(submit, decided, 0), "");
  const Decisions decisions = SubmitUrgent(follower, 2500);
  ASSERT_EQ(decisions.preemptions.size(), 1u);
  EXPECT_EQ(decisions.preemptions[0].checkpoint_interval_us, 1000 * kSecond);
  EXPECT_EQ(decisions.preemptions[0].lost_us, 500 * kSecond);
}

}  // namespace
}  // namespace headroom::engine
