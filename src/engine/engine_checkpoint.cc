// Directed checkpoints (recovery.direct_checkpoints): each start of a job that declares what a
// checkpoint costs it (model::Job::checkpoint_cost_us, δ) is told how often to checkpoint. The
// interval balances δ, paid every interval, against the work a fault loses (half an interval
// on average) at the rate faults meet the job's nodes: Daly's higher-order estimate of the
// optimum (J. T. Daly, "A higher order estimate of the optimum checkpoint interval for restart
// dumps", FGCS 22(3), 2006), which refines Young's √(2 δ M) (1974) and is M when δ ≥ 2M. M is
// the job's mean time between faults: one over its distinct nodes × the faults per node-day
// the floor met (never below recovery.node_faults_per_day, the policy's prior; the job's own
// faults count too). A user cannot know the floor's fault rate; the scheduler does, and a
// 16,384-GPU job told to checkpoint hourly loses half an hour of 2,048 nodes at each of its
// faults, every three hours (docs/engine.md, "Faults and recovery"). The interval is never
// longer than the one the job would keep by itself (its own, else the policy's default): a
// preemption, which the fault rate does not foresee, loses the work since the last checkpoint
// too, so the scheduler only ever asks for checkpoints more often.
#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

// The interval the job checkpoints at by itself: its own, else the policy's default.
TimeUs OwnIntervalUs(const model::Job& job, const PolicyConfig& policy) {
  return job.checkpoint_interval_us > 0 ? job.checkpoint_interval_us
                                        : policy.preemption.checkpoint_interval_us;
}

}  // namespace

TimeUs Engine::DirectedIntervalUs(const JobRecord& r, TimeUs now) const {
  if (!policy_.recovery.direct_checkpoints || r.job.checkpoint_cost_us <= 0) return 0;
  const uint32_t distinct = DistinctNodes(r);
  HR_CHECK(distinct > 0);
  if (rate_cache_.at_us != now || rate_cache_.faults != node_interruptions_) {
    rate_cache_ = {now, node_interruptions_, FaultsPerNodeDay(nullptr, now)};
  }
  const double mtbf_s = 86400.0 / (static_cast<double>(distinct) * rate_cache_.faults_per_node_day);
  const double cost_s = static_cast<double>(r.job.checkpoint_cost_us) / kUsPerSecond;
  double interval_s = mtbf_s;
  if (cost_s < 2 * mtbf_s) {
    const double ratio = cost_s / (2 * mtbf_s);
    interval_s = std::sqrt(2 * cost_s * mtbf_s) * (1 + std::sqrt(ratio) / 3 + ratio / 9) - cost_s;
  }
  // Whole seconds, as the task is told them (HEADROOM_CHECKPOINT_INTERVAL_S).
  const TimeUs directed_us = std::max<TimeUs>(std::llround(interval_s), 1) * kUsPerSecond;
  const TimeUs own_us = OwnIntervalUs(r.job, policy_);
  return own_us > 0 ? std::min(directed_us, own_us) : directed_us;
}

TimeUs Engine::CheckpointIntervalUs(const JobRecord& r) const {
  return r.directed_interval_us > 0 ? r.directed_interval_us : OwnIntervalUs(r.job, policy_);
}

TimeUs Engine::told_checkpoint_interval_us(JobId job) const {
  const JobRecord* r = find(job);
  return r != nullptr && r->state == JobState::kRunning ? r->directed_interval_us : 0;
}

bool Engine::TracksExposure() const {
  return policy_.recovery.hold_after > 0 || policy_.recovery.direct_checkpoints;
}

}  // namespace headroom::engine
