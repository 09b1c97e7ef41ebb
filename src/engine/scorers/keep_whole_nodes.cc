// keep_whole_nodes: 0 for breaking into a node whose devices are all free when the tasks do
// not fill it, else 1 — whole nodes are what large gangs need.
#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {
namespace {

class KeepWholeNodes final : public NodeScorer {
 public:
  std::string_view name() const override { return "keep_whole_nodes"; }
  double Score(const ClusterState& state, NodeId node_id, const PlacementRequest& request,
               uint32_t tasks) const override {
    const model::Node& node = state.cluster().node(node_id);
    const model::TaskShape& shape = *request.shape;
    if (node.device_count == 0 || shape.devices == 0) return 1;
    uint32_t whole = 0;
    for (uint32_t c = 0; c < state.class_count(); ++c) {
      whole += state.whole_free(node_id, DeviceClassId(c));
    }
    const bool untouched = whole == node.device_count;
    const bool fills = uint64_t{tasks} * shape.devices >= node.device_count && !shape.fractional();
    return untouched && !fills ? 0 : 1;
  }
};

}  // namespace

std::unique_ptr<NodeScorer> MakeKeepWholeNodesScorer() {
  return std::make_unique<KeepWholeNodes>();
}

}  // namespace headroom::engine
