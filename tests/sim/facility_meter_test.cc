#include "sim/facility_meter.h"

#include <gtest/gtest.h>

#include "engine/cluster_state.h"
#include "model/cluster_yaml.h"
#include "model/device_power.h"

namespace headroom::sim {
namespace {

// Two racks of one 4×H100 node each: rack r0's cooling takes 1 kW, r1's 100 kW; one feed over
// both at 2 kW, and r1's PDU under it.
model::Cluster TwoRacks() {
  auto cluster = model::ParseClusterYaml(R"(levels: [cluster, rack]
device_classes:
  H100: {model: H100, memory_gib: 80}
node_templates:
  4xH100: {cpu_milli: 64000, memory_gib: 512, devices: {count: 4, class: H100}}
topology:
  - {name: r0, nodes: [{count: 1, template: 4xH100}]}
  - {name: r1, nodes: [{count: 1, template: 4xH100}]}
facility:
  cooling:
    - {domain: r0, capacity_kw: 1}
    - {domain: r1, capacity_kw: 100}
    - {name: hall, domain: cluster, capacity_kw: 1000}
  power:
    - {name: feed, domains: [cluster], limit_kw: 2}
    - {name: r1-pdu, domains: [r1], limit_kw: 10, parent: feed}
)",
                                         "test.yaml");
  EXPECT_TRUE(cluster) << cluster.error().message;
  return std::move(*cluster);
}

constexpr TimeUs kMinute = 60 * kUsPerSecond;
constexpr TimeUs kThermalLook = kMinute;  // FacilityMeter's look while a zone is warm.

TEST(FacilityMeterTest, AnIdleFloorDrawsItsStaticPowerAndHoldsItsInlets) {
  const model::Cluster cluster = TwoRacks();
  engine::ClusterState state(cluster);
  FacilityMeter meter(cluster, 0);
  meter.Observe(state);
  meter.Advance(60 * kMinute);
  const FacilitySummary summary = meter.Summary();
  const double idle_w = model::PowerSpecOf("H100").idle_w;
  EXPECT_NEAR(summary.energy_kwh, 8 * idle_w / 1000, 1e-9);
  EXPECT_NEAR(meter.power_w(), 8 * idle_w, 1e-9);
  EXPECT_EQ(summary.power_violations, 0u);
  EXPECT_DOUBLE_EQ(summary.max_inlet_c, 20);
  EXPECT_EQ(summary.inlet_over_limit_zone_s, 0);
  ASSERT_EQ(summary.feed_names.size(), 1u);
  EXPECT_EQ(summary.feed_names[0], "feed");
  EXPECT_NEAR(summary.devices_per_feed_kw, 8 / 2.0, 1e-12);
  EXPECT_GT(summary.cooling_energy_kwh, 0);
}

// Four training devices in rack r0: 2.7 kW where its cooling takes 1 kW, and the feed past its
// 2 kW. The rack's supply warms by (heat − capacity) / (60 s × capacity) per second, and its
// inlet passes the 32 °C limit 12 °C above its 20 °C start.
TEST(FacilityMeterTest, WorkPastAZonesCoolingWarmsItsInletAndPastAFeedsLimitIsAViolation) {
  const model::Cluster cluster = TwoRacks();
  engine::ClusterState state(cluster);
  FacilityMeter meter(cluster, 0);
  const model::Node& node = cluster.node(NodeId(0));
  ASSERT_EQ(cluster.domain(node.domain).name, "r0");
  engine::TaskAllocation task;
  task.node = node.id;
  for (uint32_t i = 0; i < 4; ++i) task.devices.push_back(DeviceId(node.first_device + i));
  state.Allocate(task);
  meter.Observe(state);  // The work starts at 0.
  meter.Advance(10 * kMinute);
  const model::DevicePowerSpec& h100 = model::PowerSpecOf("H100");
  const double busy_w = model::DrawUnder(h100, model::TrainingProfile(), h100.tdp_w).mean_w;
  const double rack_w = 4 * busy_w;
  const double floor_w = rack_w + 4 * h100.idle_w;
  const FacilitySummary summary = meter.Summary();
  EXPECT_NEAR(meter.power_w(), floor_w, 1e-9);
  EXPECT_NEAR(summary.energy_kwh, floor_w * 600 / 3.6e6, 1e-9);
  EXPECT_EQ(summary.power_violations, 1u);
  EXPECT_NEAR(summary.power_violation_kw_s, (floor_w - 2000) / 1000 * 600, 1e-6);
  const double warming_c = (rack_w - 1000) * 600 / (1000 * 60.0);
  EXPECT_NEAR(summary.max_inlet_c, 20 + warming_c, 1e-9);
  EXPECT_NEAR(summary.inlet_over_limit_zone_s, 600 * (warming_c - 12) / warming_c, 1e-6);
  // Still over: no second violation while it lasts; a new one after it ends and starts again.
  meter.Observe(state);
  meter.Advance(11 * kMinute);
  meter.Observe(state);
  EXPECT_EQ(meter.Summary().power_violations, 1u);
  state.Release(task);
  meter.Observe(state);
  meter.Advance(12 * kMinute);
  state.Allocate(task);
  meter.Observe(state);
  meter.Advance(13 * kMinute);
  EXPECT_EQ(meter.Summary().power_violations, 2u);
}

// The feed derated to a tenth (200 W) from minute 5 to minute 15: the idle floor's 600 W passes
// it once, by 400 W for 600 s, and is within it before and after.
TEST(FacilityMeterTest, ADeratedFeedCountsWhatPassesItOnlyWhileTheIncidentLasts) {
  const model::Cluster cluster = TwoRacks();
  engine::ClusterState state(cluster);
  const FacilityIncident derated{FacilityIncident::Kind::kPower, 0, 5 * kMinute, 10 * kMinute, 0.1};
  FacilityMeter meter(cluster, 0, {derated});
  meter.Observe(state);
  for (int minute = 1; minute <= 30; ++minute) {
    meter.Advance(minute * kMinute);
    meter.Observe(state);
  }
  const double idle_w = 8 * model::PowerSpecOf("H100").idle_w;
  EXPECT_EQ(meter.Summary().power_violations, 1u);
  EXPECT_NEAR(meter.Summary().power_violation_kw_s, (idle_w - 200) / 1000 * 600, 1e-6);
  EXPECT_EQ(meter.NextTickUs(30 * kMinute), kNever);
  EXPECT_EQ(FacilityMeter(cluster, 0, {derated}).NextTickUs(0), 5 * kMinute);
}

// Rack r1's cooling lost for ten minutes under four training devices: its supply warms by their
// heat over its heat capacity, then cools back once the cooling returns.
TEST(FacilityMeterTest, ACoolingFailureWarmsItsZoneWhileItLasts) {
  const model::Cluster cluster = TwoRacks();
  engine::ClusterState state(cluster);
  const model::Node& node = cluster.node(NodeId(1));
  ASSERT_EQ(cluster.domain(node.domain).name, "r1");
  engine::TaskAllocation task;
  task.node = node.id;
  for (uint32_t i = 0; i < 4; ++i) task.devices.push_back(DeviceId(node.first_device + i));
  state.Allocate(task);
  const FacilityIncident failure{FacilityIncident::Kind::kCooling, 1, 0, 10 * kMinute, 0};
  FacilityMeter meter(cluster, 0, {failure});
  meter.Observe(state);
  EXPECT_EQ(meter.NextTickUs(0), kThermalLook);  // Heating: looked at within a minute.
  meter.Advance(10 * kMinute);
  const model::DevicePowerSpec& h100 = model::PowerSpecOf("H100");
  const double rack_w = 4 * model::DrawUnder(h100, model::TrainingProfile(), h100.tdp_w).mean_w;
  const double heat_capacity_j_per_c = 100'000 * 60.0;
  EXPECT_NEAR(meter.Summary().max_inlet_c, 20 + rack_w * 600 / heat_capacity_j_per_c, 1e-9);
  meter.Advance(20 * kMinute);
  meter.Observe(state);
  EXPECT_EQ(meter.NextTickUs(20 * kMinute), kNever);  // Back at its setpoint.
}

}  // namespace
}  // namespace headroom::sim
