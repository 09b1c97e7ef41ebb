// ExpectSameCluster: asserts that two clusters are the same building — levels, domains (names,
// levels, parents, children, node ranges), nodes (names, domains, resources, devices), device
// classes (attributes, in order) and facility — reporting the first difference of each kind.
// DumpCluster writes all of that as text, for properties (RC_ASSERT on equal dumps).
// For round-trip tests of writers and loaders.
#pragma once

#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "model/cluster.h"

namespace headroom::testing {

inline std::string DumpCluster(const model::Cluster& cluster) {
  std::string out = fmt::format("levels {}\n", fmt::join(cluster.level_names(), " > "));
  for (const model::Domain& domain : cluster.domains()) {
    out += fmt::format("domain {} '{}' level {} parent {} nodes [{}, {})\n", domain.id.value(),
                       domain.name, domain.level, domain.parent.value(), domain.node_begin,
                       domain.node_end);
  }
  for (const model::Node& node : cluster.nodes()) {
    out += fmt::format("node '{}' domain {} cpu {} mem {} devices", node.name, node.domain.value(),
                       node.cpu_milli, node.memory_mib);
    for (uint32_t i = 0; i < node.device_count; ++i) {
      out +=
          fmt::format(" {}", cluster.device(DeviceId(node.first_device + i)).device_class.value());
    }
    out += "\n";
  }
  for (const model::DeviceClass& device_class : cluster.device_classes()) {
    out += fmt::format("class {} {}\n", device_class.id.value(), ToString(device_class.attributes));
  }
  for (const model::CoolingZone& zone : cluster.facility().cooling_zones) {
    out += fmt::format("cooling '{}' domain {} {} W\n", zone.name, zone.domain.value(),
                       zone.cooling_capacity_w);
  }
  for (const model::PowerDomain& power : cluster.facility().power_domains) {
    std::vector<uint32_t> domains;
    for (DomainId id : power.domains) domains.push_back(id.value());
    out += fmt::format("power '{}' domains [{}] {} W parent '{}'\n", power.name,
                       fmt::join(domains, ", "), power.limit_w, power.parent);
  }
  return out;
}

inline void ExpectSameCluster(const model::Cluster& expected, const model::Cluster& actual) {
  EXPECT_EQ(expected.level_names(), actual.level_names());
  ASSERT_EQ(expected.domains().size(), actual.domains().size());
  for (size_t i = 0; i < expected.domains().size(); ++i) {
    const model::Domain& a = expected.domains()[i];
    const model::Domain& b = actual.domains()[i];
    ASSERT_EQ(a.name, b.name) << "domain " << i;
    ASSERT_EQ(a.level, b.level) << a.name;
    ASSERT_EQ(a.parent, b.parent) << a.name;
    ASSERT_EQ(a.children, b.children) << a.name;
    ASSERT_EQ(a.node_begin, b.node_begin) << a.name;
    ASSERT_EQ(a.node_end, b.node_end) << a.name;
  }
  ASSERT_EQ(expected.nodes().size(), actual.nodes().size());
  for (size_t i = 0; i < expected.nodes().size(); ++i) {
    const model::Node& a = expected.nodes()[i];
    const model::Node& b = actual.nodes()[i];
    ASSERT_EQ(a.name, b.name) << "node " << i;
    ASSERT_EQ(a.domain, b.domain) << a.name;
    ASSERT_EQ(a.cpu_milli, b.cpu_milli) << a.name;
    ASSERT_EQ(a.memory_mib, b.memory_mib) << a.name;
    ASSERT_EQ(a.first_device, b.first_device) << a.name;
    ASSERT_EQ(a.device_count, b.device_count) << a.name;
  }
  ASSERT_EQ(expected.devices().size(), actual.devices().size());
  for (size_t i = 0; i < expected.devices().size(); ++i) {
    ASSERT_EQ(expected.devices()[i].node, actual.devices()[i].node) << "device " << i;
    ASSERT_EQ(expected.devices()[i].device_class, actual.devices()[i].device_class)
        << "device " << i;
    ASSERT_EQ(expected.devices()[i].index_on_node, actual.devices()[i].index_on_node)
        << "device " << i;
  }
  ASSERT_EQ(expected.device_classes().size(), actual.device_classes().size());
  for (size_t i = 0; i < expected.device_classes().size(); ++i) {
    const model::DeviceClass& a = expected.device_classes()[i];
    const model::DeviceClass& b = actual.device_classes()[i];
    EXPECT_EQ(a.attributes, b.attributes)
        << ToString(a.attributes) << " vs " << ToString(b.attributes);
    EXPECT_EQ(a.model, b.model);
  }
  const model::Facility& fa = expected.facility();
  const model::Facility& fb = actual.facility();
  ASSERT_EQ(fa.cooling_zones.size(), fb.cooling_zones.size());
  for (size_t i = 0; i < fa.cooling_zones.size(); ++i) {
    EXPECT_EQ(fa.cooling_zones[i].name, fb.cooling_zones[i].name);
    EXPECT_EQ(fa.cooling_zones[i].domain, fb.cooling_zones[i].domain);
    EXPECT_EQ(fa.cooling_zones[i].cooling_capacity_w, fb.cooling_zones[i].cooling_capacity_w);
  }
  ASSERT_EQ(fa.power_domains.size(), fb.power_domains.size());
  for (size_t i = 0; i < fa.power_domains.size(); ++i) {
    EXPECT_EQ(fa.power_domains[i].name, fb.power_domains[i].name);
    EXPECT_EQ(fa.power_domains[i].domains, fb.power_domains[i].domains);
    EXPECT_EQ(fa.power_domains[i].limit_w, fb.power_domains[i].limit_w);
    EXPECT_EQ(fa.power_domains[i].parent, fb.power_domains[i].parent);
  }
}

}  // namespace headroom::testing
