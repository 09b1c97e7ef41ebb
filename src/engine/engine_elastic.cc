// Elastic jobs while they run (ElasticConfig, policy_config.h): shrinking them to make room for
// a blocked job before anything is requeued, and growing them back into idle capacity. Both are
// resizes: a MigrateJob whose tasks differ in number from the job's (decision.h), applied to
// the books by Relocate (engine_migrate.cc), paused for PreemptionConfig::restart_us (the job
// checkpoints and its workers restart at the new width, as torchrun's elastic agent restarts
// them when membership changes) and charged to the changeover budget.
//
// A job with a task on a drained node is never resized (the tasks it keeps restart).
// Shrink (inside a preemption search, engine_preempt.cc): the search's candidates in victim
// order give up tasks from their highest rank down, one step at a time and never below their
// narrowest width, until the blocked job places; the candidates that gave nothing are left
// alone. The resizes must fit the changeover budget and, with queues, leave the blocked job
// admitted. No plan: the search goes on to requeue victims as before.
// Grow (at the end of a pass that left nothing pending that could ever run): in id order,
// each narrowed job not started or resized within PreemptionConfig::min_run_us takes the widest
// width whose new tasks place beside its own (a job with a required topology level does not
// grow: its new tasks would have to share its domain), if the time its remaining work saves
// exceeds the pause and the budget allows.
#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

// A resize restarts every task it keeps: none may stay on a node drained since it started.
bool OnADrainedNode(const ClusterState& state, const std::vector<TaskAllocation>& tasks) {
  return std::any_of(tasks.begin(), tasks.end(),
                     [&](const TaskAllocation& task) { return state.drained(task.node); });
}

}  // namespace

bool Engine::StartByShrinking(JobId id, const std::vector<PreemptionCandidate>& candidates,
                              TimeUs now, Decisions& decisions) {
  if (!policy_.elastic.shrink) return false;
  const JobRecord& r = record(id);
  const PlacementRequest request = RequestOf(r);
  const TimeUs pause_us = policy_.preemption.restart_us;
  std::vector<std::pair<JobId, uint32_t>> shrinks;  // (job, its new width)
  std::optional<std::vector<TaskAllocation>> head_tasks;
  {
    const ClusterState::Speculation speculation(state_);
    for (const PreemptionCandidate& candidate : candidates) {
      const JobRecord& v = jobs_[candidate.job.id.value()];
      // Rigid, at its narrowest already, or kept where it may not restart.
      if (!v.job.elastic() || OnADrainedNode(state_, v.tasks)) continue;
      const uint32_t step = std::max<uint32_t>(v.job.task_count_step, 1);
      uint32_t width = v.job.task_count;
      while (!head_tasks && width >= v.job.min_task_count + step) {
        for (uint32_t t = width - step; t < width; ++t) state_.Release(v.tasks[t]);
        width -= step;
        if (Placer::DomainBoundMilli(state_, DomainId(0), request) < request.milli()) continue;
        head_tasks = placer_.Place(state_, request, nullptr);
      }
      shrinks.emplace_back(candidate.job.id, width);
      if (head_tasks) break;
    }
  }
  if (!head_tasks) return false;
  int64_t cost_device_us = 0;
  for (const auto& [victim, width] : shrinks) {
    cost_device_us += pause_us * CountedDevices(jobs_[victim.value()].job, width);
  }
  const int64_t budget_left = preempter_.changeover().LeftDeviceUs(now);
  if (cost_device_us > budget_left) return false;
  if (!quotas_.empty()) {
    QuotaTree books = quotas_;
    for (const auto& [victim, width] : shrinks) {
      const JobRecord& narrowed = jobs_[victim.value()];
      books.Add(narrowed.quota_queue, DemandOf(narrowed), -1);
      books.Add(narrowed.quota_queue, DemandOf(narrowed, width), +1);
    }
    if (!books.Admits(r.quota_queue, DemandOf(r)).admitted) return false;
  }
  for (const auto& [victim, width] : shrinks) {
    const JobRecord& v = record(victim);
    Move(victim, {v.tasks.begin(), v.tasks.begin() + width}, pause_us, now, decisions);
  }
  ++release_epoch_;
  preempter_.changeover().Charge(now, cost_device_us);
  Launch(id, std::move(*head_tasks), now, decisions);
  // Capacity the head did not need may have come free: the engine steps again at once.
  requeued_in_pass_ = true;
  dirty_ = true;
  DropReservation();
  reservation_stale_ = true;
  return true;
}

