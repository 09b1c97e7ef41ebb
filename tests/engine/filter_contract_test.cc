// The filter role's contract (filter.h), run over every registered filter: its answer is a pure
// function of its inputs, and no placement ever puts a task on a node that a filter of the
// policy rejects — checked on random states, and through the engine with random workloads and
// drains under a policy that lists the filter.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/filter.h"
#include "tests/engine/role_fixtures.h"

namespace headroom::engine {
namespace {

std::vector<std::unique_ptr<NodeFilter>> EveryFilter() {
  std::vector<std::unique_ptr<NodeFilter>> filters;
  for (const auto& entry : Filters().entries()) filters.push_back(entry.make());
  return filters;
}

RC_GTEST_PROP(FilterContract, EveryFilterIsPureAndThePlacerHonoursIt, ()) {
  const testing::RandomState random = testing::GenRandomState();
  ClusterState& state = *random.state;
  for (const auto& entry : Filters().entries()) {
    PolicyConfig policy =
        *PresetPolicy(*rc::gen::element<std::string>("fifo", "spread", "slurm-like", "headroom"));
    policy.filters = {std::string(entry.name)};
    const Placer placer(PlacementOptionsOf(policy));
    const std::unique_ptr<NodeFilter> filter = entry.make();
    RC_ASSERT(filter->name() == entry.name);
    RC_ASSERT(!filter->rejects().empty());
    for (const testing::OwnedRequest& owned : random.requests) {
      const PlacementRequest request = owned.request();
      for (const model::Node& node : random.cluster->nodes()) {
        const bool admits = filter->Admits(state, node.id, request);
        RC_ASSERT(admits == filter->Admits(state, node.id, request));
        if (!admits) RC_ASSERT(placer.NodeCapacity(state, node.id, request, nullptr) == 0u);
      }
      if (auto tasks = placer.Place(state, request, nullptr)) {
        for (const TaskAllocation& task : *tasks) {
          RC_ASSERT(filter->Admits(state, task.node, request));
        }
      }
    }
    RC_ASSERT(state.CheckInvariants().empty());
  }
}

// Through the engine: whatever starts or moves goes to nodes every filter admits at that
// moment.
RC_GTEST_PROP(FilterContract, TheEngineStartsWorkOnlyWhereEveryFilterAdmits, ()) {
  const auto spec = *headroom::testing::GenClusterSpec();
  const model::Cluster cluster = spec.Build();
  const auto jobs = headroom::testing::ToJobs(*headroom::testing::GenWorkload());
  const auto drains = *headroom::testing::GenDrains();
  PolicyConfig policy = *PresetPolicy(*rc::gen::element<std::string>("fifo", "headroom"));
  for (std::string_view name : Filters().Names()) policy.filters.emplace_back(name);
  headroom::testing::EngineDriver driver(cluster, policy, jobs);
  for (const auto& drain : drains) {
    const NodeId node(drain.node % static_cast<uint32_t>(cluster.nodes().size()));
    driver.AddNodeEvent(SecondsToUs(static_cast<double>(drain.from_s)), node, true);
    driver.AddNodeEvent(SecondsToUs(static_cast<double>(drain.to_s)), node, false);
  }
  ClusterState mirror(cluster);  // Drains as the engine saw them when it placed.
  const auto filters = EveryFilter();
  RC_ASSERT(driver.Run([&](const headroom::testing::StepInfo& step) {
    for (const NodeDrained& event : step.node_events) mirror.SetDrained(event.node, event.drained);
    auto check = [&](JobId job, const std::vector<TaskAllocation>& tasks) {
      const testing::OwnedRequest owned = testing::RequestFor(cluster, jobs[job.value()]);
      for (const TaskAllocation& task : tasks) {
        for (const auto& filter : filters) {
          RC_ASSERT(filter->Admits(mirror, task.node, owned.request()));
        }
      }
    };
    for (const MigrateJob& move : step.decisions->migrations) check(move.job, move.tasks);
    for (const StartJob& start : step.decisions->starts) check(start.job, start.tasks);
  }));
}

TEST(FilterContract, MandatoryFiltersRunWhetherListedOrNot) {
  auto none = PolicyFilters({});
  ASSERT_TRUE(none.has_value());
  std::vector<std::string_view> names;
  for (const auto& filter : *none) names.push_back(filter->name());
  EXPECT_EQ(names, (std::vector<std::string_view>{"drained", "device_selector"}));
  auto listed = PolicyFilters({"device_selector", "drained", "device_selector"});
  ASSERT_TRUE(listed.has_value());
  EXPECT_EQ(listed->size(), 2u);
  auto unknown = PolicyFilters({"healthy"});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("filter 'healthy': expected one of drained"),
            std::string::npos);
}

TEST(FilterContract, DrainedAndSelectorRejectExactlyWhatTheySay) {
  const model::Cluster cluster =
      headroom::testing::TinyCluster().Rack("r0", {{"n0", 8, "H100"}, {"n1", 8, "A100"}}).Build();
  ClusterState state(cluster);
  state.SetDrained(NodeId(1), true);
  auto drained = Filters().Make("drained");
  auto selector = Filters().Make("device_selector");
  const testing::OwnedRequest h100 =
      testing::RequestFor(cluster, headroom::testing::JobOf(1, 1, "model == \"H100\""));
  const testing::OwnedRequest cpu = testing::RequestFor(cluster, headroom::testing::JobOf(1, 0));
  EXPECT_TRUE((*drained)->Admits(state, NodeId(0), h100.request()));
  EXPECT_FALSE((*drained)->Admits(state, NodeId(1), cpu.request()));
  EXPECT_TRUE((*selector)->Admits(state, NodeId(0), h100.request()));
  EXPECT_FALSE((*selector)->Admits(state, NodeId(1), h100.request()));
  EXPECT_TRUE((*selector)->Admits(state, NodeId(1), cpu.request()));
}

}  // namespace
}  // namespace headroom::engine
