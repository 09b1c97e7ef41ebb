// most_allocated: Kubernetes NodeResourcesFit with the MostAllocated strategy — 1 − the mean
// free fraction after placement, so work packs onto busy nodes (bin packing).
#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {
namespace {

class MostAllocated final : public NodeScorer {
 public:
  std::string_view name() const override { return "most_allocated"; }
  double Score(const ClusterState& state, NodeId node, const PlacementRequest& request,
               uint32_t tasks) const override {
    return 1.0 - FreeFractionAfter(state, node, request, tasks);
  }
};

}  // namespace

std::unique_ptr<NodeScorer> MakeMostAllocatedScorer() { return std::make_unique<MostAllocated>(); }

}  // namespace headroom::engine
