#include "sim/speed_model.h"

namespace headroom::sim {

SpeedModel::SpeedModel(std::vector<double> level_penalties, double node_penalty)
    : level_penalties_(std::move(level_penalties)), node_penalty_(node_penalty) {}

SpeedModel SpeedModel::Default(const model::Cluster& cluster) {
  const uint32_t levels = cluster.domain_levels();
  std::vector<double> penalties(levels, 0.15);
  penalties[0] = 0;  // There is one root: a gang never spans two.
  if (levels >= 2) penalties[levels - 1] = 0.10;
  return SpeedModel(std::move(penalties), 0.05);
}

double SpeedModel::Stretch(const model::Cluster& cluster,
                           const std::vector<engine::TaskAllocation>& tasks) const {
  if (tasks.size() <= 1) return 1.0;
  double stretch = 1.0;
  const NodeId first = tasks.front().node;
  bool spans_nodes = false;
  for (const auto& task : tasks) spans_nodes |= task.node != first;
  if (!spans_nodes) return stretch;
  stretch += node_penalty_;
  for (uint32_t level = 0; level < cluster.domain_levels() && level < level_penalties_.size();
       ++level) {
    const DomainId domain = cluster.AncestorAt(first, level);
    for (const auto& task : tasks) {
      if (cluster.AncestorAt(task.node, level) != domain) {
        stretch += level_penalties_[level];
        break;
      }
    }
  }
  return stretch;
}

}  // namespace headroom::sim
