#include "model/cluster_generator.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

Cluster GenerateOrDie(const GeneratorOptions& options) {
  auto cluster = GenerateCluster(options);
  EXPECT_TRUE(cluster) << cluster.error().message;
  return cluster ? std::move(*cluster) : Cluster();
}

std::string ErrorOf(const GeneratorOptions& options) {
  auto cluster = GenerateCluster(options);
  return cluster ? "" : cluster.error().message;
}

// 1024 devices, 8 per node, 32 per NVLink domain: 128 nodes in 32 racks of 4, two leaves of
// 16 racks, one pod (the building `make run` simulates).
TEST(ClusterGeneratorTest, CountsAndNames) {
  const Cluster cluster =
      GenerateOrDie({.devices = 1024, .devices_per_node = 8, .nvlink_domain = 32});
  EXPECT_EQ(cluster.level_names(), (std::vector<std::string>{"cluster", "pod", "leaf", "rack"}));
  EXPECT_EQ(cluster.device_count(), 1024u);
  EXPECT_EQ(cluster.nodes().size(), 128u);
  EXPECT_EQ(cluster.domains_at_level(1).size(), 1u);
  EXPECT_EQ(cluster.domains_at_level(2).size(), 2u);
  EXPECT_EQ(cluster.domains_at_level(3).size(), 32u);
  EXPECT_EQ(cluster.nodes()[0].name, "pod0-leaf0-rack0-n0");
  EXPECT_EQ(cluster.nodes()[5].name, "pod0-leaf0-rack1-n1");
  EXPECT_EQ(cluster.nodes().back().name, "pod0-leaf1-rack15-n3");
  EXPECT_EQ(cluster.domain(DomainId(0)).name, "cluster");
  ASSERT_EQ(cluster.device_classes().size(), 1u);
  EXPECT_EQ(ToString(cluster.device_classes()[0].attributes), "memory_gib=80, model=\"H100\"");
  EXPECT_EQ(cluster.nodes()[0].cpu_milli, 224000);
  EXPECT_EQ(cluster.nodes()[0].memory_mib, 2048 * 1024);
  EXPECT_EQ(cluster.max_devices_per_node(), 8u);
}

TEST(ClusterGeneratorTest, DepthFirstRangesAndLevels) {
  const Cluster cluster = GenerateOrDie(
      {.devices = 8 * 9 * 5, .nvlink_domain = 72, .racks_per_leaf = 2, .leaves_per_pod = 2});
  // 45 nodes in 5 racks of 9 → leaves of 2 racks → 3 leaves → 2 pods.
  EXPECT_EQ(cluster.domains_at_level(3).size(), 5u);
  EXPECT_EQ(cluster.domains_at_level(2).size(), 3u);
  EXPECT_EQ(cluster.domains_at_level(1).size(), 2u);
  uint32_t expected_begin = 0;
  for (DomainId rack : cluster.domains_at_level(3)) {
    const Domain& domain = cluster.domain(rack);
    EXPECT_EQ(domain.node_begin, expected_begin);
    EXPECT_EQ(domain.node_end - domain.node_begin, 9u);
    expected_begin = domain.node_end;
  }
  const Domain* pod1 = cluster.FindDomain("pod1");
  ASSERT_NE(pod1, nullptr);
  EXPECT_EQ(pod1->node_begin, 36u);
  EXPECT_EQ(pod1->node_end, 45u);
  EXPECT_NE(cluster.FindDomain("pod1-leaf0-rack0"), nullptr);
  for (const Node& node : cluster.nodes()) {
    for (uint32_t level = 0; level < 4; ++level) {
      const Domain& ancestor = cluster.domain(cluster.AncestorAt(node.id, level));
      EXPECT_EQ(ancestor.level, level);
      EXPECT_LE(ancestor.node_begin, node.id.value());
      EXPECT_GT(ancestor.node_end, node.id.value());
    }
  }
}

