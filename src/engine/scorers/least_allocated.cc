// least_allocated: Kubernetes NodeResourcesFit with the LeastAllocated strategy — the mean
// over CPU, memory and devices of free-after-placement ÷ capacity, so load spreads
// (kubernetes.io/docs/reference/scheduling/config, NodeResourcesFit scoringStrategy).
#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {
namespace {

class LeastAllocated final : public NodeScorer {
 public:
  std::string_view name() const override { return "least_allocated"; }
  double Score(const ClusterState& state, NodeId node, const PlacementRequest& request,
               uint32_t tasks) const override {
    return FreeFractionAfter(state, node, request, tasks);
  }
};

}  // namespace

std::unique_ptr<NodeScorer> MakeLeastAllocatedScorer() {
  return std::make_unique<LeastAllocated>();
}

}  // namespace headroom::engine
