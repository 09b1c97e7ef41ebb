// Share placement inside the engine: the one-task jobs a policy's `share` names are placed by
// GPU-sharing scoring, exactly where a SharePlacer planning for the same workload puts them,
// through the same Engine::Step as every other job (queue, filters, reservations).
#include "engine/share_placement.h"

#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "engine/engine.h"
#include "engine/event.h"
#include "engine/presets.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::TinyCluster;

model::Job Shared(uint32_t milli) {
  model::Job job;
  job.task_count = 1;
  job.task.devices = 1;
  job.task.milli_per_device = milli;
  job.runtime_us = job.runtime_estimate_us = 3600 * kUsPerSecond;
  return job;
}

TaskAllocation On(uint32_t node, uint32_t device, uint32_t milli) {
  TaskAllocation task;
  task.node = NodeId(node);
  task.devices = {DeviceId(device)};
  task.milli_per_device = milli;
  return task;
}

PolicyConfig HeadroomWithShare(std::string scorer) {
  auto policy = PresetPolicy("headroom");
  EXPECT_TRUE(policy.has_value());
  policy->share.scorer = std::move(scorer);
  return *policy;
}

// Node n0's GPU has 500 milli free beside a running 500; n1's GPU is free. The workload so far
// is one 500 and one 300. A 300 beside the 500 would leave 200 that neither shape can use; on
// the free GPU it leaves 700, room for either. Best fit (the node scorers) takes the tighter GPU.
NodeId WhereThe300Goes(const PolicyConfig& policy) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 1}, {"n1", 1}}).Build();
  Engine engine(cluster, policy);
  std::vector<Event> events = {JobRestored{JobId(0), Shared(500), {On(0, 0, 500)}, 0},
                               JobSubmitted{JobId(1), Shared(300)}};
  const Decisions decisions = engine.Step(events, kUsPerSecond);
  EXPECT_EQ(decisions.starts.size(), 1u);
  if (decisions.starts.empty()) return NodeId();
  EXPECT_EQ(decisions.starts[0].tasks.at(0).milli_per_device, 300u);
  EXPECT_EQ(engine.CheckInvariants(), "");
  return decisions.starts[0].tasks.at(0).node;
}

TEST(SharePlacementTest, AFractionalJobGoesWhereTheShareScorerPutsIt) {
  EXPECT_EQ(WhereThe300Goes(HeadroomWithShare("headroom")), NodeId(1));
  EXPECT_EQ(WhereThe300Goes(HeadroomWithShare("fgd")), NodeId(1));
  EXPECT_EQ(WhereThe300Goes(HeadroomWithShare("")), NodeId(0));
}

TEST(SharePlacementTest, TheHeadroomPresetPlacesFractionalJobsByShareScoring) {
  auto policy = PresetPolicy("headroom");
  ASSERT_TRUE(policy.has_value());
  EXPECT_EQ(policy->share.scorer, "headroom");
  EXPECT_FALSE(policy->share.every_single_task);
  EXPECT_EQ(WhereThe300Goes(*policy), NodeId(1));
}

TEST(SharePlacementTest, TakesOneTaskJobsAsConfigured) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}}).Build();
  SharePlacementConfig config{.scorer = "headroom"};
  auto fractional = SharePlacement::Make(cluster, config, std::nullopt);
  ASSERT_NE(fractional, nullptr);
  model::Job whole = Shared(1000);
  model::Job gang = Shared(500);
  gang.task_count = 2;
  EXPECT_TRUE(fractional->Takes(Shared(500)));
  EXPECT_FALSE(fractional->Takes(whole));
  EXPECT_FALSE(fractional->Takes(gang));
  config.every_single_task = true;
  auto every = SharePlacement::Make(cluster, config, std::nullopt);
  EXPECT_TRUE(every->Takes(whole));
  EXPECT_FALSE(every->Takes(gang));
  EXPECT_EQ(SharePlacement::Make(cluster, SharePlacementConfig{}, std::nullopt), nullptr);
}

