#include "model/cluster_builder.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

NodeSpec Gpus(std::string name, int count, std::string model = "H100") {
  NodeSpec spec{.name = std::move(name), .cpu_milli = 1000, .memory_mib = 1024};
  spec.devices.assign(count, DeviceAttributes(std::move(model), 80));
  return spec;
}

// Domains and nodes added out of depth-first order come out renumbered depth-first, with each
// domain covering a contiguous node range (cluster.h invariant 2).
TEST(ClusterBuilderTest, RenumbersDepthFirst) {
  ClusterBuilder builder({"cluster", "pod", "rack"}, "root");
  const DomainId pod_a = builder.AddDomain(builder.root(), "pod-a");
  const DomainId pod_b = builder.AddDomain(builder.root(), "pod-b");
  const DomainId rack_b0 = builder.AddDomain(pod_b, "rack-b0");
  const DomainId rack_a0 = builder.AddDomain(pod_a, "rack-a0");
  const DomainId rack_a1 = builder.AddDomain(pod_a, "rack-a1");
  builder.AddNode(rack_b0, Gpus("b0-n0", 2));
  builder.AddNode(rack_a1, Gpus("a1-n0", 1));
  builder.AddNode(rack_a0, Gpus("a0-n0", 4));
  builder.AddNode(rack_a0, Gpus("a0-n1", 4));
  auto cluster = std::move(builder).Build();
  ASSERT_TRUE(cluster) << cluster.error().message;

  std::vector<std::string> domain_names;
  for (const Domain& domain : cluster->domains()) domain_names.push_back(domain.name);
  EXPECT_EQ(domain_names,
            (std::vector<std::string>{"root", "pod-a", "rack-a0", "rack-a1", "pod-b", "rack-b0"}));
  std::vector<std::string> node_names;
  for (const Node& node : cluster->nodes()) node_names.push_back(node.name);
  EXPECT_EQ(node_names, (std::vector<std::string>{"a0-n0", "a0-n1", "a1-n0", "b0-n0"}));

  const Domain* pod_a_domain = cluster->FindDomain("pod-a");
  ASSERT_NE(pod_a_domain, nullptr);
  EXPECT_EQ(pod_a_domain->node_begin, 0u);
  EXPECT_EQ(pod_a_domain->node_end, 3u);
  const Domain* rack_b = cluster->FindDomain("rack-b0");
  EXPECT_EQ(rack_b->node_begin, 3u);
  EXPECT_EQ(rack_b->node_end, 4u);
  EXPECT_EQ(cluster->domain(DomainId(0)).node_end, 4u);
  EXPECT_EQ(cluster->domain(rack_b->parent).name, "pod-b");
  EXPECT_EQ(cluster->domains_at_level(2).size(), 3u);

  // Devices follow their nodes: a0-n0 holds devices 0..3, b0-n0 the last two.
  EXPECT_EQ(cluster->device_count(), 11u);
  EXPECT_EQ(cluster->FindNode("a0-n1")->first_device, 4u);
  EXPECT_EQ(cluster->FindNode("b0-n0")->first_device, 9u);
  EXPECT_EQ(cluster->device(DeviceId(9)).node, cluster->FindNode("b0-n0")->id);
  EXPECT_EQ(cluster->device(DeviceId(10)).index_on_node, 1u);
  EXPECT_EQ(cluster->max_devices_per_node(), 4u);
  EXPECT_EQ(cluster->device_classes().size(), 1u);
  EXPECT_EQ(cluster->device_classes()[0].model, "H100");
}

