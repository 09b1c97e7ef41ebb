#include "engine/scorer.h"

#include <array>

#include "engine/scorers/builtin_scorers.h"

namespace headroom::engine {

const Registry<NodeScorer>& Scorers() {
  static constexpr std::array<Registry<NodeScorer>::Entry, 6> kEntries = {{
      {"best_fit", "the node left with the fewest free matching devices", &MakeBestFitScorer},
      {"least_allocated", "the node with the most capacity left (spreads)",
       &MakeLeastAllocatedScorer},
      {"most_allocated", "the node with the least capacity left (packs)", &MakeMostAllocatedScorer},
      {"first_fit", "the lowest node id", &MakeFirstFitScorer},
      {"keep_whole_nodes", "avoids breaking into an untouched node", &MakeKeepWholeNodesScorer},
      {"domain_pack", "nodes in the most allocated fabric domain", &MakeDomainPackScorer},
  }};
  static const Registry<NodeScorer> registry("scorer", kEntries);
  return registry;
}

double ScoreNode(const ClusterState& state, NodeId node, const PlacementRequest& request,
                 uint32_t tasks, const std::vector<WeightedScorer>& scorers) {
  double total = 0;
  for (const WeightedScorer& scorer : scorers) {
    total += scorer.weight * scorer.scorer->Score(state, node, request, tasks);
  }
  return total;
}

}  // namespace headroom::engine
