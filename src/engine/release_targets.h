// Release targets: where releasing running work could make room for a blocked job, in the order
// defragmentation (defrag.h) and preemption (preemption.h) search them. Both release jobs one at
// a time inside a target and place the blocked job once the target holds enough free devices.
//
// Targets are the fabric domains from the deepest level up to the job's required level (the
// root when it states none) whose free plus releasable matching capacity covers the job's
// demand: deepest level first, then fewest missing milli-devices, then lower id. Enough free
// devices by the aggregates may still not place (they sit on too many nodes), so a domain
// qualifies whenever free and releasable capacity together cover it.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "base/ids.h"
#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/request.h"

namespace headroom::engine {

// Milli-devices of `mask`'s device classes that `task` holds: what releasing it gives a job of
// those classes.
uint64_t MatchingMilli(const model::Cluster& cluster, const TaskAllocation& task,
                       const ClassMask& mask);

// Which releasable jobs hold what a blocked job could use, by node.
struct Releasable {
  // (node, job index), each job once per node, ascending.
  std::vector<std::pair<uint32_t, uint32_t>> on_node;
  std::vector<uint64_t> node_milli;  // Matching milli-devices the jobs hold, by node.

  Releasable(const model::Cluster& cluster, const ClassMask& mask);
  // Job `index` holds `tasks` (releasing it may free CPU and memory on a node where it holds
  // no matching device, so it is listed there too). Jobs are added in ascending index order.
  void Add(uint32_t index, const std::vector<TaskAllocation>& tasks);
  // Sorts `on_node`; call once every job is added.
  void Seal();
  // The job indices on nodes [node_begin, node_end), in node order, possibly repeated.
  std::vector<uint32_t> JobsOn(uint32_t node_begin, uint32_t node_end) const;

 private:
  const model::Cluster& cluster_;
  const ClassMask& mask_;
  bool every_class_;  // The mask matches every device class of the cluster.
};

// See the file comment.
std::vector<DomainId> ReleaseTargets(const ClusterState& state, const PlacementRequest& head,
                                     const Releasable& releasable);

}  // namespace headroom::engine