TEST(ClusterBuilderTest, AncestorAtEveryLevel) {
  ClusterBuilder builder({"cluster", "pod", "rack"});
  const DomainId pod = builder.AddDomain(builder.root(), "pod0");
  const DomainId rack = builder.AddDomain(pod, "rack0");
  const DomainId other_pod = builder.AddDomain(builder.root(), "pod1");
  const DomainId other_rack = builder.AddDomain(other_pod, "rack1");
  builder.AddNode(other_rack, Gpus("late", 1));
  builder.AddNode(rack, Gpus("early", 1));
  auto cluster = std::move(builder).Build();
  ASSERT_TRUE(cluster) << cluster.error().message;
  const NodeId late = cluster->FindNode("late")->id;
  EXPECT_EQ(cluster->domain(cluster->AncestorAt(late, 0)).name, "cluster");
  EXPECT_EQ(cluster->domain(cluster->AncestorAt(late, 1)).name, "pod1");
  EXPECT_EQ(cluster->domain(cluster->AncestorAt(late, 2)).name, "rack1");
  EXPECT_EQ(cluster->AncestorAt(late, 2), cluster->node(late).domain);
  const NodeId early = cluster->FindNode("early")->id;
  EXPECT_EQ(early.value(), 0u);
  EXPECT_EQ(cluster->domain(cluster->AncestorAt(early, 1)).name, "pod0");
}

TEST(ClusterBuilderTest, InternsDeviceClassesByAttributes) {
  ClusterBuilder builder({"cluster"});
  builder.AddNode(builder.root(), Gpus("a", 2, "T4"));
  builder.AddNode(builder.root(), Gpus("b", 2, "V100"));
  builder.AddNode(builder.root(), Gpus("c", 1, "T4"));
  auto cluster = std::move(builder).Build();
  ASSERT_TRUE(cluster) << cluster.error().message;
  ASSERT_EQ(cluster->device_classes().size(), 2u);
  EXPECT_EQ(cluster->device_classes()[0].model, "T4");
  EXPECT_EQ(cluster->device_classes()[1].model, "V100");
  EXPECT_EQ(cluster->device(DeviceId(4)).device_class, DeviceClassId(0));
}

TEST(ClusterBuilderTest, RejectsDuplicateNodeNames) {
  ClusterBuilder builder({"cluster"});
  builder.AddNode(builder.root(), Gpus("n0", 1));
  builder.AddNode(builder.root(), Gpus("n0", 1));
  auto cluster = std::move(builder).Build();
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error().message,
            "node 'n0': expected a unique name, got a second node of that name");
}

TEST(ClusterBuilderTest, RejectsDuplicateDomainNames) {
  ClusterBuilder builder({"cluster", "rack"});
  builder.AddDomain(builder.root(), "r");
  builder.AddDomain(builder.root(), "r");
  auto cluster = std::move(builder).Build();
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error().message,
            "domain 'r': expected a unique name, got a second domain of that name");
}

TEST(ClusterBuilderTest, RejectsNodesAboveTheDeepestLevel) {
  ClusterBuilder builder({"cluster", "rack"});
  builder.AddNode(builder.root(), Gpus("n0", 1));
  auto cluster = std::move(builder).Build();
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error().message,
            "domain 'cluster': expected nodes only under the deepest level 'rack', got nodes "
            "under level 'cluster'");
}

TEST(ClusterBuilderTest, RejectsTooDeepATree) {
  ClusterBuilder builder({"cluster", "rack"});
  const DomainId rack = builder.AddDomain(builder.root(), "rack0");
  builder.AddDomain(rack, "shelf0");
  auto cluster = std::move(builder).Build();
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error().message,
            "domain 'shelf0': expected at most 2 topology levels (cluster > rack), got depth 3");
}

TEST(ClusterBuilderTest, RejectsNegativeResources) {
  ClusterBuilder builder({"cluster"});
  builder.AddNode(builder.root(), NodeSpec{.name = "n", .cpu_milli = -1});
  EXPECT_FALSE(std::move(builder).Build());
}

TEST(ClusterBuilderTest, EmptyClusterHasOnlyTheRoot) {
  auto cluster = ClusterBuilder({"cluster"}, "empty").Build();
  ASSERT_TRUE(cluster) << cluster.error().message;
  EXPECT_EQ(cluster->domains().size(), 1u);
  EXPECT_EQ(cluster->nodes().size(), 0u);
  EXPECT_EQ(cluster->max_devices_per_node(), 0u);
}

}  // namespace
}  // namespace headroom::model
