// best_fit: prefer the node left with the fewest free matching devices (Slurm cons_tres best
// fit), so emptier nodes stay for larger requests. CPU-only work fits on CPU instead;
// fractional work on the mean free fraction.
#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {
namespace {

class BestFit final : public NodeScorer {
 public:
  std::string_view name() const override { return "best_fit"; }
  double Score(const ClusterState& state, NodeId node_id, const PlacementRequest& request,
               uint32_t tasks) const override {
    const model::Node& node = state.cluster().node(node_id);
    const model::TaskShape& shape = *request.shape;
    if (node.device_count == 0 || shape.devices == 0) {
      if (node.cpu_milli == 0) return 0;
      const int64_t left = state.free_cpu_milli(node_id) - tasks * shape.cpu_milli;
      return 1.0 - static_cast<double>(left) / static_cast<double>(node.cpu_milli);
    }
    if (shape.fractional()) return 1.0 - FreeFractionAfter(state, node_id, request, tasks);
    uint32_t free = 0;
    for (DeviceClassId device_class : request.classes->classes) {
      free += state.whole_free(node_id, device_class);
    }
    const uint32_t used = tasks * shape.devices;
    const uint32_t left = free > used ? free - used : 0;
    return 1.0 - static_cast<double>(left) / node.device_count;
  }
};

}  // namespace

std::unique_ptr<NodeScorer> MakeBestFitScorer() { return std::make_unique<BestFit>(); }

}  // namespace headroom::engine
