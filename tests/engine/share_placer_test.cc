// SharePlacer: exact choices on tiny clusters, and properties over random ones.
#include "engine/share_placer.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "engine/cluster_state.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::TinyCluster;

ShapeTypes AnyModel(const model::Cluster& cluster) {
  return ShapeTypes{{std::vector<uint8_t>(cluster.device_classes().size(), 1)}};
}

TEST(SharePlacerTest, BestFitTakesTheFullerNodeAndTheTightestGpu) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2}, {"n1", 2}}).Build();
  ClusterState state(cluster);
  SharePlacer placer(cluster, SharePolicy::kBestFit, {}, AnyModel(cluster), GoRand(1));
  // Use most of n1: a whole GPU and 700 of the other.
  ASSERT_TRUE(placer.Place(state, {1000, 1000, 1, 0}, 0));
  const NodeId first = placer.Place(state, {1000, 700, 1, 0}, 0)->node;
  const auto third = placer.Place(state, {1000, 200, 1, 0}, 0);
  ASSERT_TRUE(third);
  EXPECT_EQ(third->node, first);  // The fuller node wins after normalisation.
  ASSERT_EQ(third->devices.size(), 1u);
  EXPECT_EQ(state.free_milli(third->devices[0]), 100);  // The 300-free GPU, not a whole one.
}

TEST(SharePlacerTest, FailsWithoutTouchingStateWhenNothingFits) {
  const model::Cluster cluster = TinyCluster().Rack("r0", {{"n0", 2, "H100", 8000}}).Build();
  ClusterState state(cluster);
  SharePlacer placer(cluster, SharePolicy::kFgd, {{{1000, 1000, 1, 0}, 1.0}}, AnyModel(cluster),
                     GoRand(1));
  EXPECT_FALSE(placer.Place(state, {16000, 1000, 1, 0}, 0));      // CPU.
  EXPECT_FALSE(placer.Place(state, {1000, 1000, 4, 0}, 0));       // GPUs.
  EXPECT_FALSE(placer.Place(state, {1000, 500, 1, 0}, 1 << 30));  // Memory.
  EXPECT_EQ(state.allocated_milli(), 0u);
  EXPECT_EQ(state.free_cpu_milli(NodeId(0)), 8000);
}

TEST(SharePlacerTest, ModelConstraintsAreHonoured) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"a", 1, "A100"}, {"h", 1, "H100"}}).Build();
  ShapeTypes types = AnyModel(cluster);
  std::vector<uint8_t> h100_only;
  for (const model::DeviceClass& c : cluster.device_classes())
    h100_only.push_back(c.model == "H100");
  types.accepts.push_back(h100_only);
  for (SharePolicy policy : {SharePolicy::kRandom, SharePolicy::kPacking, SharePolicy::kFgd}) {
    ClusterState state(cluster);
    SharePlacer placer(cluster, policy, {{{1000, 1000, 1, 0}, 1.0}}, types, GoRand(3));
    const auto placed = placer.Place(state, {1000, 1000, 1, 1}, 0);
    ASSERT_TRUE(placed);
    EXPECT_EQ(cluster.node(placed->node).name, "h");
    EXPECT_FALSE(placer.Place(state, {1000, 1000, 1, 1}, 0));
  }
}

TEST(SharePlacerTest, SameSeedSameChoices) {
  const model::Cluster cluster =
      TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 4}, {"n2", 4}, {"n3", 4}}).Build();
  for (SharePolicy policy : {SharePolicy::kRandom, SharePolicy::kFgd, SharePolicy::kHeadroom}) {
    std::vector<uint32_t> nodes[2];
    for (auto& chosen : nodes) {
      ClusterState state(cluster);
      SharePlacer placer(cluster, policy, {{{1000, 500, 1, 0}, 1.0}}, AnyModel(cluster), GoRand(9));
      for (int i = 0; i < 20; ++i) {
        if (auto placed = placer.Place(state, {1000, 300, 1, 0}, 0))
          chosen.push_back(placed->node.value());
      }
    }
    EXPECT_EQ(nodes[0], nodes[1]) << SharePolicyName(policy);
  }
}

// Over random tiny clusters and random pods: the state never goes over any resource, shares on
// a device never exceed 1000 milli, and a pod fails only when no node could take it.
RC_GTEST_PROP(SharePlacerProperty, NeverOverbooksAndFailsOnlyWhenNothingFits, ()) {
  const auto spec = *testing::GenClusterSpec();
  const model::Cluster cluster = spec.Build();
  const auto policy = static_cast<SharePolicy>(*rc::gen::inRange(0, 7));
  ClusterState state(cluster);
  SharePlacer placer(cluster, policy, {{{2000, 500, 1, 0}, 0.5}, {{4000, 1000, 1, 0}, 0.5}},
                     AnyModel(cluster), GoRand(*rc::gen::arbitrary<int64_t>()));
  const int pods = *rc::gen::inRange(1, 60);
  for (int i = 0; i < pods; ++i) {
    PodShape shape;
    shape.cpu_milli = *rc::gen::inRange<int64_t>(0, 40000);
    shape.gpus = *rc::gen::inRange<uint32_t>(0, 5);
    shape.milli_per_gpu =
        shape.gpus == 0 ? 0 : (shape.gpus == 1 ? *rc::gen::inRange<uint32_t>(1, 1001) : 1000);
    const int64_t memory_mib = *rc::gen::inRange<int64_t>(0, 64 * 1024);
    bool any_fits = false;
    for (const model::Node& node : cluster.nodes()) {
      const NodeView view = placer.ViewOf(state, node.id);
      any_fits |= view.cpu_left >= shape.cpu_milli && view.memory_left >= memory_mib &&
                  (shape.gpus == 0 || GpusFit(view, shape));
    }
    const auto placed = placer.Place(state, shape, memory_mib);
    RC_ASSERT(placed.has_value() == any_fits);
    RC_ASSERT(state.CheckInvariants().empty());
  }
}

}  // namespace
}  // namespace headroom::engine
