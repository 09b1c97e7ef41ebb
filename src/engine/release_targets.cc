#include "engine/release_targets.h"

#include <algorithm>
#include <tuple>

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
    : node_milli(cluster.nodes().size(), 0), cluster_(cluster), mask_(mask) {}

void Releasable::Add(uint32_t index, const std::vector<TaskAllocation>& tasks) {
  for (const TaskAllocation& task : tasks) {
    on_node.emplace_back(task.node.value(), index);
    node_milli[task.node.value()] += MatchingMilli(cluster_, task, mask_);
  }
}

void Releasable::Seal() {
  std::sort(on_node.begin(), on_node.end());
  on_node.erase(std::unique(on_node.begin(), on_node.end()), on_node.end());
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
