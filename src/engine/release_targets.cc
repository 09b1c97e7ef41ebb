#include "engine/release_targets.h"

#include <algorithm>
#include <tuple>

#include "base/check.h"
#include "engine/placement.h"

namespace headroom::engine {

uint64_t MatchingMilli(const model::Cluster& cluster, const TaskAllocation& task,
                       const ClassMask& mask) {
  uint64_t milli = 0;
  for (DeviceId device : task.devices) {
    if (mask.matches[cluster.device(device).device_class.value()]) milli += task.milli_per_device;
  }
  return milli;
}

Releasable::Releasable(const model::Cluster& cluster, const ClassMask& mask)
    : node_milli(cluster.nodes().size(), 0),
      cluster_(cluster),
      mask_(mask),
      every_class_(mask.classes.size() == cluster.device_classes().size()) {}

void Releasable::Add(uint32_t index, const std::vector<TaskAllocation>& tasks) {
  HR_CHECK(on_node.empty() || on_node.back().second < index);
  const size_t first = on_node.size();
  for (const TaskAllocation& task : tasks) {
    const uint32_t node = task.node.value();
    // Every device matches a mask of every class: no look-up of each device's class.
    node_milli[node] += every_class_ ? task.devices.size() * task.milli_per_device
                                     : MatchingMilli(cluster_, task, mask_);
    const bool listed =
        std::any_of(on_node.begin() + static_cast<std::ptrdiff_t>(first), on_node.end(),
                    [&](const auto& entry) { return entry.first == node; });
    if (!listed) on_node.emplace_back(node, index);
  }
}

void Releasable::Seal() {
  // A counting sort by node: stable, so each node's jobs stay in the ascending order added.
  std::vector<uint32_t> next(node_milli.size() + 1, 0);
  for (const auto& [node, unused_job] : on_node) ++next[node + 1];
  for (size_t n = 1; n < next.size(); ++n) next[n] += next[n - 1];
  std::vector<std::pair<uint32_t, uint32_t>> sorted(on_node.size());
  for (const auto& entry : on_node) sorted[next[entry.first]++] = entry;
  on_node = std::move(sorted);
}

std::vector<uint32_t> Releasable::JobsOn(uint32_t node_begin, uint32_t node_end) const {
  std::vector<uint32_t> jobs;
  const auto first = std::lower_bound(on_node.begin(), on_node.end(),
                                      std::pair<uint32_t, uint32_t>{node_begin, 0});
  for (auto it = first; it != on_node.end() && it->first < node_end; ++it) {
    jobs.push_back(it->second);
  }
  return jobs;
}

std::vector<DomainId> ReleaseTargets(const ClusterState& state, const PlacementRequest& head,
                                     const Releasable& releasable) {
  const model::Cluster& cluster = state.cluster();
  const uint64_t need_milli = head.milli();
  const uint32_t stop = head.required_level == kNoLevel ? 0 : head.required_level;
  std::vector<std::tuple<uint32_t, uint64_t, uint32_t>> ranked;  // (level order, missing, id)
  for (uint32_t level = cluster.deepest_level() + 1; level-- > stop;) {
    for (DomainId domain_id : cluster.domains_at_level(level)) {
      const model::Domain& domain = cluster.domain(domain_id);
      const uint64_t free = Placer::DomainBoundMilli(state, domain_id, head);
      uint64_t releasable_milli = 0;
      for (uint32_t n = domain.node_begin; n < domain.node_end; ++n) {
        releasable_milli += releasable.node_milli[n];
      }
      if (free + releasable_milli < need_milli) continue;
      ranked.emplace_back(cluster.deepest_level() - level, need_milli - std::min(free, need_milli),
                          domain_id.value());
    }
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<DomainId> targets;
  targets.reserve(ranked.size());
  for (const auto& [unused_level, unused_missing, domain] : ranked) targets.emplace_back(domain);
  return targets;
}

}  // namespace headroom::engine
