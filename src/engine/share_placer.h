// SharePlacer: places one-node tasks that may share a GPU, one at a time, the way a
// Kubernetes scheduler with one score plugin does in FGD's evaluation: filter (CPU, memory,
// GPU model, enough GPUs with enough free milli), score every feasible node with a
// SharePolicy (share_scorers.h), take the highest score — ties to the node of lowest rank in a
// seeded random permutation, as the artifact's modified selectHost does (it prefers the
// lexicographically smallest node name, and names carry a random "%04d-" prefix) — and pick
// the GPUs inside the node. All random draws (the permutation, and the Random policy's picks)
// come from one Go math/rand stream, so a fill run can repeat the artifact's run exactly.
//
// Speed: a node's score for a task shape depends only on the node's state and the shape, so
// it is cached per (shape, node) and recomputed only after that node changed
// (ClusterState::node_version); a fill of the openb cluster (1,213 nodes, ~10,000 tasks) costs
// O(tasks × nodes) cache reads plus one score per changed node and shape. Nodes holding
// capacity for a reservation are scored afresh without it (few: one blocked job's).
// Inside the engine (engine_share.cc) it places the one-task jobs a policy's share_placement
// names; the engine tells it of every task placed or gone (Track), for the clustering scorer.
// Determinism: a placer with the same generator state, cluster and calls makes the same choices.
// Threading: single-threaded.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/go_rand.h"
#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/frag.h"
#include "engine/request.h"
#include "engine/share_scorers.h"

namespace headroom::engine {

class SharePlacer {
 public:
  // Draws the node permutation from `rng` first, as the artifact's syncClusterResourceList
  // does (rand.Perm over the nodes sorted by name; node i gets prefix perm[i]).
  SharePlacer(const model::Cluster& cluster, SharePolicy policy, std::vector<TypicalShape> typical,
              ShapeTypes types, GoRand rng);

  // Beside the placer's own test (CPU, memory, GPU model, GPUs with enough free milli): the
  // caller's, e.g. the policy's node filters. It must answer the same for a node while the
  // node's version is unchanged (its answer is cached with the score).
  using NodeGate = std::function<bool(NodeId)>;

  // Where the task goes, or nullopt when no node fits; `state` is not changed. `gate` and
  // `avoid` (capacity held for a reservation, which the task must leave alone) may be null.
  std::optional<TaskAllocation> Choose(const ClusterState& state, const PodShape& shape,
                                       int64_t memory_mib, const NodeGate* gate,
                                       const ReservedCapacity* avoid);
  // A task was placed on (sign +1) or left (-1) its node: what the clustering scorer counts.
  void Track(const TaskAllocation& task, int sign);
  // Choose, then allocate it in `state` and Track it: for a caller that owns the state alone.
  std::optional<TaskAllocation> Place(ClusterState& state, const PodShape& shape,
                                      int64_t memory_mib);

  // Plans for another workload from now on (the engine relearns it as jobs arrive): the
  // permutation, the random stream and the tracked tasks stay.
  void SetWorkload(std::vector<TypicalShape> typical, ShapeTypes types);

  // The node's free resources as the scorers see them.
  NodeView ViewOf(const ClusterState& state, NodeId node) const;

  const std::vector<TypicalShape>& typical() const { return typical_; }
  const ShapeTypes& types() const { return types_; }

 private:
  struct Cached {
    uint64_t version = UINT64_MAX;  // The node's version when computed; MAX: never.
    bool feasible = false;
    NodeScore score;
  };
  struct ShapeHash {
    size_t operator()(const PodShape& s) const;
  };

  uint32_t ShapeId(const PodShape& shape);
  bool Feasible(const NodeView& view, const PodShape& shape) const;
  // The node's view without what `avoid` holds there.
  NodeView ViewAvoiding(const ClusterState& state, NodeId node,
                        const ReservedCapacity& avoid) const;
  static bool Holds(const ReservedCapacity& avoid, uint32_t node);  // Anything reserved there.
  TaskAllocation Allocation(const NodeView& view, NodeId node, const PodShape& shape, int32_t gpu,
                            int64_t memory_mib) const;

  const model::Cluster& cluster_;
  SharePolicy policy_;
  std::vector<TypicalShape> typical_;
  ShapeTypes types_;
  GoRand rng_;
  double cpu_per_gpu_milli_;
  std::vector<double> capacity_share_;  // Of the cluster's GPUs, by model.
  std::vector<double> scarcity_;
  PackingValues packing_;
  std::vector<uint32_t> node_model_;  // Device class of each node's GPUs; UINT32_MAX: none.
  std::vector<NodeKinds> node_kinds_;
  std::vector<uint32_t> node_rank_;  // The random name prefix; equal scores go to the lower.
  std::unordered_map<PodShape, uint32_t, ShapeHash> shape_ids_;
  std::vector<std::vector<Cached>> cache_;  // [shape id][node]
  std::vector<uint32_t> feasible_scratch_;
  std::vector<int64_t> score_scratch_;
  std::vector<NodeScore> node_scores_;  // With a reservation: parallel to feasible_scratch_.
};

}  // namespace headroom::engine
