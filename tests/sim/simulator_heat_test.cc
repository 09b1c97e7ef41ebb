// Heat in the simulator (sim/facility_meter.h, docs/facility.md): a job on a rack whose cooling
// cannot carry it warms the rack's inlet, its devices throttle once they reach their maximum
// operating temperature, and the job runs slower for it; on a rack cooled enough nothing slows.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/presets.h"
#include "model/cluster_yaml.h"
#include "model/thermal.h"
#include "sim/simulator.h"
#include "testing/cluster_fixtures.h"

namespace headroom::sim {
namespace {

using testing::JobOf;
using testing::WorkloadOf;

constexpr double kHour = 3600;

model::Cluster OneRack(const std::string& cooling_kw) {
  auto cluster = model::ParseClusterYaml(R"(levels: [cluster, rack]
device_classes:
  H100: {model: H100, memory_gib: 80}
node_templates:
  8xH100: {cpu_milli: 64000, memory_gib: 512, devices: {count: 8, class: H100}}
topology:
  - {name: r0, nodes: [{count: 1, template: 8xH100}]}
facility:
  cooling: [{domain: r0, capacity_kw: )" + cooling_kw +
                                             R"(}]
)",
                                         "test.yaml");
  EXPECT_TRUE(cluster) << cluster.error().message;
  return std::move(*cluster);
}

PolicyRun RunTwoHourJob(const model::Cluster& cluster,
                        const std::vector<FacilityIncident>& incidents = {}) {
  SimOptions options;
  options.paranoid = true;
  options.incidents = incidents;
  const model::Workload workload = WorkloadOf({JobOf(1, 8, "", 0, 0, 2 * kHour, 2 * kHour, 0)});
  return Simulate(cluster, workload, *engine::PresetPolicy("fifo"), options);
}

TEST(SimulatorHeatTest, ARackCooledEnoughRunsItsJobAtFullSpeed) {
  const PolicyRun run = RunTwoHourJob(OneRack("100"));
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  EXPECT_DOUBLE_EQ(run.metrics.jct_s.max, 2 * kHour);
  EXPECT_EQ(run.facility.throttled_device_h, 0);
  EXPECT_DOUBLE_EQ(run.facility.max_inlet_c, 20);
  EXPECT_GT(run.facility.energy_kwh, 8 * 0.6 * 2);  // Eight devices near 677 W for two hours.
  EXPECT_LT(run.facility.energy_kwh, 8 * 0.7 * 2);
}

// 5.4 kW of training on 3 kW of cooling: the inlet passes 39.6 °C (where an H100 at 677 W
// reaches 87 °C) after about 24 minutes; from then on the devices throttle, and the rack
// settles where their heat is what the cooling removes.
TEST(SimulatorHeatTest, ARackThatCannotCarryItsJobThrottlesItAndTheJobTakesLonger) {
  const PolicyRun run = RunTwoHourJob(OneRack("3"));
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  EXPECT_GT(run.metrics.jct_s.max, 2 * kHour * 1.05);
  EXPECT_GT(run.facility.throttled_device_h, 8 * 0.5);
  EXPECT_LT(run.facility.throttled_device_h, 8 * run.metrics.jct_s.max / kHour);
  EXPECT_GT(run.facility.max_inlet_c, model::kInletLimitC);
  EXPECT_GT(run.facility.inlet_over_limit_zone_s, 0);
  // Throttled, it draws less energy per unit of work than the unthrottled run.
  const PolicyRun cool = RunTwoHourJob(OneRack("100"));
  EXPECT_LT(run.facility.energy_kwh / run.metrics.jct_s.max,
            cool.facility.energy_kwh / cool.metrics.jct_s.max);
}

// The 6 kW cooling of a rack drawing 5.4 kW fails for an hour half an hour in: the inlet climbs
// almost a degree a minute, the devices throttle after about 22 minutes, and the job finishes
// late; the rack recovers afterwards.
TEST(SimulatorHeatTest, ACoolingFailureMidRunThrottlesTheRackUntilItIsBack) {
  const model::Cluster cluster = OneRack("6");
  const FacilityIncident failure{FacilityIncident::Kind::kCooling, 0, SecondsToUs(1800),
                                 SecondsToUs(3600), 0};
  const PolicyRun run = RunTwoHourJob(cluster, {failure});
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  EXPECT_GT(run.metrics.jct_s.max, 2 * kHour * 1.05);
  EXPECT_GT(run.facility.throttled_device_h, 0);
  EXPECT_GT(run.facility.max_inlet_c, model::kInletLimitC);
  // Without the failure the same job takes its two hours.
  EXPECT_DOUBLE_EQ(RunTwoHourJob(cluster).metrics.jct_s.max, 2 * kHour);
}

// A rack whose cooling cannot even carry its idle devices heats until they shut down; the job
// stalls, the rack cools, the devices come back, and the job still finishes.
TEST(SimulatorHeatTest, DevicesThatHeatShutsDownStallTheirJobUntilTheyCool) {
  const PolicyRun run = RunTwoHourJob(OneRack("0.3"));
  EXPECT_EQ(run.metrics.jobs_completed, 1u);
  EXPECT_GT(run.metrics.jct_s.max, 4 * 2 * kHour);
  EXPECT_GT(run.facility.max_inlet_c, 80);
  EXPECT_GT(run.facility.throttled_device_h, 8 * 4 * 2);
}

// The shipped uneven building filled: blind to it, its weak row throttles and its derated feed
// is passed; headroom's facility filter keeps both within their limits.
TEST(SimulatorHeatTest, TheUnevenBuildingFullThrottlesItsWeakRowAndPassesItsDeratedFeed) {
  auto cluster =
      model::LoadClusterYaml(std::string(HEADROOM_SOURCE_DIR) + "/configs/uneven-building.yaml");
  ASSERT_TRUE(cluster) << cluster.error().message;
  ASSERT_EQ(cluster->device_count(), 1024u);
  ASSERT_EQ(cluster->facility().cooling_zones.size(), 16u);
  ASSERT_EQ(cluster->facility().power_domains.size(), 4u);
  std::vector<model::Job> jobs;
  for (int i = 0; i < 16; ++i) jobs.push_back(JobOf(8, 8, "", 0, 0, 2 * kHour, 2 * kHour, 0));
  SimOptions options;
  options.paranoid = true;
  const PolicyRun run =
      Simulate(*cluster, WorkloadOf(jobs), *engine::PresetPolicy("fifo"), options);
  EXPECT_EQ(run.metrics.jobs_completed, 16u);
  // Row 3's four racks (256 devices) throttle; the other rows' do not.
  EXPECT_GT(run.facility.throttled_device_h, 0);
  EXPECT_LT(run.facility.throttled_device_h, 256 * run.metrics.makespan_s / kHour);
  // The jobs on the weak row take longer than the rest (whose runtimes only the placement's
  // spread stretches).
  EXPECT_GT(run.metrics.jct_s.max, run.metrics.jct_s.p50 * 1.02);
  EXPECT_EQ(run.facility.power_violations, 1u);  // Row 2's feed, once, while its row runs.
  EXPECT_GT(run.facility.power_violation_kw_s, 0);
  EXPECT_NEAR(run.facility.devices_per_feed_kw, 1024 / (3 * 326.4 + 150), 1e-9);

  // headroom's policy places the same jobs only where the cooling and the feeds carry them:
  // nothing throttles and no limit is passed. The jobs that do not fit at full power start at
  // once under caps (power.caps), at 0.83-0.88 of their speed (caps of 60% and 70% of the TDP).
  // The blind run's weak row finishes sooner only by heating its inlets past the 32 °C limit
  // while the zones' thermal mass lasts.
  const PolicyRun seeing =
      Simulate(*cluster, WorkloadOf(jobs), *engine::PresetPolicy("headroom"), options);
  EXPECT_EQ(seeing.metrics.jobs_completed, 16u);
  EXPECT_EQ(seeing.facility.throttled_device_h, 0);
  EXPECT_EQ(seeing.facility.power_violations, 0u);
  EXPECT_DOUBLE_EQ(seeing.facility.max_inlet_c, 20);
  EXPECT_EQ(seeing.metrics.wait_s.max, 0);
  EXPECT_GT(seeing.metrics.jct_s.max, 2 * kHour * 1.05);
  EXPECT_LT(seeing.metrics.jct_s.max, run.metrics.jct_s.p50 / 0.8);
  EXPECT_EQ(seeing.facility.inlet_over_limit_zone_s, 0);
  EXPECT_GT(run.facility.inlet_over_limit_zone_s, 0);
}

}  // namespace
}  // namespace headroom::sim
