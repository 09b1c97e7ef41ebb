// Defragmenter: plans migrations that let a job blocked only by fragmentation start now.
//
// When the first blocked job of a pass has enough free devices of its class (in the cluster,
// or in some domain of its required level) but no placement, the engine asks for a plan: a
// few running jobs to move, and where, after which the blocked job places. The search:
//  1. Targets: domains that could hold the job once movable work leaves them — levels from the
//     deepest up to the job's required level (the root when none states one), and in each the
//     domains whose free plus movable matching capacity covers the demand, fewest missing
//     devices first (ties: lower id).
//  2. In a target, nodes in order of what clearing them costs (cheapest first, ties: lower
//     id), and on each node its movable jobs in the policy's victim order (victim_selector.h;
//     headroom's: cheapest first, ties lower id), are released one at a time inside a
//     transaction. After each release that leaves the target enough free
//     devices by the aggregates, the blocked job is placed by the policy's placer (anywhere).
//  3. Once it places, it is allocated and the released jobs are placed again, largest first,
//     wherever the placer puts them; a job placed back exactly where it was is not a move.
//     All placed: a candidate plan; otherwise the target fails. Either way the target ends.
// Cost and gain (device-microseconds; integers):
//   cost = Σ over moved jobs (checkpoint_us + restart_us) × devices (shares count one device)
//   gain = the blocked job's devices × the wait it avoids (the caller's estimate)
// A plan is returned only when cost < gain and cost fits what the rolling hour's budget has
// left; the cheapest candidate over the targets tried wins (ties: the first found).
// Work: at most MigrationConfig::max_placements placements tried per search, and at most
// max_moves jobs released per target; never time.
//
// Promises:
//  1. Plan leaves the state exactly as given: every change happens inside a rolled-back mark.
//  2. A plan's allocations, applied in order — release the moved jobs' tasks, allocate the
//     blocked job's, allocate the moved jobs' new tasks — fit the state it was planned on.
//  3. No job appears twice in a plan, and the blocked job is not among the moved.
//  4. Deterministic: the same state, job list and budget history give the same plan.
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/placement.h"
#include "engine/policy_config.h"
#include "engine/request.h"
#include "engine/rolling_budget.h"
#include "engine/victim_selector.h"

namespace headroom::engine {

struct MigrationPlan {
  std::vector<TaskAllocation> head_tasks;  // Where the blocked job goes.
  std::vector<MigrateJob> moves;           // In the order they were released.
  int64_t cost_device_us = 0;
};

class Defragmenter {
 public:
  // `victims` orders the movable jobs released on a node (victim_selector.h).
  Defragmenter(const MigrationConfig& config, std::shared_ptr<const VictimSelector> victims)
      : config_(config),
        victims_(std::move(victims)),
        budget_(config.budget_device_s_per_hour * kUsPerSecond) {}

  bool enabled() const { return config_.enabled; }
  TimeUs pause_us() const { return config_.checkpoint_us + config_.restart_us; }
  int64_t CostDeviceUs(uint64_t devices) const {
    return pause_us() * static_cast<int64_t>(devices);
  }

  // The migration budget: the moves' cost charged in the rolling hour.
  RollingBudget& budget() { return budget_; }
  const RollingBudget& budget() const { return budget_; }

  // See the file comment. `movable` lists every running job that may move (not the head).
  std::optional<MigrationPlan> Plan(ClusterState& state, const Placer& placer,
                                    const PlacementRequest& head, int64_t gain_device_us,
                                    std::span<const MovableJob> movable, TimeUs now);

 private:
  MigrationConfig config_;
  std::shared_ptr<const VictimSelector> victims_;
  RollingBudget budget_;
};

}  // namespace headroom::engine