void Engine::Move(JobId id, std::vector<TaskAllocation> tasks, TimeUs pause_us, TimeUs now,
                  Decisions& decisions) {
  const JobRecord& v = record(id);
  for (const TaskAllocation& task : v.tasks) state_.Release(task);
  TrackTasks(v, v.tasks, -1);
  const int64_t cost_device_us = pause_us * CountedDevices(v.job, tasks.size());
  MigrateJob move{
      .job = id, .tasks = std::move(tasks), .pause_us = pause_us, .cost_device_us = cost_device_us};
  Relocate(move, now);
  decisions.migrations.push_back(std::move(move));
}

void Engine::GrowElastic(TimeUs now, Decisions& decisions) {
  // Jobs requeued in this pass are placed in the step it asks for at once, before anything grows.
  if (!policy_.elastic.grow || narrowed_.empty() || requeued_in_pass_ || !arrivals_.empty()) {
    return;
  }
  const bool waiting =
      std::any_of(queue_.begin(), queue_.end(), [&](JobId id) { return !record(id).never_fits; });
  if (waiting) return;
  const TimeUs pause_us = policy_.preemption.restart_us;
  const std::vector<uint32_t> narrowed(narrowed_.begin(), narrowed_.end());
  bool grown = false;
  for (const uint32_t job : narrowed) {
    JobRecord& v = jobs_[job];
    const TimeUs since_us = std::max(v.start_us, v.moved_us);
    if (now - since_us < std::max<TimeUs>(policy_.preemption.min_run_us, 1)) continue;
    if (v.required_level != kNoLevel || SharePlaced(v) || OnADrainedNode(state_, v.tasks)) {
      continue;
    }
    const auto width = static_cast<uint32_t>(v.tasks.size());
    const TimeUs remaining_us = std::max<TimeUs>(v.expected_end_us - now, 0);
    const uint32_t step = std::max<uint32_t>(v.job.task_count_step, 1);
    for (uint32_t wider = v.full_task_count; wider > width; wider -= step) {
      // Work left at `width` takes width / wider as long at `wider`: worth the pause?
      const double saved_us = static_cast<double>(remaining_us) * (wider - width) / wider;
      if (saved_us <= static_cast<double>(pause_us)) continue;
      const int64_t cost_device_us = pause_us * CountedDevices(v.job, wider);
      const int64_t budget_left = preempter_.changeover().LeftDeviceUs(now);
      if (cost_device_us > budget_left) continue;
      // Its queues must take the tasks it adds, as they would a start (on its device model:
      // its request keeps it on that model's devices).
      if (!quotas_.Admits(v.quota_queue, DemandOf(v, wider - width)).admitted) continue;
      PlacementRequest request = RequestOf(v);
      request.task_count = wider - width;
      std::optional<std::vector<TaskAllocation>> added = placer_.Place(state_, request, nullptr);
      if (!added) continue;
      std::vector<TaskAllocation> tasks = v.tasks;
      tasks.insert(tasks.end(), added->begin(), added->end());
      Move(JobId(job), std::move(tasks), pause_us, now, decisions);
      preempter_.changeover().Charge(now, cost_device_us);
      grown = true;
      break;
    }
  }
  if (grown) {
    ++release_epoch_;
    reservation_stale_ = true;
  }
}

}  // namespace headroom::engine
