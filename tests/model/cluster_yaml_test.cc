#include "model/cluster_yaml.h"

#include <string>

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

std::string SourcePath(std::string_view relative) {
  return std::string(HEADROOM_SOURCE_DIR) + "/" + std::string(relative);
}

// The error message of parsing `text` as "test.yaml" (empty if it parsed).
std::string ErrorOf(std::string_view text, const ClusterYamlLimits& limits = {}) {
  auto cluster = ParseClusterYaml(text, "test.yaml", limits);
  if (cluster) return "";
  EXPECT_EQ(cluster.error().message.find('\n'), std::string::npos) << cluster.error().message;
  return cluster.error().message;
}

Cluster ParseOrDie(std::string_view text) {
  auto cluster = ParseClusterYaml(text, "test.yaml");
  EXPECT_TRUE(cluster) << cluster.error().message;
  return cluster ? std::move(*cluster) : Cluster();
}

constexpr std::string_view kTwoRacks = R"(levels: [cluster, pod, rack]
name: site
device_classes:
  h100: {model: H100, memory_gib: 80}
node_templates:
  dgx: {cpu_milli: 224000, memory_gib: 2048, devices: {count: 8, class: h100}}
topology:
  - name: pod0
    children:
      - name: rack0
        nodes:
          - {name: a, template: dgx}
          - {count: 2, template: dgx}
      - name: rack1
        nodes:
          - {name: t4, cpu_milli: 64000, memory_mib: 262144, devices: {count: 2, model: T4, memory_gib: 16}}
)";

TEST(ClusterYamlTest, LoadsSmallConfig) {
  auto cluster = LoadClusterYaml(SourcePath("configs/small.yaml"));
  ASSERT_TRUE(cluster) << cluster.error().message;
  EXPECT_EQ(cluster->level_names(), (std::vector<std::string>{"cluster", "pod", "leaf", "rack"}));
  EXPECT_EQ(cluster->domain(DomainId(0)).name, "small");
  ASSERT_EQ(cluster->nodes().size(), 4u);
  EXPECT_EQ(cluster->nodes()[0].name, "rack0-n0");
  EXPECT_EQ(cluster->nodes()[1].name, "rack0-n1");
  EXPECT_EQ(cluster->nodes()[3].name, "l4-0");
  EXPECT_EQ(cluster->nodes()[3].memory_mib, 262144);
  EXPECT_EQ(cluster->nodes()[0].memory_mib, 2048 * 1024);
  EXPECT_EQ(cluster->device_count(), 28u);
  ASSERT_EQ(cluster->device_classes().size(), 3u);
  EXPECT_EQ(cluster->device_classes()[2].model, "L4");
  EXPECT_EQ(ToString(cluster->device_classes()[0].attributes),
            "interconnect=\"nvlink\", memory_gib=80, model=\"H100\"");
  const Facility& facility = cluster->facility();
  ASSERT_EQ(facility.cooling_zones.size(), 2u);
  EXPECT_EQ(facility.cooling_zones[0].name, "rack0");
  EXPECT_EQ(facility.cooling_zones[0].cooling_capacity_w, 20400);
  EXPECT_EQ(cluster->domain(facility.cooling_zones[1].domain).name, "rack1");
  ASSERT_EQ(facility.power_domains.size(), 3u);
  EXPECT_EQ(facility.power_domains[2].parent, "feed-a");
  EXPECT_EQ(facility.power_domains[2].limit_w, 9000);
  EXPECT_EQ(cluster->domain(facility.power_domains[0].domains.at(0)).name, "pod0");
}

TEST(ClusterYamlTest, LoadsTinyTestConfig) {
  auto cluster = LoadClusterYaml(SourcePath("configs/tiny-test.yaml"));
  ASSERT_TRUE(cluster) << cluster.error().message;
  std::vector<std::string> names;
  for (const Node& node : cluster->nodes()) names.push_back(node.name);
  EXPECT_EQ(names, (std::vector<std::string>{"rack0-n0", "rack0-n1", "rack1-n0", "rack1-n1"}));
  EXPECT_EQ(cluster->device_count(), 16u);
  EXPECT_EQ(cluster->facility().cooling_zones[0].cooling_capacity_w, 1500);
}

