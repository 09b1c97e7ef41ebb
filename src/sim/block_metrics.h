// Fabric-block metrics for the simulator: how large the free blocks are at each topology level,
// and how deep in the tree a placed gang stays together.
//
//   largest free block at level L = max over domains d of level L of
//                                   Σ over device classes of whole free devices in d
// (ClusterState's per-domain aggregates, which leave drained nodes out), so one sample costs
// O(domains × device classes).
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "model/cluster.h"

namespace headroom::sim {

// Index = level (root first).
std::vector<uint32_t> LargestFreeBlocks(const engine::ClusterState& state);

// The deepest level with one domain holding every task (0 when they span the root's children;
// the deepest level when all sit in one deepest-level domain). `tasks` must not be empty.
uint32_t DeepestCommonLevel(const model::Cluster& cluster,
                            std::span<const engine::TaskAllocation> tasks);

// Whether the tasks use more than one node.
bool SpansNodes(std::span<const engine::TaskAllocation> tasks);

}  // namespace headroom::sim
