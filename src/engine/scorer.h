// Scorer role: rates a node for some tasks of a request; the placer sends each task to the
// best-rated node that passes the filters (ties to the lower node id, so rankings are
// deterministic). A policy combines scorers by name with weights (PolicyConfig::node_scorers).
//
// The contract every scorer keeps (tests/engine/scorer_contract_test.cc runs it over each
// registered one): a score lies in [0, 1] so that weights compare; it is a pure function of
// the state, node, request and task count (the same inputs give the same score, and scoring
// changes nothing); and it is only asked about a node with room for the tasks.
//
// The built-in scorers, one file each under scorers/:
//  best_fit          The node left with the fewest free matching devices (Slurm cons_tres best
//                    fit; keeps emptier nodes for larger requests).
//  least_allocated   Kubernetes NodeResourcesFit LeastAllocated: mean over CPU, memory and
//                    devices of free-after-placement ÷ capacity (spreads load).
//  most_allocated    Kubernetes NodeResourcesFit MostAllocated: 1 − least_allocated (packs).
//  first_fit         The lowest node id (Slurm's linear order).
//  keep_whole_nodes  Avoids breaking into a node whose devices are all free when the task does
//                    not fill it: whole nodes are what large gangs need.
//  domain_pack       Nodes whose deepest fabric domain (rack / NVLink domain) is already more
//                    allocated, keeping whole domains free for gangs.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "engine/cluster_state.h"
#include "engine/registry.h"
#include "engine/request.h"

namespace headroom::engine {

class NodeScorer {
 public:
  virtual ~NodeScorer() = default;
  virtual std::string_view name() const = 0;
  // In [0, 1], higher is better. `node` has room for `tasks` tasks of the request.
  virtual double Score(const ClusterState& state, NodeId node, const PlacementRequest& request,
                       uint32_t tasks) const = 0;
};

// Every built-in scorer, by name.
const Registry<NodeScorer>& Scorers();

struct WeightedScorer {
  std::shared_ptr<const NodeScorer> scorer;
  double weight = 1;
};

// Σ weight × score over `scorers` for placing `tasks` tasks of the request on `node` (which
// must have room for them).
double ScoreNode(const ClusterState& state, NodeId node, const PlacementRequest& request,
                 uint32_t tasks, const std::vector<WeightedScorer>& scorers);

}  // namespace headroom::engine
