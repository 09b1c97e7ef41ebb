#include "control/daemon_state.h"

namespace headroom::control {

std::string HealthKey(std::string_view node) {
  return std::string(kHealthKeyPrefix) + std::string(node);
}

std::string_view NodeHealthName(NodeHealth health) {
  switch (health) {
    case NodeHealth::kUp:
      return "up";
    case NodeHealth::kUnknown:
      return "unknown";
    case NodeHealth::kDown:
      return "down";
  }
  return "unknown";
}

Topology MakeTopology(std::shared_ptr<const model::Cluster> cluster) {
  Topology topology;
  topology.cluster = cluster;
  if (cluster == nullptr) return topology;
  for (const model::Node& node : cluster->nodes()) {
    TopologyNode out;
    out.name = node.name;
    out.devices = node.device_count;
    if (node.device_count > 0) {
      out.device_model =
          cluster->device_class(cluster->device(DeviceId(node.first_device)).device_class).model;
    }
    for (uint32_t level = 0; level < cluster->domain_levels(); ++level) {
      out.path.push_back(cluster->domain(cluster->AncestorAt(node.id, level)).name);
    }
    topology.nodes.push_back(std::move(out));
  }
  return topology;
}

std::map<std::string, uint64_t> DaemonState::AllocatedMilliByNode() const {
  std::map<std::string, uint64_t> out;
  for (uint64_t id : jobs.running_ids()) {
    for (const TaskPlacement& task : jobs.at(id).placement) {
      out[task.node] += uint64_t{task.milli_per_device} * task.device_indices.size();
    }
  }
  return out;
}

}  // namespace headroom::control
