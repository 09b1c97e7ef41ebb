// Node scorers: small named functions that rate a node for one task of a request (higher is
// better). A policy combines them with weights (PolicyConfig::node_scorers); ties go to the
// lower node id, so rankings are deterministic.
//
//  best_fit          Prefer the node left with the fewest free matching devices (Slurm
//                    cons_tres best fit; keeps emptier nodes for larger requests).
//  least_allocated   Kubernetes NodeResourcesFit LeastAllocated: mean over CPU, memory and
//                    devices of free-after-placement ÷ capacity (spreads load).
//  most_allocated    The opposite of least_allocated (kube MostAllocated, bin packing).
//  first_fit         Prefer the lowest node id (Slurm's linear order).
//  keep_whole_nodes  Penalise breaking into a node whose devices are all free when the task
//                    does not fill it: whole nodes are what large gangs need.
//  domain_pack       Prefer nodes whose deepest fabric domain (rack / NVLink domain) is
//                    already more allocated, keeping whole domains free for gangs.
// Scores lie in [0, 1] so weights compare.
#pragma once

#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/cluster_state.h"
#include "engine/request.h"

namespace headroom::engine {

enum class ScorerKind {
  kBestFit,
  kLeastAllocated,
  kMostAllocated,
  kFirstFit,
  kKeepWholeNodes,
  kDomainPack
};

struct WeightedScorer {
  ScorerKind kind;
  double weight = 1;
};

Result<ScorerKind> ScorerByName(std::string_view name);
std::vector<std::string_view> ScorerNames();

// Score of placing `tasks` tasks of the request on `node` (which must have room for them).
double ScoreNode(const ClusterState& state, NodeId node, const PlacementRequest& request,
                 uint32_t tasks, const std::vector<WeightedScorer>& scorers);

}  // namespace headroom::engine
