// Preempter: finds the running jobs to requeue so that a blocked job of higher priority starts
// now (PreemptionConfig, policy_config.h).
//
// The caller lists the candidates: running jobs of strictly lower priority that have run their
// minimum time, with what preempting each costs (work lost since its last checkpoint plus its
// restart, × its devices). The search:
//  1. Targets: the domains where releasing candidates could make room (release_targets.h).
//  2. In a target, its candidates in the policy's victim order (victim_selector.h) are
//     released one at a time inside a transaction; after each release that leaves the target
//     enough free devices by the aggregates, the blocked job is placed by the policy's placer.
//  3. Once it places, it is allocated and the released jobs are offered their own devices back
//     in reverse release order (the most protected first, as Kubernetes reprieves victims):
//     one whose every task still fits stays running. The rest are the plan's victims.
// Among the targets' plans the best is the one whose worst victim (by tier, then the victim
// order) is least bad, then the cheapest, then the one with fewer victims; ties: the first
// found. Gangs are whole: a victim is a job, released and requeued with all its tasks. The
// victims' cost stays within what the changeover budget has left, and that of the candidates
// outranked by attained service alone within what the turnover budget has left: a candidate
// that would take a released cost past its budget is not released.
// Work: at most PreemptionConfig::max_placements placements per search and max_victims jobs
// released per target; never time.
//
// Promises:
//  1. Plan leaves the state exactly as given: every change happens inside a rolled-back mark.
//  2. A plan applied in order — release the victims' tasks, allocate the blocked job's —
//     fits the state it was planned on.
//  3. No job appears twice among a plan's victims; each victim was a candidate.
//  4. Deterministic: the same state and candidates give the same plan.
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/placement.h"
#include "engine/policy_config.h"
#include "engine/request.h"
#include "engine/rolling_budget.h"
#include "engine/victim_selector.h"

namespace headroom::engine {

struct PreemptionCandidate {
  MovableJob job;
  int64_t cost_device_us = 0;  // What preempting it loses: (lost work + restart) × devices.
  // Lower tiers go first, whatever the victim order says (quotas: work on borrowed capacity
  // before a queue's own lower-priority work).
  uint8_t tier = 0;
  // Outranked by attained service alone (PreemptReason::kLessService): its cost also spends
  // the turnover budget (PreemptionConfig::service_budget_device_s_per_hour).
  bool by_service = false;
};

// Quotas' say in a search (quota.h): which candidates may go and whether the blocked job's
// queues admit it, on books the search changes as it releases and reprieves candidates.
class PreemptionGate {
 public:
  virtual ~PreemptionGate() = default;
  // Whether candidate `v` may be released now (the capacity it borrows is still borrowed).
  virtual bool MayRelease(uint32_t v) const = 0;
  virtual void Release(uint32_t v) = 0;
  virtual void PutBack(uint32_t v) = 0;
  // Whether the blocked job's queues admit it with what is released now.
  virtual bool AdmitsHead() const = 0;
};

struct PreemptionPlan {
  std::vector<TaskAllocation> head_tasks;  // Where the blocked job goes.
  std::vector<uint32_t> victims;           // Indices into the candidates, in release order.
  int64_t cost_device_us = 0;
};

class Preempter {
 public:
  Preempter(const PreemptionConfig& config, std::shared_ptr<const VictimSelector> victims)
      : config_(config),
        victims_(std::move(victims)),
        changeover_(BudgetOf(config.changeover_budget_device_s_per_hour)),
        turnover_(BudgetOf(config.service_budget_device_s_per_hour)) {}

  bool enabled() const { return config_.enabled; }
  const PreemptionConfig& config() const { return config_; }
  // The changeover budget: what preemptions lost, charged in the rolling hour.
  RollingBudget& changeover() { return changeover_; }
  const RollingBudget& changeover() const { return changeover_; }
  // The turnover budget: what preemptions by attained service alone lost, in the rolling hour.
  RollingBudget& turnover() { return turnover_; }
  const RollingBudget& turnover() const { return turnover_; }

  // Work a running job loses if preempted at `now`: what it did since its last checkpoint,
  // counting checkpoints every `interval_us` from `checkpoint_base_us` (when it last began
  // working from a saved state); all of it when `interval_us` is 0.
  static TimeUs LostUs(TimeUs checkpoint_base_us, TimeUs interval_us, TimeUs now);

  // See the file comment. `candidates` must hold only jobs that may be preempted; a plan's
  // cost stays within what the changeover budget has left at `now` (and the turnover budget,
  // that of the candidates by service). With a `gate` (quotas),
  // a candidate is released only when the gate lets it go, the blocked job is placed only when
  // the gate admits it, a reprieve only stands while the gate still admits the job, and the
  // gate's books are as given when Plan returns.
  std::optional<PreemptionPlan> Plan(ClusterState& state, const Placer& placer,
                                     const PlacementRequest& head,
                                     std::span<const PreemptionCandidate> candidates, TimeUs now,
                                     PreemptionGate* gate = nullptr);

 private:
  static RollingBudget BudgetOf(int64_t device_s_per_hour) {
    return RollingBudget(device_s_per_hour > 0 ? device_s_per_hour * kUsPerSecond
                                               : RollingBudget::kUnlimited);
  }

  PreemptionConfig config_;
  std::shared_ptr<const VictimSelector> victims_;
  RollingBudget changeover_;
  RollingBudget turnover_;
};

}  // namespace headroom::engine
