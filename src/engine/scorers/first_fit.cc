// first_fit: prefer the lowest node id, as Slurm's linear node order does.
#include <algorithm>

#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {
namespace {

class FirstFit final : public NodeScorer {
 public:
  std::string_view name() const override { return "first_fit"; }
  double Score(const ClusterState& state, NodeId node, const PlacementRequest&,
               uint32_t) const override {
    return 1.0 - static_cast<double>(node.value()) /
                     static_cast<double>(std::max<size_t>(state.cluster().nodes().size(), 1));
  }
};

}  // namespace

std::unique_ptr<NodeScorer> MakeFirstFitScorer() { return std::make_unique<FirstFit>(); }

}  // namespace headroom::engine