TEST(ClusterGeneratorTest, PartialLastRackAndFacility) {
  // 11 nodes, 4 per rack: racks of 4, 4, 3; cooling sized for full racks of 10.2 kW nodes.
  const Cluster cluster = GenerateOrDie({.devices = 88, .nvlink_domain = 32});
  ASSERT_EQ(cluster.domains_at_level(3).size(), 3u);
  const Domain& last = cluster.domain(cluster.domains_at_level(3).back());
  EXPECT_EQ(last.node_end - last.node_begin, 3u);
  const Facility& facility = cluster.facility();
  ASSERT_EQ(facility.cooling_zones.size(), 3u);
  EXPECT_EQ(facility.cooling_zones[0].name, "pod0-leaf0-rack0");
  EXPECT_EQ(facility.cooling_zones[2].cooling_capacity_w, 4 * 10'200);
  ASSERT_EQ(facility.power_domains.size(), 1u);
  EXPECT_EQ(facility.power_domains[0].name, "pod0-power");
  EXPECT_EQ(facility.power_domains[0].limit_w, 4 * 16 * 8 * 10'200);
  EXPECT_EQ(cluster.domain(facility.power_domains[0].domains.at(0)).name, "pod0");
}

TEST(ClusterGeneratorTest, NvlinkDomainRoundsDownToWholeNodesAndAtLeastOne) {
  EXPECT_EQ(GenerateOrDie({.devices = 80, .nvlink_domain = 20}).domains_at_level(3).size(), 5u);
  EXPECT_EQ(GenerateOrDie({.devices = 80, .nvlink_domain = 3}).domains_at_level(3).size(), 10u);
}

TEST(ClusterGeneratorTest, OptionsAreHonoured) {
  const Cluster cluster = GenerateOrDie({.devices = 16,
                                         .devices_per_node = 4,
                                         .model = "MI300X",
                                         .memory_gib = 192,
                                         .cpu_milli_per_node = 1000,
                                         .memory_gib_per_node = 1,
                                         .node_max_power_w = 100,
                                         .cooling_w_per_rack = 7,
                                         .power_limit_w_per_pod = 9,
                                         .name = "lab"});
  EXPECT_EQ(cluster.nodes().size(), 4u);
  EXPECT_EQ(cluster.domain(DomainId(0)).name, "lab");
  EXPECT_EQ(ToString(cluster.device_classes()[0].attributes), "memory_gib=192, model=\"MI300X\"");
  EXPECT_EQ(cluster.nodes()[0].memory_mib, 1024);
  EXPECT_EQ(cluster.facility().cooling_zones[0].cooling_capacity_w, 7);
  EXPECT_EQ(cluster.facility().power_domains[0].limit_w, 9);
}

TEST(ClusterGeneratorTest, HundredThousandDevices) {
  const Cluster cluster = GenerateOrDie({.devices = 100'000});
  EXPECT_EQ(cluster.device_count(), 100'000u);
  EXPECT_EQ(cluster.nodes().size(), 12'500u);
  EXPECT_EQ(cluster.domains_at_level(3).size(), 1389u);  // ceil(12500 / 9)
  EXPECT_EQ(cluster.domains_at_level(2).size(), 87u);    // ceil(1389 / 16)
  EXPECT_EQ(cluster.domains_at_level(1).size(), 11u);    // ceil(87 / 8)
  EXPECT_EQ(cluster.nodes().back().name, "pod10-leaf6-rack12-n7");
}

TEST(ClusterGeneratorTest, RejectsBadOptions) {
  EXPECT_EQ(ErrorOf({.devices = 0}),
            "generator option 'devices': expected a positive multiple of devices_per_node (8), at "
            "most 4194304, got 0");
  EXPECT_EQ(ErrorOf({.devices = 100}),
            "generator option 'devices': expected a positive multiple of devices_per_node (8), at "
            "most 4194304, got 100");
  EXPECT_EQ(ErrorOf({.devices = 8, .devices_per_node = 0}),
            "generator option 'devices_per_node': expected an integer from 1 to 1024, got 0");
  EXPECT_EQ(ErrorOf({.devices = 8, .nvlink_domain = 0}),
            "generator option 'nvlink_domain': expected an integer from 1 to 4194304, got 0");
  EXPECT_EQ(ErrorOf({.devices = 8, .racks_per_leaf = -1}),
            "generator option 'racks_per_leaf': expected an integer from 1 to 4194304, got -1");
  EXPECT_EQ(ErrorOf({.devices = 8, .model = ""}),
            "generator option 'model': expected a device model name, got \"\"");
  EXPECT_EQ(ErrorOf({.devices = 8, .memory_gib = 0}),
            "generator option 'memory_gib': expected a positive number of GiB, got 0");
  EXPECT_EQ(ErrorOf({.devices = 8, .cpu_milli_per_node = -5}),
            "generator option 'cpu_milli_per_node': expected a non-negative integer, got -5");
  EXPECT_EQ(ErrorOf({.devices = 8, .cooling_w_per_rack = -1}),
            "generator option 'cooling_w_per_rack': expected a non-negative number of watts (0 "
            "for the default), got -1");
}

}  // namespace
}  // namespace headroom::model
