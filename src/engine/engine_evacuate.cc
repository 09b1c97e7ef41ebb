// Engine::Evacuate: recovery.evacuate (policy_config.h RecoveryConfig). A running job on a
// device health withdrew outright moves off it, checkpointing and restarting where a placement
// fits now, before the pass starts anything: the job's progress is worth more than a pending
// job's start, and a fault the warning foretold would end the job there and lose its work since
// its last checkpoint. A move is a MigrateJob of MigrationConfig's checkpoint + restart pause,
// charged to no budget (what health withdraws bounds it; live, the storm guard does).
//
// A move pays only where the work a fault would cost the job is worth more than the move: if
// the warning is right, the move saves the work since the job's last checkpoint (half its
// checkpoint interval, expected; all its work so far when it saves none) and costs the move's
// checkpoint; if it is wrong, the move costs its checkpoint and restart for nothing. A job is
// moved when that pays for a warning right half the time: work at risk above twice the
// checkpoint plus the restart (with MigrationConfig's 60 s and 10 min, a checkpoint interval
// over 24 minutes). A 16,384-GPU job told to checkpoint every six minutes stays; an hourly one
// moves; one that saves nothing moves once it has worked that long.
//
// Left alone besides: a job that ends (by its estimate) before the pause would be over, one
// that started or moved in this step, and one no placement fits now; the last is looked at
// again whenever capacity is released. A move takes no degraded device, whatever the job
// accepts.
#include <algorithm>
#include <utility>

#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

void Engine::Evacuate(TimeUs now, Decisions& decisions) {
  if (!policy_.recovery.evacuate || health_withdrawn_.empty()) return;
  if (!evacuation_due_ && (evacuees_.empty() || evacuation_epoch_ == release_epoch_)) return;
  const auto on_withdrawn = [&](const JobRecord& v) {
    return std::any_of(v.tasks.begin(), v.tasks.end(), [&](const TaskAllocation& task) {
      return std::any_of(task.devices.begin(), task.devices.end(), [&](DeviceId device) {
        return health_withdrawn_.contains(device.value());
      });
    });
  };
  std::vector<uint32_t> candidates;
  if (evacuation_due_) {
    for (const auto& [unused_end, job] : running_by_end_) candidates.push_back(job);
    std::sort(candidates.begin(), candidates.end());
  } else {
    candidates = std::move(evacuees_);
  }
  evacuation_due_ = false;
  evacuees_.clear();
  const TimeUs pause_us = policy_.migration.checkpoint_us + policy_.migration.restart_us;
  const TimeUs worth_us = policy_.migration.checkpoint_us + pause_us;
  for (const uint32_t job : candidates) {
    JobRecord& v = jobs_[job];
    if (v.state != JobState::kRunning || !on_withdrawn(v)) continue;
    if (v.start_us >= now || v.moved_us >= now) continue;
    if (v.job.runtime_estimate_us > 0 && v.expected_end_us - now <= pause_us) continue;
    const TimeUs interval_us = CheckpointIntervalUs(v);
    const TimeUs at_risk_us =
        interval_us > 0 ? interval_us / 2 : now - std::max(v.start_us, v.moved_us);
    if (at_risk_us <= worth_us) {
      // Work that saves nothing puts more at risk as it runs: looked at again later.
      if (interval_us == 0) evacuees_.push_back(job);
      continue;
    }
    std::optional<std::vector<TaskAllocation>> placement;
    {
      const ClusterState::Speculation own_tasks_freed(state_);
      for (const TaskAllocation& task : v.tasks) state_.Release(task);
      ++release_epoch_;  // Its own devices are free in this search: no cached failure holds.
      // Only starts take degraded devices (a move errs towards idle, as elsewhere).
      const bool accepts_degraded = std::exchange(v.job.accepts_degraded, false);
      placement = PlaceAt(v, nullptr);
      v.job.accepts_degraded = accepts_degraded;
    }
    if (!placement) {
      evacuees_.push_back(job);
      continue;
    }
    Move(JobId(job), std::move(*placement), pause_us, now, decisions);
    ++release_epoch_;  // The devices it left on healthy ground are free.
    reservation_stale_ = true;
  }
  evacuation_epoch_ = release_epoch_;
}

}  // namespace headroom::engine