TEST(SharePlacementTest, IsUnavailableOnNodesTheSharePlacerCannotModel) {
  const model::Cluster big = TinyCluster().Rack("r0", {{"n0", kMaxShareGpus + 1}}).Build();
  EXPECT_EQ(SharePlacement::Make(big, {.scorer = "fgd"}, std::nullopt), nullptr);
  // The engine then places such jobs with its node scorers.
  Engine engine(big, HeadroomWithShare("fgd"));
  std::vector<Event> events = {JobSubmitted{JobId(0), Shared(300)}};
  EXPECT_EQ(engine.Step(events, 0).starts.size(), 1u);
}

TEST(SharePlacementTest, ADrainedNodeIsNeverChosen) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 1}, {"n1", 1}}).Build();
  Engine engine(cluster, HeadroomWithShare("headroom"));
  std::vector<Event> events = {NodeDrained{NodeId(1), true},
                               JobRestored{JobId(0), Shared(500), {On(0, 0, 500)}, 0},
                               JobSubmitted{JobId(1), Shared(300)}};
  const Decisions decisions = engine.Step(events, kUsPerSecond);
  ASSERT_EQ(decisions.starts.size(), 1u);
  EXPECT_EQ(decisions.starts[0].tasks.at(0).node, NodeId(0));  // The only node left.
}

// Over random clusters and jobs: every one-task fractional job the engine starts goes exactly
// where a SharePlacement given the same jobs puts it on the engine's state; a job that does not
// start has no GPU with room for it.
RC_GTEST_PROP(SharePlacementProperty, TheEnginePlacesAsTheSharePlacerDoes, ()) {
  const auto nodes = *rc::gen::inRange<uint32_t>(1, 5);
  const auto devices = *rc::gen::inRange<uint32_t>(1, 5);
  std::vector<testing::TinyNode> rack;
  for (uint32_t n = 0; n < nodes; ++n) rack.push_back({"n" + std::to_string(n), devices});
  const model::Cluster cluster = TinyCluster().Rack("r0", rack).Build();
  const std::string scorer =
      *rc::gen::element<std::string>("headroom", "fgd", "bestfit", "packing", "clustering");
  // Without defragmentation: a move may start a job the placer alone could not place, which is
  // defrag's to prove (defrag_property_test.cc), not this property's.
  PolicyConfig policy = HeadroomWithShare(scorer);
  policy.migration.enabled = false;
  Engine engine(cluster, policy);
  auto reference = SharePlacement::Make(cluster, {.scorer = scorer}, std::nullopt);
  RC_ASSERT(reference != nullptr);
  const SharePlacer::NodeGate every_node = [](NodeId) { return true; };
  const auto jobs = *rc::gen::inRange<uint32_t>(1, 3 * nodes * devices);
  for (uint32_t j = 0; j < jobs; ++j) {
    const model::Job job = Shared(100 * *rc::gen::inRange<uint32_t>(1, 10));
    reference->Submitted(job);
    const auto expected = reference->Place(engine.cluster_state(), job, every_node, nullptr);
    std::vector<Event> events = {JobSubmitted{JobId(j), job}};
    const Decisions decisions = engine.Step(events, static_cast<TimeUs>(j));
    RC_ASSERT(engine.CheckInvariants() == "");
    if (decisions.starts.empty()) {
      RC_ASSERT(!expected.has_value());
      for (uint32_t d = 0; d < cluster.device_count(); ++d) {
        RC_ASSERT(engine.cluster_state().free_milli(DeviceId(d)) < job.task.milli_per_device);
      }
      std::vector<Event> cancel = {JobCancelled{JobId(j)}};
      engine.Step(cancel, static_cast<TimeUs>(j));
      continue;
    }
    RC_ASSERT(decisions.starts[0].tasks.size() == 1u);
    const TaskAllocation& placed = decisions.starts[0].tasks[0];
    RC_ASSERT(expected.has_value());
    RC_ASSERT(placed.node == expected->node);
    RC_ASSERT(placed.devices == expected->devices);
    RC_ASSERT(placed.milli_per_device == job.task.milli_per_device);
    reference->Track(placed, +1);
  }
}

}  // namespace
}  // namespace headroom::engine