TEST(ClusterYamlTest, TemplatesNamesAndInlineDevices) {
  const Cluster cluster = ParseOrDie(kTwoRacks);
  std::vector<std::string> names;
  for (const Node& node : cluster.nodes()) names.push_back(node.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "rack0-n0", "rack0-n1", "t4"}));
  EXPECT_EQ(cluster.device_count(), 26u);
  EXPECT_EQ(cluster.FindNode("t4")->cpu_milli, 64000);
  EXPECT_EQ(cluster.FindNode("rack0-n1")->cpu_milli, 224000);
  ASSERT_EQ(cluster.device_classes().size(), 2u);
  EXPECT_EQ(ToString(cluster.device_classes()[1].attributes), "memory_gib=16, model=\"T4\"");
  EXPECT_EQ(cluster.domain(cluster.AncestorAt(cluster.FindNode("t4")->id, 1)).name, "pod0");
}

TEST(ClusterYamlTest, RepeatedDomainsGetDefaultNames) {
  const Cluster cluster = ParseOrDie(R"(levels: [cluster, pod, leaf, rack]
node_templates: {n: {cpu_milli: 1, memory_mib: 1, devices: {count: 2, model: X}}}
topology:
  - count: 2
    children:
      - count: 2
        first: 5
        children:
          - {count: 3, nodes: [{count: 2, template: n}]}
  - name: extra
    children:
      - {count: 1, name_prefix: "edge-", children: [{name: r, nodes: [{count: 1, template: n, name_prefix: x}]}]}
)");
  EXPECT_EQ(cluster.nodes().size(), 2u * 2 * 3 * 2 + 1);
  EXPECT_NE(cluster.FindDomain("pod1-leaf6"), nullptr);
  EXPECT_NE(cluster.FindDomain("pod1-leaf6-rack2"), nullptr);
  EXPECT_NE(cluster.FindNode("pod1-leaf6-rack2-n1"), nullptr);
  EXPECT_EQ(cluster.nodes()[0].name, "pod0-leaf5-rack0-n0");
  EXPECT_NE(cluster.FindDomain("edge-0"), nullptr);
  EXPECT_NE(cluster.FindNode("x0"), nullptr);
}

TEST(ClusterYamlTest, FlatClusterListsNodesAtTopLevel) {
  const Cluster cluster = ParseOrDie(R"(levels: [cluster]
name: flat
nodes:
  - {name: cpu, cpu_milli: 1000, memory_gib: 4}
  - {name: gpu, cpu_milli: 1000, memory_gib: 4, devices: [{count: 1, model: A}, {count: 2, model: B}]}
)");
  ASSERT_EQ(cluster.nodes().size(), 2u);
  EXPECT_EQ(cluster.nodes()[0].device_count, 0u);
  EXPECT_EQ(cluster.nodes()[1].device_count, 3u);
  EXPECT_EQ(cluster.device_classes().size(), 2u);
  EXPECT_EQ(cluster.device(DeviceId(2)).index_on_node, 2u);
}

TEST(ClusterYamlTest, PlainNumbersAreNumbersAndQuotedNumbersAreText) {
  const Cluster cluster = ParseOrDie(R"(levels: [cluster]
nodes:
  - name: n
    cpu_milli: 0
    memory_mib: 0
    devices: {count: 1, model: "4090", attributes: {sm: 89, rev: "2", mig: "no", nv: true}}
)");
  ASSERT_EQ(cluster.device_classes().size(), 1u);
  EXPECT_EQ(ToString(cluster.device_classes()[0].attributes),
            "mig=\"no\", model=\"4090\", nv=\"true\", rev=\"2\", sm=89");
}

TEST(ClusterYamlTest, ErrorNamesFileLineFieldExpectedAndGot) {
  const std::string text = R"(levels: [cluster, rack]
topology:
  - name: r0
    nodes:
      - {name: n0, cpu_milli: 1, memory_mib: 1}
      - name: n1
        cpu_milli: 1
        memory_mib: 1
        devices: {count: abc, model: T4}
)";
  EXPECT_EQ(ErrorOf(text),
            "test.yaml:9: field 'topology[0].nodes[1].devices.count': expected a positive "
            "integer (at most 1024 devices per node), got \"abc\"");
}

TEST(ClusterYamlTest, UnknownKeyListsAllowedKeys) {
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes:\n  - {name: n, cpu_milli: 1, memroy_mib: 1}\n"),
            "test.yaml:3: field 'nodes[0].memroy_mib': expected one of the keys name, count, "
            "name_prefix, first, template, cpu_milli, memory_mib, memory_gib, devices, got "
            "unknown key \"memroy_mib\"");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nlevel: 3\n"),
            "test.yaml:2: field 'level': expected one of the keys levels, name, device_classes, "
            "node_templates, topology, nodes, facility, got unknown key \"level\"");
}

