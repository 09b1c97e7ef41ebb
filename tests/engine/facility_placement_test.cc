// Placement that sees the building (issue 15 part 3): the facility filter keeps every power
// domain and cooling zone within its limit less the policy's margin, counting the projected draw
// of the whole gang; a job only the building keeps out says which element and by how much; a
// limit the building lowers or raises (FacilityLimit) moves what fits. power_budget counts
// nominal power instead, as Slurm's hierarchical resources do.
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/engine.h"
#include "engine/presets.h"
#include "model/cluster_yaml.h"
#include "model/device_power.h"
#include "testing/cluster_fixtures.h"
#include "testing/h100_draw.h"
#include "tests/engine/scenario.h"

namespace headroom::engine {
namespace {

using headroom::testing::H100IdleKw;
using headroom::testing::H100WorkKw;
using headroom::testing::JobOf;

// Two racks of two 8-H100 nodes; r0's cooling and a feed over r1 as given (kW).
model::Cluster TwoRacks(double r0_cooling_kw, double r1_feed_kw) {
  auto cluster = model::ParseClusterYaml(fmt::format(R"(levels: [cluster, rack]
device_classes:
  H100: {{model: H100, memory_gib: 80}}
node_templates:
  8xH100: {{cpu_milli: 64000, memory_gib: 512, devices: {{count: 8, class: H100}}}}
topology:
  - {{name: r0, nodes: [{{count: 2, template: 8xH100}}]}}
  - {{name: r1, nodes: [{{count: 2, template: 8xH100}}]}}
facility:
  cooling: [{{domain: r0, capacity_kw: {}}}]
  power: [{{name: r1-feed, domains: [r1], limit_kw: {}}}]
)",
                                                     r0_cooling_kw, r1_feed_kw),
                                         "two-racks.yaml");
  EXPECT_TRUE(cluster) << cluster.error().message;
  return std::move(*cluster);
}

PolicyConfig WithFilter(std::string_view preset, std::string filter, double margin = 0) {
  PolicyConfig policy = *PresetPolicy(preset);
  policy.filters.push_back(std::move(filter));
  policy.facility_margin = margin;
  return policy;
}

// Room for one 8-device task on top of the rack's idle draw, not for two.
double OneTaskKw() { return 16 * H100IdleKw() + 8 * H100WorkKw() + 0.5; }

TEST(FacilityPlacementTest, AGangGoesWhereTheCoolingCarriesIt) {
  const model::Cluster cluster = TwoRacks(OneTaskKw(), 1000);
  // Blind, best fit takes the first of two equal racks: r0, whose cooling cannot carry it.
  testing::Harness blind(cluster, "slurm-like");
  const JobId blind_gang = blind.Submit(JobOf(2, 8));
  blind.Step(0);
  EXPECT_EQ(blind.NodesOf(blind_gang), (std::vector<std::string>{"r0-n0", "r0-n1"}));

  testing::Harness seeing(cluster, WithFilter("slurm-like", "facility"));
  const JobId gang = seeing.Submit(JobOf(2, 8));
  seeing.Step(0);
  EXPECT_EQ(seeing.NodesOf(gang), (std::vector<std::string>{"r1-n0", "r1-n1"}));
  // One task still fits r0's cooling.
  const JobId small = seeing.Submit(JobOf(1, 8));
  seeing.Step(1);
  EXPECT_EQ(seeing.NodesOf(small).size(), 1u);
  EXPECT_EQ(seeing.NodesOf(small)[0].substr(0, 2), "r0");
  // A second one does not: it waits, saying which zone and by how much.
  const JobId over = seeing.Submit(JobOf(1, 8));
  seeing.Step(2);
  EXPECT_TRUE(seeing.NodesOf(over).empty());
  const PendingStatus status = seeing.engine().Explain(over);
  ASSERT_FALSE(status.reasons.empty());
  EXPECT_EQ(status.reasons.front(), PendingCode::kFacility);
  const double over_kw = 8 * H100WorkKw() - 0.5;
  EXPECT_NE(status.message.find(fmt::format("cooling zone 'r0' {:.1f} kW past", over_kw)),
            std::string::npos)
      << status.message;
  EXPECT_EQ(PendingCodeName(PendingCode::kFacility), "facility");
}

TEST(FacilityPlacementTest, TheMarginIsKeptFree) {
  // Room for one task, 0.5 kW to spare, but not for it and a 20% margin.
  const model::Cluster cluster = TwoRacks(OneTaskKw(), 1000);
  testing::Harness h(cluster, WithFilter("slurm-like", "facility", 0.2));
  h.Submit(JobOf(2, 8));  // Takes r1.
  const JobId small = h.Submit(JobOf(1, 8));
  h.Step(0);
  EXPECT_TRUE(h.NodesOf(small).empty());
  ASSERT_FALSE(h.engine().Explain(small).reasons.empty());
  EXPECT_EQ(h.engine().Explain(small).reasons.front(), PendingCode::kFacility);
}

TEST(FacilityPlacementTest, ALimitTheBuildingLowersOrRaisesMovesWhatFits) {
  const model::Cluster cluster = TwoRacks(OneTaskKw(), 1000);
  testing::Harness h(cluster, WithFilter("fifo", "facility"));
  // The feed over r1 derated below what a task adds: nothing new goes there.
  h.Push(FacilityLimit{FacilityLedger::Kind::kPower, 0, 2'000});
  const JobId gang = h.Submit(JobOf(2, 8));
  h.Step(0);
  EXPECT_TRUE(h.NodesOf(gang).empty());
  ASSERT_FALSE(h.engine().Explain(gang).reasons.empty());
  EXPECT_EQ(h.engine().Explain(gang).reasons.front(), PendingCode::kFacility);
  // r0's cooling repaired to carry two tasks, the gang starts there.
  h.Push(FacilityLimit{FacilityLedger::Kind::kCooling, 0, 100'000});
  h.Step(1);
  EXPECT_EQ(h.NodesOf(gang), (std::vector<std::string>{"r0-n0", "r0-n1"}));
  // An index the cluster does not have changes nothing.
  h.Push(FacilityLimit{FacilityLedger::Kind::kCooling, 7, 0});
  h.Step(2);
  EXPECT_EQ(h.engine().cluster_state().facility().limit_mw(1), 100'000'000);
}

TEST(FacilityPlacementTest, PowerBudgetCountsNominalPowerNotTheProjectedDraw) {
  // A feed over r1 that carries two tasks' projected draw but not two tasks at 700 W a device.
  const double feed_kw = 16 * H100IdleKw() + 16 * H100WorkKw() + 0.2;
  ASSERT_LT(feed_kw, 16 * 0.7);
  const model::Cluster cluster = TwoRacks(1000, feed_kw);
  // Only r1 may take work: r0's nodes are drained.
  for (const std::string filter : {"facility", "power_budget"}) {
    testing::Harness h(cluster, WithFilter("fifo", filter));
    h.Drain("r0-n0");
    h.Drain("r0-n1");
    const JobId gang = h.Submit(JobOf(2, 8));
    h.Step(0);
    EXPECT_EQ(h.NodesOf(gang).size(), filter == "facility" ? 2u : 0u) << filter;
  }
}

// Whatever the workload, no step leaves a power domain or cooling zone above its limit less the
// margin, under a policy with the facility filter (the building's limits fixed): starts,
// preemptions (a victim kept where the preemptor left it room must fit the budget too) and
// migrations alike.
RC_GTEST_PROP(FacilityPlacementProperty, NoStepTakesAnElementPastItsAllowance, ()) {
  const auto r0_kw = *rc::gen::inRange(2, 30);
  const auto r1_kw = *rc::gen::inRange(2, 30);
  const model::Cluster cluster = TwoRacks(r0_kw, r1_kw);
  const std::string preset = *rc::gen::element<std::string>("fifo", "slurm-like", "headroom");
  const double margin = *rc::gen::element(0.0, 0.05, 0.2);
  testing::Harness h(cluster, WithFilter(preset, "facility", margin));
  const FacilityLedger& ledger = h.engine().cluster_state().facility();
  const auto count = *rc::gen::inRange(1, 30);
  std::vector<JobId> jobs;
  for (int step = 0; step < count; ++step) {
    const auto tasks = *rc::gen::inRange(1, 4);
    const auto devices = *rc::gen::element(1, 2, 4, 8);
    model::Job job = JobOf(static_cast<uint32_t>(tasks), static_cast<uint32_t>(devices));
    // Priorities make headroom's policy preempt, and a victim its head leaves alone stays.
    job.priority = *rc::gen::inRange(0, 3);
    jobs.push_back(h.Submit(std::move(job)));
    if (step % 3 == 2) h.Cancel(jobs[static_cast<size_t>(step) / 2]);
    h.Step(step);
    for (uint32_t element = 0; element < ledger.size(); ++element) {
      // Idle devices alone may be over a tiny limit; work is never added past it.
      RC_ASSERT(ledger.load_mw(element) <=
                std::max(ledger.allowance_mw(element),
                         static_cast<int64_t>(16 * H100IdleKw() * 1e6) + 16));
    }
  }
}

}  // namespace
}  // namespace headroom::engine
