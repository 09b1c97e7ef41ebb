#include "model/cluster_source.h"

#include <string>

#include <gtest/gtest.h>

#include "testing/traces.h"

namespace headroom::model {
namespace {

TEST(ClusterSourceTest, LoadsYamlByExtensionOrPrefix) {
  const std::string path = std::string(HEADROOM_SOURCE_DIR) + "/configs/small.yaml";
  auto by_extension = LoadCluster(path);
  ASSERT_TRUE(by_extension) << by_extension.error().message;
  EXPECT_EQ(by_extension->nodes().size(), 4u);
  auto by_prefix = LoadCluster("yaml:" + path);
  ASSERT_TRUE(by_prefix) << by_prefix.error().message;
  EXPECT_EQ(by_prefix->nodes().size(), 4u);
}

TEST(ClusterSourceTest, LoadsTraceFormats) {
  const std::string openb =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv");
  const std::string philly = testing::TracePath("microsoft-philly/cluster_machine_list");
  HEADROOM_SKIP_IF_MISSING(openb);
  HEADROOM_SKIP_IF_MISSING(philly);
  auto openb_cluster = LoadCluster("openb:" + openb);
  ASSERT_TRUE(openb_cluster) << openb_cluster.error().message;
  EXPECT_EQ(openb_cluster->nodes().size(), 1213u);
  auto philly_cluster = LoadCluster("philly:" + philly);
  ASSERT_TRUE(philly_cluster) << philly_cluster.error().message;
  EXPECT_EQ(philly_cluster->nodes().size(), 552u);
}

TEST(ClusterSourceTest, UnknownFormatsListTheKnownOnes) {
  auto unknown = LoadCluster("helios:/x.csv");
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message,
            "cluster 'helios:/x.csv': expected one of the forms PATH.yaml, PATH.yml, yaml:PATH, "
            "openb:PATH, philly:PATH, got the unknown format 'helios'");
  auto no_format = LoadCluster("/x/nodes.csv");
  ASSERT_FALSE(no_format);
  EXPECT_EQ(no_format.error().message,
            "cluster '/x/nodes.csv': expected one of the forms PATH.yaml, PATH.yml, yaml:PATH, "
            "openb:PATH, philly:PATH, got a path without a format");
  EXPECT_EQ(LoadCluster("openb:").error().message,
            "cluster 'openb:': expected a path after 'openb:'");
  EXPECT_FALSE(LoadCluster(""));
  EXPECT_EQ(LoadCluster("/nonexistent/c.yaml").error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace headroom::model
