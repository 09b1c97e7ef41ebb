// Engine::StartByMigration: the engine's side of defragmentation by migration (defrag.h) —
// deciding when a search is worth running, what it may move, what the blocked job gains, and
// applying a plan to the engine's records in one commit.
//
// A search runs when migration is enabled, the job is the pass's first blocked one, it waits
// for fragmentation only (kTopology: enough free matching devices in the cluster, and, with a
// required level, in some domain of that level by the aggregates), and the state differs from
// the last search's (head, release epoch, allocated capacity): an unchanged state would give the
// same answer. Movable: running jobs with devices that neither started nor moved in this step.
// The wait avoided is the EASY reservation's start minus now when the job holds one (its
// expected start), else MigrationConfig::horizon_us.
// A moved job keeps running in the engine's books: its tasks change, and its expected end
// moves later by the checkpoint + restart pause.
#include <algorithm>
#include <cmath>
#include <limits>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

bool Engine::StartByMigration(JobId id, TimeUs now, Decisions& decisions) {
  if (!defrag_.enabled()) return false;
  JobRecord& r = record(id);
  if (r.never_fits || r.job.task.devices == 0) return false;
  const std::tuple<uint32_t, uint64_t, uint64_t> search{id.value(), release_epoch_,
                                                        state_.allocated_milli()};
  if (search == last_migration_search_) return false;
  last_migration_search_ = search;

  const PlacementRequest request = RequestOf(r);
  if (r.required_level != kNoLevel) {
    const std::vector<DomainId>& blocks = cluster_.domains_at_level(r.required_level);
    const bool room = std::any_of(blocks.begin(), blocks.end(), [&](DomainId block) {
      return Placer::DomainBoundMilli(state_, block, request) >= request.milli();
    });
    if (!room) return false;
  }
  const TimeUs wait_us = reservation_head_ == id && reserved_start_us_ != kNever
                             ? std::max<TimeUs>(reserved_start_us_ - now, 0)
                             : policy_.migration.horizon_us;
  const auto devices = static_cast<int64_t>(r.job.total_devices());
  const int64_t gain_device_us = wait_us > std::numeric_limits<int64_t>::max() / devices
                                     ? std::numeric_limits<int64_t>::max()
                                     : wait_us * devices;

  std::vector<MovableJob> movable;
  for (const auto& [unused_end, job] : running_by_end_) {
    const JobRecord& v = jobs_[job];
    if (v.start_us >= now || v.moved_us >= now || v.job.task.devices == 0) continue;
    movable.push_back(MovableJob{JobId(job), &v.tasks, RequestOf(v), v.job.total_devices(),
                                 v.job.priority, v.start_us});
  }
  std::sort(movable.begin(), movable.end(),
            [](const MovableJob& a, const MovableJob& b) { return a.id < b.id; });
  std::optional<MigrationPlan> plan =
      defrag_.Plan(state_, placer_, request, gain_device_us, movable, now);
  if (!plan) return false;

  // Apply in the plan's order (defrag.h promise 2): free the moved jobs, start the head, then
  // give the moved jobs their new tasks.
  for (const MigrateJob& move : plan->moves) {
    const JobRecord& v = record(move.job);
    for (const TaskAllocation& task : v.tasks) state_.Release(task);
    TrackTasks(v, v.tasks, -1);
  }
  ++release_epoch_;  // Capacity changed shape: cached placement failures no longer hold.
  Launch(id, std::move(plan->head_tasks), now, decisions);
  for (MigrateJob& move : plan->moves) {
    HR_CHECK(record(move.job).state == JobState::kRunning && move.job != id);
    Relocate(move, now);
    decisions.migrations.push_back(std::move(move));
  }
  defrag_.budget().Charge(now, plan->cost_device_us);
  // The head no longer needs its reservation; later jobs must not avoid it.
  DropReservation();
  reservation_stale_ = true;
  return true;
}

void Engine::Relocate(const MigrateJob& move, TimeUs now) {
  JobRecord& v = record(move.job);
  for (const TaskAllocation& task : move.tasks) state_.Allocate(task);
  TrackTasks(v, move.tasks, +1);
  running_by_end_.erase({v.expected_end_us, move.job.value()});
  const auto old_width = static_cast<uint32_t>(v.tasks.size());
  const auto new_width = static_cast<uint32_t>(move.tasks.size());
  if (new_width == old_width) {
    v.expected_end_us += move.pause_us;
  } else {
    // A resize (an elastic job shrunk or grown): its books follow the new width, its service
    // so far stays what it ran at the old one, and the rest of its work takes old / new as long.
    HR_CHECK(v.AllowsWidth(new_width));
    CountRunning(move.job, -1);
    fair_share_.AddRunning(v.tenant, -static_cast<int64_t>(v.job.total_milli()));
    const int64_t old_devices = CountedDevices(v.job);
    const TimeUs remaining_us = std::max<TimeUs>(v.expected_end_us - now, 0);
    v.SetWidth(new_width);
    v.attained_device_us += (now - v.start_us) * (old_devices - CountedDevices(v.job));
    CountRunning(move.job, +1);
    fair_share_.AddRunning(v.tenant, static_cast<int64_t>(v.job.total_milli()));
    v.expected_end_us =
        now + move.pause_us +
        static_cast<TimeUs>(std::ceil(static_cast<double>(remaining_us) * old_width / new_width));
    if (new_width < v.full_task_count) {
      narrowed_.insert(move.job.value());
    } else {
      narrowed_.erase(move.job.value());
    }
  }
  v.tasks = move.tasks;
  v.moved_us = now;
  v.checkpoint_base_us = now + move.pause_us;  // It restarts from the checkpoint it just took.
  running_by_end_.insert({v.expected_end_us, move.job.value()});
}

}  // namespace headroom::engine
