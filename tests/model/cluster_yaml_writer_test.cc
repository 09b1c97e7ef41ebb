#include "model/cluster_yaml_writer.h"

#include <string>

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "model/cluster_builder.h"
#include "model/cluster_generator.h"
#include "model/cluster_yaml.h"
#include "testing/cluster_compare.h"

namespace headroom::model {
namespace {

using ::headroom::testing::DumpCluster;
using ::headroom::testing::ExpectSameCluster;

// Writes, parses back, compares, and checks that writing again gives the same bytes.
void ExpectRoundTrip(const Cluster& cluster) {
  const std::string text = WriteClusterYaml(cluster);
  auto parsed = ParseClusterYaml(text, "written.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message << "\n" << text;
  ExpectSameCluster(cluster, *parsed);
  EXPECT_EQ(WriteClusterYaml(*parsed), text);
}

TEST(ClusterYamlWriterTest, RoundTripsTheExampleConfigs) {
  for (const char* config : {"configs/small.yaml", "configs/tiny-test.yaml"}) {
    SCOPED_TRACE(config);
    auto cluster = LoadClusterYaml(std::string(HEADROOM_SOURCE_DIR) + "/" + config);
    ASSERT_TRUE(cluster) << cluster.error().message;
    ExpectRoundTrip(*cluster);
  }
}

TEST(ClusterYamlWriterTest, WritesAGeneratedBuildingCompactly) {
  auto cluster = GenerateCluster({.devices = 1024, .devices_per_node = 8, .nvlink_domain = 32});
  ASSERT_TRUE(cluster) << cluster.error().message;
  EXPECT_EQ(WriteClusterYaml(*cluster),
            R"(# headroom cluster: 128 nodes, 1024 devices, 1 device classes
levels: [cluster, pod, leaf, rack]
name: cluster
device_classes:
  H100: {model: H100, memory_gib: 80}
node_templates:
  8xH100: {cpu_milli: 224000, memory_gib: 2048, devices: {count: 8, class: H100}}
topology:
  - name: pod0
    children:
      - count: 2
        children:
          - count: 16
            nodes:
              - {count: 4, template: 8xH100}
facility:
  cooling:
    - {level: rack, capacity_kw: 40.8}
  power:
    - {level: pod, limit_kw: 5222.4}
)");
  ExpectRoundTrip(*cluster);
}

TEST(ClusterYamlWriterTest, HundredThousandDevicesFitOnAPage) {
  auto cluster = GenerateCluster({.devices = 100'000});
  ASSERT_TRUE(cluster) << cluster.error().message;
  const std::string text = WriteClusterYaml(*cluster);
  EXPECT_LT(std::count(text.begin(), text.end(), '\n'), 40) << text;
  ExpectRoundTrip(*cluster);
}

// Names and values that need quoting, numbers that are text, odd name patterns, heterogeneous
// nodes and a facility that cannot be folded.
TEST(ClusterYamlWriterTest, QuotesWhatPlainYamlWouldMisread) {
  ClusterBuilder builder({"top level", "rack"}, "site: #1");
  const DomainId a = builder.AddDomain(builder.root(), "rack 7");
  const DomainId b = builder.AddDomain(builder.root(), "007");
  Attributes odd;
  odd.Set("model", "80");
  odd.Set("memory_gib", 0.5);
  odd.Set("note", "say \"hi\"\\");
  odd.Set("yes", "no");
  odd.Set("sm", -1.25e-7);
  Attributes numeric_model;
  numeric_model.Set("model", 3.0);
  numeric_model.Set("memory_gib", "big");
  builder.AddNode(a, NodeSpec{.name = "true",
                              .cpu_milli = 1,
                              .memory_mib = 1025,
                              .devices = {odd, numeric_model, odd}});
  builder.AddNode(a, NodeSpec{.name = "n-1", .cpu_milli = 0, .memory_mib = 0});
  builder.AddNode(b, NodeSpec{.name = "x09", .cpu_milli = 1, .memory_mib = 1});
  builder.AddNode(b, NodeSpec{.name = "x010", .cpu_milli = 1, .memory_mib = 1});
  builder.AddNode(b, NodeSpec{.name = "x011", .cpu_milli = 1, .memory_mib = 1});
  Facility facility;
  facility.cooling_zones.push_back({.name = "cz", .domain = a, .cooling_capacity_w = 1});
  facility.power_domains.push_back({.name = "p", .domains = {b, a}, .limit_w = 123456789});
  facility.power_domains.push_back({.name = "q", .limit_w = 1001, .parent = "p"});
  builder.SetFacility(facility);
  auto cluster = std::move(builder).Build();
  ASSERT_TRUE(cluster) << cluster.error().message;
  const std::string text = WriteClusterYaml(*cluster);
  EXPECT_NE(text.find("name: \"site: #1\""), std::string::npos) << text;
  EXPECT_NE(text.find("model: \"80\""), std::string::npos) << text;
  EXPECT_NE(text.find("{count: 3, name_prefix: x0, first: 9, template: cpu-only-2}"),
            std::string::npos)
      << text;
  ExpectRoundTrip(*cluster);
}

TEST(ClusterYamlWriterTest, FoldsOnlyWhatReadsBackTheSame) {
  // rack0 and rack1 differ in their nodes; rack2 and rack3 match; "rack5" skips a number.
  ClusterBuilder builder({"cluster", "rack"});
  for (int r : {0, 1, 2, 3, 5}) {
    const DomainId rack = builder.AddDomain(builder.root(), "rack" + std::to_string(r));
    const int nodes = r == 0 ? 1 : 2;
    for (int n = 0; n < nodes; ++n) {
      builder.AddNode(
          rack,
          NodeSpec{.name = fmt::format("rack{}-n{}", r, n), .cpu_milli = 1, .memory_mib = 1024});
    }
  }
  auto cluster = std::move(builder).Build();
  ASSERT_TRUE(cluster) << cluster.error().message;
  const std::string text = WriteClusterYaml(*cluster);
  EXPECT_NE(text.find(R"(topology:
  - name: rack0
    nodes:
      - {name: rack0-n0, template: cpu-only}
  - count: 3
    first: 1
    nodes:
      - {count: 2, template: cpu-only}
  - name: rack5
)"),
            std::string::npos)
      << text;
  ExpectRoundTrip(*cluster);
}

// Random small clusters: names drawn from a few patterns (numbered, default-looking, odd
// characters), random device attributes, resources and facility.
Cluster RandomCluster() {
  const int levels = *rc::gen::inRange(1, 4);
  std::vector<std::string> level_names = {"cluster", "pod", "rack", "shelf"};
  level_names.resize(levels);
  ClusterBuilder builder(level_names, *rc::gen::element<std::string>("cluster", "x 1", "9"));
  int unique = 0;
  auto name = [&](const std::string& default_prefix, int index) {
    switch (*rc::gen::inRange(0, 4)) {
      case 0:
        return default_prefix + std::to_string(index);
      case 1:
        return fmt::format("{}{}", *rc::gen::element<std::string>("a", "b-", "q\"", "é:"),
                           unique++);
      case 2:
        return fmt::format("n{:03}", unique++);
      default:
        return fmt::format("{}{}", default_prefix, unique++ + 100);
    }
  };
  const std::vector<Attributes> classes = [] {
    std::vector<Attributes> out;
    for (int i = 0; i < 3; ++i) {
      Attributes attributes;
      if (*rc::gen::arbitrary<bool>()) {
        attributes.Set("model", *rc::gen::element<std::string>("H100", "1e5", "", "T 4", "null"));
      }
      if (*rc::gen::arbitrary<bool>()) {
        attributes.Set("memory_gib", *rc::gen::element(80.0, 0.1, -3.0, 1e300));
      }
      if (*rc::gen::arbitrary<bool>()) {
        attributes.Set(
            "k", *rc::gen::element<AttributeValue>(std::string("v"), 2.5, std::string("2.5")));
      }
      out.push_back(attributes);
    }
    return out;
  }();
  std::vector<DomainId> all = {builder.root()};
  std::vector<std::pair<DomainId, std::string>> frontier = {{builder.root(), "cluster"}};
  for (int level = 1; level < levels; ++level) {
    std::vector<std::pair<DomainId, std::string>> next;
    for (const auto& [parent, parent_name] : frontier) {
      const int children = *rc::gen::inRange(0, 4);
      for (int i = 0; i < children; ++i) {
        std::string child =
            name(level == 1 ? level_names[1] : parent_name + "-" + level_names[level], i);
        const DomainId id = builder.AddDomain(parent, child);
        all.push_back(id);
        next.emplace_back(id, child);
      }
    }
    frontier = std::move(next);
  }
  for (const auto& [domain, domain_name] : frontier) {
    const int nodes = *rc::gen::inRange(0, 5);
    for (int i = 0; i < nodes; ++i) {
      NodeSpec spec{.name = name(domain_name + "-n", i),
                    .cpu_milli = *rc::gen::element<int64_t>(0, 1000, 224000),
                    .memory_mib = *rc::gen::element<int64_t>(0, 1000, 2048 * 1024)};
      const int devices = *rc::gen::inRange(0, 4);
      for (int d = 0; d < devices; ++d) spec.devices.push_back(classes[*rc::gen::inRange(0, 3)]);
      builder.AddNode(domain, std::move(spec));
    }
  }
  Facility facility;
  for (int i = *rc::gen::inRange(0, 3); i > 0; --i) {
    facility.cooling_zones.push_back(
        {.name = fmt::format("z{}", i),
         .domain = all[*rc::gen::inRange<size_t>(0, all.size())],
         .cooling_capacity_w = *rc::gen::inRange<int64_t>(1, 1'000'000'000)});
  }
  for (int i = 0, n = *rc::gen::inRange(0, 3); i < n; ++i) {
    facility.power_domains.push_back({.name = fmt::format("p{}", i),
                                      .domains = {all[*rc::gen::inRange<size_t>(0, all.size())]},
                                      .limit_w = *rc::gen::inRange<int64_t>(1, 1'000'000'000),
                                      .parent = i > 0 && *rc::gen::arbitrary<bool>() ? "p0" : ""});
  }
  builder.SetFacility(std::move(facility));
  auto cluster = std::move(builder).Build();
  RC_PRE(cluster.has_value());  // Random names may collide; such clusters are not valid.
  return std::move(*cluster);
}

RC_GTEST_PROP(ClusterYamlWriterTest, ParseOfWriteReproducesTheCluster, ()) {
  const Cluster cluster = RandomCluster();
  const std::string text = WriteClusterYaml(cluster);
  auto parsed = ParseClusterYaml(text, "written.yaml");
  RC_ASSERT(parsed.has_value());
  RC_ASSERT(DumpCluster(*parsed) == DumpCluster(cluster));
  RC_ASSERT(WriteClusterYaml(*parsed) == text);
}

}  // namespace
}  // namespace headroom::model
