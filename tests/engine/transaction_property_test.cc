// ClusterState transactions: random sequences of allocations, releases, drains, marks and
// rollbacks. RollbackTo(mark) restores exactly the state seen at the mark — every query the
// class offers (free milli per device, free CPU and memory and drained per node, whole-free
// devices per node and class, domain aggregates, allocated milli) — and CheckInvariants stays
// empty after every operation. The state is also compared with a reference model recomputed
// from the live allocations alone, including the order in which VisitByWholeFree (an index
// kept up to date lazily) visits each level's domains, against a sort of the counts.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/cluster_state.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

using testing::ClusterSpec;
using testing::FreeCapacity;

// Everything ClusterState answers, as one comparable value.
struct Snapshot {
  std::vector<uint32_t> device_milli;
  std::vector<int64_t> node_cpu;
  std::vector<int64_t> node_memory;
  std::vector<bool> drained;
  std::vector<uint32_t> node_whole;
  std::vector<uint32_t> domain_whole;
  std::vector<uint64_t> domain_milli;
  // Per level, class, order and minimum of 0, 1 and 2 whole devices: the domains visited, then
  // UINT32_MAX.
  std::vector<uint32_t> visits;
  uint64_t allocated = 0;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot Take(const ClusterState& state) {
  const model::Cluster& cluster = state.cluster();
  Snapshot s;
  for (uint32_t d = 0; d < cluster.devices().size(); ++d) {
    s.device_milli.push_back(state.free_milli(DeviceId(d)));
  }
  for (const model::Node& node : cluster.nodes()) {
    s.node_cpu.push_back(state.free_cpu_milli(node.id));
    s.node_memory.push_back(state.free_memory_mib(node.id));
    s.drained.push_back(state.drained(node.id));
    for (uint32_t c = 0; c < state.class_count(); ++c) {
      s.node_whole.push_back(state.whole_free(node.id, DeviceClassId(c)));
    }
  }
  for (const model::Domain& domain : cluster.domains()) {
    for (uint32_t c = 0; c < state.class_count(); ++c) {
      s.domain_whole.push_back(state.domain_whole_free(domain.id, DeviceClassId(c)));
      s.domain_milli.push_back(state.domain_free_milli(domain.id, DeviceClassId(c)));
    }
  }
  for (uint32_t level = 0; level < cluster.domain_levels(); ++level) {
    for (uint32_t c = 0; c < state.class_count(); ++c) {
      for (const bool most_first : {false, true}) {
        for (uint32_t min_whole = 0; min_whole <= 2; ++min_whole) {
          state.VisitByWholeFree(level, DeviceClassId(c), min_whole, most_first,
                                 [&](DomainId domain) {
                                   s.visits.push_back(domain.value());
                                   return true;
                                 });
          s.visits.push_back(UINT32_MAX);
        }
      }
    }
  }
  s.allocated = state.allocated_milli();
  return s;
}

// What VisitByWholeFree must visit, from the domains' whole-free counts: a sort.
std::vector<uint32_t> ExpectedVisits(const model::Cluster& cluster, uint32_t class_count,
                                     const std::vector<uint32_t>& domain_whole) {
  std::vector<uint32_t> visits;
  for (uint32_t level = 0; level < cluster.domain_levels(); ++level) {
    for (uint32_t c = 0; c < class_count; ++c) {
      for (const bool most_first : {false, true}) {
        for (uint32_t min_whole = 0; min_whole <= 2; ++min_whole) {
          std::vector<std::pair<int64_t, uint32_t>> keyed;
          for (const DomainId domain : cluster.domains_at_level(level)) {
            const uint32_t whole = domain_whole[domain.value() * class_count + c];
            if (whole < min_whole) continue;
            keyed.emplace_back(most_first ? -int64_t{whole} : int64_t{whole}, domain.value());
          }
          std::sort(keyed.begin(), keyed.end());
          for (const auto& [key, domain] : keyed) visits.push_back(domain);
          visits.push_back(UINT32_MAX);
        }
      }
    }
  }
  return visits;
}

// The snapshot a state holding exactly `live` (and drained as given) must show.
Snapshot Expected(const model::Cluster& cluster, uint32_t class_count,
                  const std::vector<TaskAllocation>& live, const std::vector<bool>& drained) {
  FreeCapacity free = FreeCapacity::Empty(cluster);
  for (const TaskAllocation& task : live) free.Apply(task, +1);
  Snapshot s;
  s.node_whole.assign(cluster.nodes().size() * class_count, 0);
  s.domain_whole.assign(cluster.domains().size() * class_count, 0);
  s.domain_milli.assign(cluster.domains().size() * class_count, 0);
  for (const model::Device& device : cluster.devices()) {
    const uint32_t d = static_cast<uint32_t>(&device - cluster.devices().data());
    const uint32_t milli = static_cast<uint32_t>(free.device_milli[d]);
    s.device_milli.push_back(milli);
    s.allocated += model::kMilliPerDevice - milli;
    const uint32_t c = device.device_class.value();
    const uint32_t whole = milli == model::kMilliPerDevice ? 1 : 0;
    s.node_whole[device.node.value() * class_count + c] += whole;
    if (drained[device.node.value()]) continue;
    for (uint32_t level = 0; level < cluster.domain_levels(); ++level) {
      const uint32_t domain = cluster.AncestorAt(device.node, level).value();
      s.domain_whole[domain * class_count + c] += whole;
      s.domain_milli[domain * class_count + c] += milli;
    }
  }
  for (const model::Node& node : cluster.nodes()) {
    s.node_cpu.push_back(free.node_cpu_milli[node.id.value()]);
    s.node_memory.push_back(free.node_memory_mib[node.id.value()]);
    s.drained.push_back(drained[node.id.value()]);
  }
  s.visits = ExpectedVisits(cluster, class_count, s.domain_whole);
  return s;
}

// A random allocation that fits the state, or nothing when the drawn node has no room.
std::optional<TaskAllocation> DrawAllocation(const ClusterState& state) {
  const model::Cluster& cluster = state.cluster();
  const model::Node& node = cluster.nodes()[*rc::gen::inRange<size_t>(0, cluster.nodes().size())];
  TaskAllocation task;
  task.node = node.id;
  task.cpu_milli = *rc::gen::inRange<int64_t>(0, state.free_cpu_milli(node.id) + 1);
  task.memory_mib = *rc::gen::inRange<int64_t>(0, state.free_memory_mib(node.id) + 1);
  const bool share = *rc::gen::inRange(0, 3) == 0;
  if (share) {
    task.milli_per_device = *rc::gen::element<uint32_t>(100, 250, 500, 900);
    std::vector<uint32_t> candidates;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      if (state.free_milli(DeviceId(d)) >= task.milli_per_device) candidates.push_back(d);
    }
    if (candidates.empty()) return std::nullopt;
    task.devices.push_back(DeviceId(*rc::gen::elementOf(candidates)));
  } else {
    std::vector<uint32_t> whole;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      if (state.free_milli(DeviceId(d)) == model::kMilliPerDevice) whole.push_back(d);
    }
    const size_t count = *rc::gen::inRange<size_t>(0, whole.size() + 1);
    for (size_t i = 0; i < count; ++i) task.devices.push_back(DeviceId(whole[i]));
  }
  return task;
}

