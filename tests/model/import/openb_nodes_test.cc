#include "model/import/openb_nodes.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "model/cluster_yaml.h"
#include "model/cluster_yaml_writer.h"
#include "testing/cluster_compare.h"
#include "testing/traces.h"

namespace headroom::model {
namespace {

struct ModelCount {
  int nodes = 0;
  int gpus = 0;
  friend bool operator==(const ModelCount&, const ModelCount&) = default;
};

std::ostream& operator<<(std::ostream& out, const ModelCount& count) {
  return out << "{" << count.nodes << " nodes, " << count.gpus << " GPUs}";
}

// Nodes and GPUs per GPU model ("" for CPU-only nodes).
std::map<std::string, ModelCount> CountByModel(const Cluster& cluster) {
  std::map<std::string, ModelCount> counts;
  for (const Node& node : cluster.nodes()) {
    std::string model;
    if (node.device_count > 0) {
      model = cluster.device_class(cluster.device(DeviceId(node.first_device)).device_class).model;
    }
    ++counts[model].nodes;
    counts[model].gpus += static_cast<int>(node.device_count);
  }
  return counts;
}

// Counts from /work/shared/traces/alibaba-gpu-v2023-openb/README.md ("GPU models (all_node):
// G2 549, T4 404, P100 134, V100M16 55, G3 39, V100M32 30, A10 2, none 310. Total 6212 GPUs"),
// with the GPUs per model counted from the file.
const std::map<std::string, ModelCount> kGpuNodeCounts = {
    {"G2", {549, 4392}}, {"T4", {404, 842}},     {"P100", {134, 265}}, {"V100M16", {55, 195}},
    {"G3", {39, 312}},   {"V100M32", {30, 204}}, {"A10", {2, 2}}};

TEST(OpenbNodesTest, LoadsTheGpuNodeList) {
  const std::string path =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto cluster = LoadOpenbNodes(path);
  ASSERT_TRUE(cluster) << cluster.error().message;
  EXPECT_EQ(cluster->nodes().size(), 1213u);
  EXPECT_EQ(cluster->device_count(), 6212u);
  EXPECT_EQ(CountByModel(*cluster), kGpuNodeCounts);
  EXPECT_EQ(cluster->level_names(), std::vector<std::string>{"cluster"});
  EXPECT_EQ(cluster->nodes()[0].name, "openb-node-0000");
  EXPECT_EQ(cluster->nodes()[0].cpu_milli, 64000);
  EXPECT_EQ(cluster->nodes()[0].memory_mib, 262144);
  EXPECT_EQ(cluster->max_devices_per_node(), 8u);
}

TEST(OpenbNodesTest, LoadsTheAllNodeListWithCpuOnlyNodes) {
  const std::string path =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_node_list_all_node.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto cluster = LoadOpenbNodes(path);
  ASSERT_TRUE(cluster) << cluster.error().message;
  EXPECT_EQ(cluster->nodes().size(), 1523u);
  EXPECT_EQ(cluster->device_count(), 6212u);
  auto expected = kGpuNodeCounts;
  expected[""] = {310, 0};
  EXPECT_EQ(CountByModel(*cluster), expected);
}

TEST(OpenbNodesTest, RoundTripsThroughYaml) {
  const std::string path =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_node_list_all_node.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto cluster = LoadOpenbNodes(path);
  ASSERT_TRUE(cluster) << cluster.error().message;
  auto parsed = ParseClusterYaml(WriteClusterYaml(*cluster), "openb.yaml");
  ASSERT_TRUE(parsed) << parsed.error().message;
  testing::ExpectSameCluster(*cluster, *parsed);
}

TEST(OpenbNodesTest, AssignsMemoryOnlyWhereTheModelFixesIt) {
  auto cluster = ParseOpenbNodes(
      "sn,cpu_milli,memory_mib,gpu,model\nt,1,1,1,T4\np,1,1,2,P100\nv,1,1,1,V100M32\ng,1,1,1,G2\n",
      "inline.csv");
  ASSERT_TRUE(cluster) << cluster.error().message;
  ASSERT_EQ(cluster->device_classes().size(), 4u);
  EXPECT_EQ(ToString(cluster->device_classes()[0].attributes), "memory_gib=16, model=\"T4\"");
  EXPECT_EQ(ToString(cluster->device_classes()[1].attributes), "model=\"P100\"");
  EXPECT_EQ(ToString(cluster->device_classes()[2].attributes), "memory_gib=32, model=\"V100M32\"");
  EXPECT_EQ(ToString(cluster->device_classes()[3].attributes), "model=\"G2\"");
  EXPECT_EQ(OpenbModelMemoryGib("A10"), 24);
  EXPECT_EQ(OpenbModelMemoryGib("G3"), std::nullopt);
}

TEST(OpenbNodesTest, AcceptsCrlfExtraColumnsAndCpuOnlyRows) {
  auto cluster = ParseOpenbNodes(
      "model,gpu,sn,memory_mib,cpu_milli,extra\r\n,0,c0,1024,32000,x\r\nA10,1,g0,2048,8000,y",
      "inline.csv");
  ASSERT_TRUE(cluster) << cluster.error().message;
  ASSERT_EQ(cluster->nodes().size(), 2u);
  EXPECT_EQ(cluster->nodes()[0].device_count, 0u);
  EXPECT_EQ(cluster->nodes()[1].cpu_milli, 8000);
}

std::string ErrorOf(std::string_view rows) {
  auto cluster = ParseOpenbNodes(
      std::string("sn,cpu_milli,memory_mib,gpu,model\n") + std::string(rows), "nodes.csv");
  return cluster ? "" : cluster.error().message;
}

TEST(OpenbNodesTest, MalformedRowsNameFileLineAndField) {
  EXPECT_EQ(ErrorOf("a,1,1,1,T4\nb,abc,1,1,T4\n"),
            "nodes.csv:3: field 'cpu_milli': expected a non-negative integer, got \"abc\"");
  EXPECT_EQ(ErrorOf("a,1,-5,1,T4\n"),
            "nodes.csv:2: field 'memory_mib': expected a non-negative integer, got \"-5\"");
  EXPECT_EQ(ErrorOf("a,1,1,2000,T4\n"),
            "nodes.csv:2: field 'gpu': expected an integer from 0 to 1024, got \"2000\"");
  EXPECT_EQ(ErrorOf("a,1,1,2,\n"),
            "nodes.csv:2: field 'model': expected a GPU model on a node with 2 GPUs, got \"\"");
  EXPECT_EQ(ErrorOf("a,1,1,1,T4\na,1,1,1,T4\n"),
            "nodes.csv:3: field 'sn': expected unique node names, got a second \"a\"");
  EXPECT_EQ(ErrorOf(",1,1,1,T4\n"), "nodes.csv:2: field 'sn': expected a node name, got \"\"");
  EXPECT_EQ(ErrorOf("a,1,1,1\n"), "nodes.csv:2: expected 5 fields as in the header, got 4");
  auto missing = ParseOpenbNodes("sn,cpu,memory_mib,gpu,model\n", "nodes.csv");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message,
            "nodes.csv:1: expected a column 'cpu_milli', got columns: sn, cpu, memory_mib, gpu, "
            "model");
  EXPECT_FALSE(ParseOpenbNodes("", "empty.csv"));
}

TEST(OpenbNodesTest, MissingFileIsNotFound) {
  auto cluster = LoadOpenbNodes("/nonexistent/openb.csv");
  ASSERT_FALSE(cluster);
  EXPECT_EQ(cluster.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace headroom::model
