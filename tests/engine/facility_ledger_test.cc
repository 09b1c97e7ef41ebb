// The engine's facility ledger (engine/facility_ledger.h): every device's idle draw from the
// start, work's draw added and removed with its allocation (exactly, so a rolled-back search
// leaves no trace), nominal power beside it, and the elements over each node.
#include <gtest/gtest.h>

#include "engine/cluster_state.h"
#include "model/cluster_yaml.h"
#include "model/device_power.h"

namespace headroom::engine {
namespace {

model::Cluster Hall() {
  // A feed over both racks, a PDU over r1, a cooling zone per rack and one over the hall.
  auto cluster = model::ParseClusterYaml(R"(levels: [cluster, rack]
device_classes:
  H100: {model: H100, memory_gib: 80}
node_templates:
  8xH100: {cpu_milli: 64000, memory_gib: 512, devices: {count: 8, class: H100}}
topology:
  - {name: r0, nodes: [{count: 1, template: 8xH100}]}
  - {name: r1, nodes: [{count: 1, template: 8xH100}]}
facility:
  cooling: [{domain: r0, capacity_kw: 10}, {domain: r1, capacity_kw: 20}]
  power:
    - {name: feed, domains: [r0, r1], limit_kw: 40}
    - {name: pdu1, domains: [r1], limit_kw: 12, parent: feed}
)",
                                         "hall.yaml");
  EXPECT_TRUE(cluster) << cluster.error().message;
  return std::move(*cluster);
}

TEST(FacilityLedgerTest, CountsIdleDrawThenWorkAndUndoesItExactly) {
  const model::Cluster cluster = Hall();
  ClusterState state(cluster);
  const FacilityLedger& ledger = state.facility();
  ASSERT_EQ(ledger.size(), 4u);  // feed, pdu1, then the zones of r0 and r1.
  EXPECT_EQ(ledger.name(0), "feed");
  EXPECT_EQ(ledger.kind(2), FacilityLedger::Kind::kCooling);
  EXPECT_EQ(ledger.ElementOf(FacilityLedger::Kind::kCooling, 1), 3u);
  const NodeId n0 = cluster.nodes()[0].id;
  const NodeId n1 = cluster.nodes()[1].id;
  EXPECT_EQ(std::vector<uint32_t>(ledger.ElementsOver(n0).begin(), ledger.ElementsOver(n0).end()),
            (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(std::vector<uint32_t>(ledger.ElementsOver(n1).begin(), ledger.ElementsOver(n1).end()),
            (std::vector<uint32_t>{0, 1, 3}));

  const model::DevicePowerSpec& spec = model::PowerSpecOf("H100");
  const double idle_w = model::DrawUnder(spec, model::IdleProfile(), spec.tdp_w).mean_w;
  const double busy_w = model::DrawUnder(spec, model::TrainingProfile(), spec.tdp_w).mean_w;
  EXPECT_NEAR(static_cast<double>(ledger.load_mw(0)), 16 * idle_w * 1e3, 16);
  EXPECT_NEAR(static_cast<double>(ledger.load_mw(1)), 8 * idle_w * 1e3, 8);
  EXPECT_EQ(ledger.nominal_mw(0), 0);
  EXPECT_EQ(ledger.limit_mw(1), 12'000'000);

  const int64_t feed_before = ledger.load_mw(0);
  TaskAllocation four_devices{.node = n1, .devices = {}, .milli_per_device = 1000};
  for (uint32_t d = 0; d < 4; ++d) {
    four_devices.devices.push_back(DeviceId(cluster.nodes()[1].first_device + d));
  }
  TaskAllocation half_device{.node = n0, .devices = {DeviceId(0)}, .milli_per_device = 500};
  {
    const ClusterState::Speculation speculation(state);
    state.Allocate(four_devices);
    state.Allocate(half_device);
    EXPECT_NEAR(static_cast<double>(ledger.load_mw(0) - feed_before), 4.5 * (busy_w - idle_w) * 1e3,
                8);
    EXPECT_NEAR(static_cast<double>(ledger.nominal_mw(0)), 4.5 * spec.tdp_w * 1e3, 8);
    EXPECT_NEAR(static_cast<double>(ledger.nominal_mw(1)), 4 * spec.tdp_w * 1e3, 8);
    // The zone of r0 carries the half device only.
    EXPECT_NEAR(static_cast<double>(ledger.load_mw(2)),
                8 * idle_w * 1e3 + 0.5 * (busy_w - idle_w) * 1e3, 8);
  }
  EXPECT_EQ(ledger.load_mw(0), feed_before);
  EXPECT_EQ(ledger.nominal_mw(0), 0);

  // A gang's draw by element, each once, in the order first met.
  const std::vector<TaskAllocation> gang = {four_devices, half_device};
  const auto draws = ledger.GangDrawMw(gang, cluster, FacilityLedger::Projection::kNominal);
  ASSERT_EQ(draws.size(), 4u);
  EXPECT_EQ(draws[0].first, 0u);
  EXPECT_EQ(draws[0].second, ledger.NominalDrawMw(DeviceClassId(0), 4, 1000) +
                                 ledger.NominalDrawMw(DeviceClassId(0), 1, 500));
  EXPECT_EQ(draws[3].first, 2u);
}

TEST(FacilityLedgerTest, AMarginAndANewLimitSetTheAllowance) {
  const model::Cluster cluster = Hall();
  ClusterState state(cluster);
  state.SetFacilityMargin(0.05);
  EXPECT_EQ(state.facility().allowance_mw(0), 38'000'000);
  state.SetFacilityLimit(0, 20'000'000);
  EXPECT_EQ(state.facility().limit_mw(0), 20'000'000);
  EXPECT_EQ(state.facility().allowance_mw(0), 19'000'000);
}

}  // namespace
}  // namespace headroom::engine