RC_GTEST_PROP(TransactionPropertyTest, RollbackRestoresExactly, ()) {
  const ClusterSpec spec = *testing::GenClusterSpec();
  const model::Cluster cluster = spec.Build();
  ClusterState state(cluster);
  const uint32_t classes = state.class_count();

  std::vector<TaskAllocation> live;
  std::vector<bool> drained(cluster.nodes().size(), false);
  struct Saved {
    ClusterState::Mark mark;
    Snapshot snapshot;
    std::vector<TaskAllocation> live;
    std::vector<bool> drained;
  };
  std::vector<Saved> marks;

  const int operations = *rc::gen::inRange(1, 60);
  for (int op = 0; op < operations; ++op) {
    const int kind = *rc::gen::inRange(0, 10);
    if (kind <= 3) {
      if (auto task = DrawAllocation(state)) {
        state.Allocate(*task);
        live.push_back(std::move(*task));
      }
    } else if (kind <= 5) {
      if (!live.empty()) {
        const size_t i = *rc::gen::inRange<size_t>(0, live.size());
        state.Release(live[i]);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
      }
    } else if (kind == 6) {
      const uint32_t n = *rc::gen::inRange<uint32_t>(0, static_cast<uint32_t>(drained.size()));
      const bool drain = *rc::gen::arbitrary<bool>();
      state.SetDrained(NodeId(n), drain);
      drained[n] = drain;
    } else if (kind == 7) {
      marks.push_back(Saved{state.mark(), Take(state), live, drained});
    } else if (kind == 8) {
      if (!marks.empty()) {
        const size_t i = *rc::gen::inRange<size_t>(0, marks.size());
        state.RollbackTo(marks[i].mark);
        RC_ASSERT(Take(state) == marks[i].snapshot);
        live = marks[i].live;
        drained = marks[i].drained;
        marks.resize(i + 1);  // Marks after it are gone; this one stays valid.
      }
    } else {
      // Commit(0): nothing before now can be rolled back any more.
      state.Commit(0);
      marks.clear();
    }
    const std::string problem = state.CheckInvariants();
    if (!problem.empty()) RC_FAIL(fmt::format("after operation {}: {}", op, problem));
    RC_ASSERT(Take(state) == Expected(cluster, classes, live, drained));
  }
  // Rolling back to the very first mark restores the state it saw.
  if (!marks.empty()) {
    state.RollbackTo(marks.front().mark);
    RC_ASSERT(Take(state) == marks.front().snapshot);
    RC_ASSERT(state.CheckInvariants().empty());
  }
}

// A mark taken on a fresh state and rolled back to gives the fresh state, whatever happened.
TEST(TransactionPropertyTest, RollbackToFreshStateGivesEmptyCluster) {
  const model::Cluster cluster =
      testing::TinyCluster().Rack("r0", {{"n0", 4}, {"n1", 2, "A100"}}).Build();
  ClusterState state(cluster);
  const Snapshot fresh = Take(state);
  const ClusterState::Mark mark = state.mark();
  state.Allocate(TaskAllocation{.node = NodeId(0),
                                .devices = {DeviceId(0), DeviceId(1)},
                                .cpu_milli = 1000,
                                .memory_mib = 512});
  state.Allocate(TaskAllocation{
      .node = NodeId(1), .devices = {DeviceId(4)}, .milli_per_device = 250, .cpu_milli = 10});
  state.SetDrained(NodeId(1), true);
  EXPECT_EQ(state.allocated_milli(), 2250u);
  state.RollbackTo(mark);
  EXPECT_TRUE(Take(state) == fresh);
  EXPECT_EQ(state.CheckInvariants(), "");
}

}  // namespace
}  // namespace headroom::engine
