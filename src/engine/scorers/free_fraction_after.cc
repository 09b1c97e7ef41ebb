#include <algorithm>

#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {

double FreeFractionAfter(const ClusterState& state, NodeId node_id, const PlacementRequest& request,
                         uint32_t tasks) {
  const model::Node& node = state.cluster().node(node_id);
  const model::TaskShape& shape = *request.shape;
  double sum = 0;
  int resources = 0;
  if (node.cpu_milli > 0) {
    sum += static_cast<double>(state.free_cpu_milli(node_id) - tasks * shape.cpu_milli) /
           static_cast<double>(node.cpu_milli);
    ++resources;
  }
  if (node.memory_mib > 0) {
    sum += static_cast<double>(state.free_memory_mib(node_id) - tasks * shape.memory_mib) /
           static_cast<double>(node.memory_mib);
    ++resources;
  }
  if (node.device_count > 0) {
    uint64_t free_milli = 0;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      free_milli += state.free_milli(DeviceId(d));
    }
    const uint64_t used = uint64_t{tasks} * shape.devices * shape.milli_per_device;
    sum +=
        static_cast<double>(free_milli - std::min(free_milli, used)) / (1000.0 * node.device_count);
    ++resources;
  }
  return resources == 0 ? 0 : sum / resources;
}

}  // namespace headroom::engine
