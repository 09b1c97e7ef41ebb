#include "sim/block_metrics.h"

#include <algorithm>

#include "base/check.h"

namespace headroom::sim {

std::vector<uint32_t> LargestFreeBlocks(const engine::ClusterState& state) {
  const model::Cluster& cluster = state.cluster();
  std::vector<uint32_t> largest(cluster.domain_levels(), 0);
  for (uint32_t level = 0; level < cluster.domain_levels(); ++level) {
    for (DomainId domain : cluster.domains_at_level(level)) {
      uint32_t free = 0;
      for (uint32_t c = 0; c < state.class_count(); ++c) {
        free += state.domain_whole_free(domain, DeviceClassId(c));
      }
      largest[level] = std::max(largest[level], free);
    }
  }
  return largest;
}

uint32_t DeepestCommonLevel(const model::Cluster& cluster,
                            std::span<const engine::TaskAllocation> tasks) {
  HR_CHECK(!tasks.empty());
  const NodeId first = tasks.front().node;
  for (uint32_t level = cluster.deepest_level(); level > 0; --level) {
    const DomainId domain = cluster.AncestorAt(first, level);
    const bool together = std::all_of(tasks.begin(), tasks.end(), [&](const auto& task) {
      return cluster.AncestorAt(task.node, level) == domain;
    });
    if (together) return level;
  }
  return 0;
}

bool SpansNodes(std::span<const engine::TaskAllocation> tasks) {
  return std::any_of(tasks.begin(), tasks.end(),
                     [&](const auto& task) { return task.node != tasks.front().node; });
}

}  // namespace headroom::sim
