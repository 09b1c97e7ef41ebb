// The built-in scorers' factories (one file each in this folder), for the registry in
// scorer.cc, and the arithmetic several of them share.
#pragma once

#include <memory>

#include "engine/scorer.h"

namespace headroom::engine {

std::unique_ptr<NodeScorer> MakeBestFitScorer();
std::unique_ptr<NodeScorer> MakeLeastAllocatedScorer();
std::unique_ptr<NodeScorer> MakeMostAllocatedScorer();
std::unique_ptr<NodeScorer> MakeFirstFitScorer();
std::unique_ptr<NodeScorer> MakeKeepWholeNodesScorer();
std::unique_ptr<NodeScorer> MakeDomainPackScorer();

// Mean over the resources the node has (CPU, memory, devices) of free-after-placing `tasks`
// tasks ÷ capacity, in [0, 1].
double FreeFractionAfter(const ClusterState& state, NodeId node, const PlacementRequest& request,
                         uint32_t tasks);

}  // namespace headroom::engine
