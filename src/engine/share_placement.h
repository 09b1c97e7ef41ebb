// SharePlacement: the engine's placement of one-task jobs by GPU-sharing scoring, when the
// policy names a share scorer (PolicyConfig::share). It decides which jobs it takes (one task;
// asking for part of a device, or any one task with `tasks: single_task`), keeps the workload
// the scorer plans for, and asks its SharePlacer (share_placer.h) where a job goes. The engine
// allocates what it returns and tells it of every task placed or gone (Track).
//
// The workload: by default learned from the jobs it takes, as they are submitted (or restored):
// their shapes' typical set (frag.h) is recomputed when their number has doubled since the last
// time, and when a job names a selector not seen before; O(log jobs) recomputations, each
// O(jobs). Cancelled and finished jobs stay in it: they are what was asked for. A caller
// that knows the target workload gives it instead (ShareSetup: the fill experiment gives the
// artifact's, with its random stream, so that the engine repeats the artifact's runs).
//
// It is unavailable (Make returns null) on a cluster whose nodes the share placer cannot model:
// a node with more than kMaxShareGpus devices, or with devices of two classes.
// Promise: deterministic in its inputs (the same jobs in the same order, the same setup).
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "base/go_rand.h"
#include "engine/cluster_state.h"
#include "engine/frag.h"
#include "engine/policy_config.h"
#include "engine/request.h"
#include "engine/share_placer.h"
#include "model/cluster.h"
#include "model/job.h"

namespace headroom::engine {

// Whether the share placer can model every node: at most kMaxShareGpus devices, of one class.
bool SharePlaceable(const model::Cluster& cluster);
// A task type's row of ShapeTypes::accepts: by device class, whether `selector` accepts it.
std::vector<uint8_t> AcceptedModels(const model::Cluster& cluster, const model::Selector& selector);
// The share placer's view of a task of type `type`.
PodShape PodShapeOf(const model::TaskShape& task, uint32_t type);

// A fixed target workload and random stream for share placement.
struct ShareSetup {
  std::vector<TypicalShape> typical;
  ShapeTypes types;                                  // Type 0 accepts every model.
  std::map<std::string, uint32_t> type_by_selector;  // A selector's text → its type in `types`.
  GoRand rng;
};

class SharePlacement {
 public:
  // Null when the policy names no share scorer or the cluster has a node it cannot model.
  // `config` must have passed ValidatePolicy; `cluster` must outlive the result.
  static std::unique_ptr<SharePlacement> Make(const model::Cluster& cluster,
                                              const SharePlacementConfig& config,
                                              std::optional<ShareSetup> setup);

  bool Takes(const model::Job& job) const;
  // A job it takes was submitted: part of the workload from now on (when learning it).
  void Submitted(const model::Job& job);
  // Where the job's one task goes (the state unchanged), or nullopt. `gate`: the policy's node
  // filters for the job; `avoid`: capacity held for a reservation (may be null).
  std::optional<TaskAllocation> Place(const ClusterState& state, const model::Job& job,
                                      const SharePlacer::NodeGate& gate,
                                      const ReservedCapacity* avoid);
  void Track(const TaskAllocation& task, int sign) { placer_.Track(task, sign); }

  const SharePlacer& placer() const { return placer_; }

 private:
  SharePlacement(const model::Cluster& cluster, const SharePlacementConfig& config,
                 SharePolicy policy, ShareSetup setup, bool learning);
  uint32_t TypeOf(const model::Selector& selector);
  PodShape ShapeOf(const model::Job& job);

  const model::Cluster& cluster_;
  SharePlacementConfig config_;
  bool learning_;
  ShapeTypes types_;
  std::map<std::string, uint32_t> type_by_selector_;
  SharePlacer placer_;
  // Learning: the shapes taken so far, their number, and that number at the last relearning.
  std::map<std::tuple<int64_t, uint32_t, uint32_t, uint32_t>, uint64_t> seen_;
  uint64_t seen_total_ = 0;
  uint64_t seen_at_relearn_ = 0;
};

}  // namespace headroom::engine
