#include "sim/facility_incident.h"

#include <string>

#include <gtest/gtest.h>

#include "model/cluster_yaml.h"

namespace headroom::sim {
namespace {

model::Cluster Building() {
  auto cluster = model::ParseClusterYaml(R"(levels: [cluster, rack]
device_classes:
  H100: {model: H100, memory_gib: 80}
node_templates:
  4xH100: {cpu_milli: 64000, memory_gib: 512, devices: {count: 4, class: H100}}
topology:
  - {name: r0, nodes: [{count: 1, template: 4xH100}]}
facility:
  cooling: [{domain: r0, capacity_kw: 10}]
  power: [{name: feed, domains: [cluster], limit_kw: 2}]
)",
                                         "test.yaml");
  EXPECT_TRUE(cluster) << cluster.error().message;
  return std::move(*cluster);
}

TEST(FacilityIncidentTest, ParsesACoolingFailureAndADeratedFeed) {
  const model::Cluster cluster = Building();
  auto cooling = ParseFacilityIncident("cooling:r0:3600:7200:0", cluster);
  ASSERT_TRUE(cooling) << cooling.error().message;
  EXPECT_EQ(cooling->kind, FacilityIncident::Kind::kCooling);
  EXPECT_EQ(cooling->index, 0u);
  EXPECT_EQ(cooling->start_us, 3600 * kUsPerSecond);
  EXPECT_EQ(cooling->duration_us, 7200 * kUsPerSecond);
  EXPECT_EQ(cooling->share, 0);
  auto feed = ParseFacilityIncident("feed:feed:0:60.5:0.5", cluster);
  ASSERT_TRUE(feed) << feed.error().message;
  EXPECT_EQ(feed->kind, FacilityIncident::Kind::kPower);
  EXPECT_EQ(feed->duration_us, SecondsToUs(60.5));
  EXPECT_EQ(feed->share, 0.5);
}

TEST(FacilityIncidentTest, BadTextNamesTheFieldAndWhatWasExpected) {
  const model::Cluster cluster = Building();
  const std::pair<std::string, std::string> cases[] = {
      {"cooling:r0:0:60", "expected KIND:NAME:START_S:DURATION_S:SHARE (5 fields), got 4"},
      {"heat:r0:0:60:0", "field 'kind': expected cooling or feed, got \"heat\""},
      {"cooling:r9:0:60:0", "field 'name': expected a cooling zone (r0), got \"r9\""},
      {"feed:r0:0:60:0", "field 'name': expected a power domain (feed), got \"r0\""},
      {"cooling:r0:-1:60:0", "field 'start_s'"},
      {"cooling:r0:0:0:0", "field 'duration_s'"},
      {"cooling:r0:0:60:1.5", "field 'share': expected a share from 0 to 1, got \"1.5\""},
      {"cooling:r0:0:60:nan", "field 'share'"},
      {"cooling:r0:0x:60:0", "field 'start_s'"},
  };
  for (const auto& [text, expected] : cases) {
    auto incident = ParseFacilityIncident(text, cluster);
    ASSERT_FALSE(incident) << text;
    EXPECT_NE(incident.error().message.find(expected), std::string::npos)
        << text << ": " << incident.error().message;
    EXPECT_EQ(incident.error().message.rfind("--incident '" + text + "'", 0), 0u);
  }
}

}  // namespace
}  // namespace headroom::sim