TEST(ClusterYamlTest, SyntaxErrorsHaveLines) {
  EXPECT_EQ(ErrorOf("levels: [cluster\nname: x\n"),
            "test.yaml:2: YAML syntax error: end of sequence flow not found");
  EXPECT_EQ(ErrorOf("levels: [a]\n---\nlevels: [b]\n"),
            "test.yaml:2: document: expected one YAML document, got a second one");
  // yaml-cpp 0.7 reports endless empty documents after a stray ',' (found by the fuzzer).
  EXPECT_EQ(ErrorOf(","), "test.yaml:1: YAML syntax error: unexpected \",\"");
  EXPECT_EQ(ErrorOf("# comment\n,levels: [a]\n"),
            "test.yaml:2: YAML syntax error: unexpected \",\"");
  // JSON is YAML: one JSON object loads, with its lines; anything after it is still found.
  EXPECT_EQ(ErrorOf("{\"levels\": [\"cluster\"],\n \"nodes\": [{\"name\": \"n\"}]}"),
            "test.yaml:2: field 'nodes[0].cpu_milli': expected a non-negative integer (on the node "
            "or its template), got nothing");
  EXPECT_EQ(ErrorOf("{\"levels\": [\"a\"]}\n---\n{\"levels\": [\"b\"]}\n"),
            "test.yaml:2: document: expected one YAML document, got a second one");
  EXPECT_EQ(ErrorOf("{\"levels\": [\"a\"]} ,"),
            "test.yaml:1: document: expected one YAML document, got a second one");
}

// Every YAML loader refuses bytes that are not UTF-8, naming where the first one is.
TEST(ClusterYamlTest, TextThatIsNotUtf8IsRefusedWithItsLineAndColumn) {
  EXPECT_EQ(ErrorOf("levels: [a]\nname: caf\xe9\n"),
            "test.yaml:2: expected UTF-8 text, got byte 0xE9 at column 10; save the file as UTF-8");
  // Overlong forms, surrogates and cut sequences are not UTF-8 either, in comments too.
  EXPECT_EQ(ErrorOf("# \xc0\xaf\n"),
            "test.yaml:1: expected UTF-8 text, got byte 0xC0 at column 3; save the file as UTF-8");
  EXPECT_EQ(ErrorOf("levels: [a] # \xed\xa0\x80"),
            "test.yaml:1: expected UTF-8 text, got byte 0xED at column 15; save the file as UTF-8");
  EXPECT_EQ(ErrorOf("levels: [a]\n\n# \xe2\x82"),
            "test.yaml:3: expected UTF-8 text, got byte 0xE2 at column 3; save the file as UTF-8");
  // Well-formed text past ASCII is fine.
  EXPECT_EQ(ErrorOf("levels: [a]\nname: caf\xc3\xa9 \xf0\x9f\x9a\x80\n").find("expected UTF-8"),
            std::string::npos);
}

TEST(ClusterYamlTest, DocumentShapeErrors) {
  EXPECT_EQ(ErrorOf(""),
            "test.yaml:1: document: expected a cluster description with 'levels' and "
            "'topology', got nothing");
  EXPECT_EQ(ErrorOf("- a\n"),
            "test.yaml:1: document: expected a map of top-level keys, got a list");
  EXPECT_EQ(ErrorOf("name: x\n"),
            "test.yaml:1: field 'levels': expected a list of topology level names, got nothing");
  EXPECT_EQ(ErrorOf("levels: []\n"),
            "test.yaml:1: field 'levels': expected between 1 and 16 level names, top to bottom, "
            "got 0 names");
  EXPECT_EQ(ErrorOf("levels: [a, b, a]\n"),
            "test.yaml:1: field 'levels[2]': expected unique level names, got a second \"a\"");
  EXPECT_EQ(ErrorOf("levels: [a]\nlevels: [b]\n"),
            "test.yaml:2: field 'levels': expected each key once, got a second \"levels\"");
}

TEST(ClusterYamlTest, DepthMustMatchLevels) {
  EXPECT_EQ(ErrorOf("levels: [cluster, pod, rack]\ntopology:\n  - name: p\n    nodes: []\n"),
            "test.yaml:4: field 'topology[0].nodes': expected nodes only at the deepest level "
            "'rack', not at level 'pod' (levels: cluster > pod > rack), got a list");
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\ntopology:\n  - name: r\n    children: [{name: s}]\n"),
            "test.yaml:4: field 'topology[0].children': expected no 'children' at the deepest "
            "level 'rack' (levels: cluster > rack), got a list");
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\nnodes: []\n"),
            "test.yaml:2: field 'nodes': expected nodes only at the deepest level 'rack' (inside "
            "'topology'), got a list");
  EXPECT_EQ(ErrorOf("levels: [cluster]\ntopology: []\n"),
            "test.yaml:2: field 'topology': expected no 'topology' with the single level "
            "'cluster' (list the nodes under 'nodes'), got a list");
}

TEST(ClusterYamlTest, NamesMustBeUnique) {
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\ntopology:\n  - {name: r, nodes: [{name: n, "
                    "cpu_milli: 1, memory_mib: 1}]}\n  - name: s\n    nodes:\n      - {count: 2, "
                    "name_prefix: x, cpu_milli: 1, memory_mib: 1}\n      - {name: x1, cpu_milli: "
                    "1, memory_mib: 1}\n"),
            "test.yaml:7: field 'topology[1].nodes[1]': expected unique node names, got a second "
            "node named \"x1\"");
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\ntopology: [{count: 2}, {name: rack1}]\n"),
            "test.yaml:2: field 'topology[1]': expected unique domain names, got a second domain "
            "named \"rack1\"");
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\nname: x\ntopology: [{name: x}]\n"),
            "test.yaml:3: field 'topology[0]': expected unique domain names, got a second domain "
            "named \"x\"");
}

TEST(ClusterYamlTest, EntryShapeErrors) {
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\ntopology:\n  - {nodes: []}\n"),
            "test.yaml:3: field 'topology[0].name': expected a rack name (or 'count' for repeated "
            "racks), got nothing");
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\ntopology:\n  - {name: a, count: 2}\n"),
            "test.yaml:3: field 'topology[0].count': expected either 'name' or 'count' (with "
            "'name_prefix' and 'first') on one rack, got both");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, memory_mib: 1}]\n"),
            "test.yaml:2: field 'nodes[0].cpu_milli': expected a non-negative integer (on the node "
            "or its template), got nothing");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, cpu_milli: -1, memory_mib: 1}]\n"),
            "test.yaml:2: field 'nodes[0].cpu_milli': expected a non-negative integer, got \"-1\"");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, cpu_milli: 1, memory_mib: 1, "
                    "memory_gib: 1}]\n"),
            "test.yaml:2: field 'nodes[0].memory_gib': expected only one of memory_mib and "
            "memory_gib, got both");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, template: dgx}]\n"),
            "test.yaml:2: field 'nodes[0].template': expected a template defined under "
            "'node_templates' (none defined), got \"dgx\"");
  EXPECT_EQ(ErrorOf("levels: [cluster]\ndevice_classes: {a: {}, b: {}}\nnodes: [{name: n, "
                    "cpu_milli: 1, memory_mib: 1, devices: {count: 1, class: c}}]\n"),
            "test.yaml:3: field 'nodes[0].devices.class': expected a class defined under "
            "'device_classes' (a, b), got \"c\"");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, cpu_milli: 1, memory_mib: 1, devices: "
                    "{count: 1, memory_gib: 0}}]\n"),
            "test.yaml:2: field 'nodes[0].devices.memory_gib': expected a positive number of GiB, "
            "got \"0\"");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, cpu_milli: 1, memory_mib: 1, devices: "
                    "{count: 1, model: a, attributes: {model: b}}}]\n"),
            "test.yaml:2: field 'nodes[0].devices.model': expected 'model' once, got it under "
            "'attributes' too");
  EXPECT_EQ(
      ErrorOf("levels: [cluster]\nnodes: [{name: \"a\\x01\", cpu_milli: 1, memory_mib: 1}]\n"),
      "test.yaml:2: field 'nodes[0].name': expected a name without control characters, got "
      "\"a\\x01\"");
}

TEST(ClusterYamlTest, HugeNumbersAndCapsAreErrors) {
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, cpu_milli: 99999999999999999999999, "
                    "memory_mib: 1}]\n"),
            "test.yaml:2: field 'nodes[0].cpu_milli': expected a non-negative integer, got "
            "\"99999999999999999999999\"");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{name: n, cpu_milli: 1, memory_mib: 1, devices: "
                    "[{count: 1000, model: a}, {count: 1000, model: b}]}]\n"),
            "test.yaml:2: field 'nodes[0].devices': expected at most 1024 devices per node, got "
            "more than 1024");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{count: 2000000, cpu_milli: 1, memory_mib: 1}]\n"),
            "test.yaml:2: field 'nodes[0].count': expected a positive integer (at most 1000000), "
            "got \"2000000\"");
  ClusterYamlLimits small{.max_nodes = 10, .max_domains = 10, .max_devices = 20};
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{count: 8, cpu_milli: 1, memory_mib: 1}, {count: "
                    "3, name_prefix: m, cpu_milli: 1, memory_mib: 1}]\n",
                    small),
            "test.yaml:2: field 'nodes[1]': expected at most 10 nodes in one cluster, got 11 or "
            "more");
  EXPECT_EQ(ErrorOf("levels: [cluster]\nnodes: [{count: 3, cpu_milli: 1, memory_mib: 1, devices: "
                    "{count: 8, model: a}}]\n",
                    small),
            "test.yaml:2: field 'nodes[0]': expected at most 20 devices in one cluster, got 24 or "
            "more");
  EXPECT_EQ(ErrorOf("levels: [cluster, rack]\ntopology: [{count: 10}]\n", small),
            "test.yaml:2: field 'topology[0]': expected at most 10 domains in one cluster, got 11 "
            "or more");
}

TEST(ClusterYamlTest, FacilityErrors) {
  const std::string head = "levels: [cluster, rack]\ntopology: [{name: r0}]\nfacility:\n";
  EXPECT_EQ(ErrorOf(head + "  cooling: [{domain: r9, capacity_kw: 1}]\n"),
            "test.yaml:4: field 'facility.cooling[0].domain': expected the name of a topology "
            "domain, got \"r9\"");
  EXPECT_EQ(ErrorOf(head + "  cooling: [{domain: r0, capacity_kw: -3}]\n"),
            "test.yaml:4: field 'facility.cooling[0].capacity_kw': expected a positive number of "
            "kW, got \"-3\"");
  EXPECT_EQ(ErrorOf(head + "  cooling: [{domain: r0, capacity_kw: abc}]\n"),
            "test.yaml:4: field 'facility.cooling[0].capacity_kw': expected a positive number of "
            "kW, got \"abc\"");
  EXPECT_EQ(ErrorOf(head + "  cooling: [{domain: r0}]\n"),
            "test.yaml:4: field 'facility.cooling[0].capacity_kw': expected a positive number of "
            "kW, got nothing");
  EXPECT_EQ(ErrorOf(head + "  power: [{name: a, limit_kw: 1, parent: b}]\n"),
            "test.yaml:4: field 'facility.power[0].parent': expected the name of another power "
            "domain (a), got \"b\"");
  EXPECT_EQ(ErrorOf(head + "  power:\n    - {name: a, limit_kw: 1, parent: b}\n    - {name: b, "
                           "limit_kw: 1, parent: a}\n"),
            "test.yaml:5: field 'facility.power[0].parent': expected a chain of parents that "
            "ends, got a cycle through \"a\"");
  EXPECT_EQ(ErrorOf(head + "  power: [{name: a, domains: [r0, r0], limit_kw: 1}]\n"),
            "test.yaml:4: field 'facility.power[0].domains[1]': expected each domain once, got "
            "\"r0\"");
  EXPECT_EQ(ErrorOf(head + "  power: [{name: a, limit_kw: 1}, {name: a, limit_kw: 2}]\n"),
            "test.yaml:4: field 'facility.power[1].name': expected unique power domain names, got "
            "a second \"a\"");
  EXPECT_EQ(ErrorOf(head + "  power: [{name: a, limit_kw: 0.0001}]\n"),
            "test.yaml:4: field 'facility.power[0].limit_kw': expected a positive number of kW "
            "(at least 0.001), got \"0.0001\"");
}

TEST(ClusterYamlTest, FacilityPerLevelEntries) {
  const Cluster cluster = ParseOrDie(R"(levels: [cluster, pod, rack]
topology:
  - {count: 2, children: [{count: 3}]}
facility:
  cooling:
    - {level: rack, capacity_kw: 91.8}
    - {name: whole, domain: cluster, capacity_kw: 1000}
  power:
    - {level: pod, limit_kw: 500}
    - {level: rack, limit_kw: 100, name_suffix: "-pdu"}
    - {name: feed, domains: [pod0, pod1], limit_kw: 900}
)");
  const Facility& facility = cluster.facility();
  ASSERT_EQ(facility.cooling_zones.size(), 7u);
  EXPECT_EQ(facility.cooling_zones[4].name, "pod1-rack1");
  EXPECT_EQ(facility.cooling_zones[4].cooling_capacity_w, 91800);
  EXPECT_EQ(cluster.domain(facility.cooling_zones[4].domain).name, "pod1-rack1");
  EXPECT_EQ(facility.cooling_zones[6].name, "whole");
  ASSERT_EQ(facility.power_domains.size(), 2u + 6 + 1);
  EXPECT_EQ(facility.power_domains[1].name, "pod1-power");
  EXPECT_EQ(cluster.domain(facility.power_domains[1].domains.at(0)).name, "pod1");
  EXPECT_EQ(facility.power_domains[7].name, "pod1-rack2-pdu");
  EXPECT_EQ(facility.power_domains[7].limit_w, 100000);
}

TEST(ClusterYamlTest, FacilityPerLevelErrors) {
  const std::string head = "levels: [cluster, rack]\ntopology: [{count: 2}]\nfacility:\n";
  EXPECT_EQ(ErrorOf(head + "  cooling: [{level: pod, capacity_kw: 1}]\n"),
            "test.yaml:4: field 'facility.cooling[0].level': expected a topology level (cluster, "
            "rack), got \"pod\"");
  EXPECT_EQ(ErrorOf(head + "  cooling: [{level: rack, domain: rack0, capacity_kw: 1}]\n"),
            "test.yaml:4: field 'facility.cooling[0].domain': expected either 'level' or 'domain' "
            "(with 'name') on one entry, got both");
  EXPECT_EQ(ErrorOf(head + "  cooling: [{level: rack, capacity_kw: 1}, {domain: rack1, "
                           "capacity_kw: 2}]\n"),
            "test.yaml:4: field 'facility.cooling[1]': expected unique cooling zone names, got a "
            "second zone named \"rack1\"");
  EXPECT_EQ(ErrorOf(head + "  power: [{level: rack, limit_kw: 1, parent: x}]\n"),
            "test.yaml:4: field 'facility.power[0].parent': expected either 'level' or 'name' "
            "(with 'domains' and 'parent') on one entry, got both");
  EXPECT_EQ(ErrorOf(head + "  power: [{name: a, limit_kw: 1, name_suffix: x}]\n"),
            "test.yaml:4: field 'facility.power[0].name_suffix': expected 'name_suffix' only with "
            "'level', got \"x\"");
  EXPECT_EQ(ErrorOf(head + "  power: [{domains: [rack0], limit_kw: 1}]\n"),
            "test.yaml:4: field 'facility.power[0].name': expected a power domain name (or "
            "'level'), got nothing");
}

TEST(ClusterYamlTest, CyclicAliasesEndInAnError) {
  EXPECT_NE(ErrorOf("levels: [cluster, a, b]\ntopology: &t [{count: 2, children: *t}]\n"), "");
  EXPECT_NE(ErrorOf("&x [*x]"), "");
  EXPECT_NE(ErrorOf("levels: &l [*l]\n"), "");
}

TEST(ClusterYamlTest, ExpansionIsCappedBeforeItHappens) {
  // A million racks of a million 1024-GPU nodes: refused before any node is made.
  EXPECT_EQ(ErrorOf(R"(levels: [cluster, rack]
node_templates: {big: {cpu_milli: 1, memory_mib: 1, devices: {count: 1024, model: x}}}
topology:
  - {count: 999999, nodes: [{count: 1000000, template: big}]}
)"),
            "test.yaml:4: field 'topology[0].nodes[0]': expected at most 4194304 devices in one "
            "cluster, got 1024000000 or more");
  const std::string nested = R"(levels: [cluster, a, b, c]
topology:
  - count: 1000
    children:
      - count: 1000
        children:
          - count: 1000
)";
  EXPECT_EQ(ErrorOf(nested, ClusterYamlLimits{.max_domains = 5000}),
            "test.yaml:7: field 'topology[0].children[0].children[0]': expected at most 5000 "
            "domains in one cluster, got 5001 or more");
}

}  // namespace
}  // namespace headroom::model
