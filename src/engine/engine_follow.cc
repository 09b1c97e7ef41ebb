// Engine::Follow (engine.h): a step that executes decisions made elsewhere — the live engine's,
// as its log records them — instead of searching for its own. Recovery runs a log's tail
// through it to learn what the live engine had learned by the crash (fair-share usage, runtime
// history, the migration and changeover budgets) at the cost of reading the records, not of the
// queue passes that made them.
//
// A decision is checked against the engine's books before any of the step's decisions changes
// them, so one that does not apply (a start of a job that is not pending, a move of one not
// running, devices or CPU or memory not free) leaves capacity and jobs as the events left them.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

// Free capacity the decisions would leave, for the devices and nodes they touch.
struct Ledger {
  std::unordered_map<uint32_t, int64_t> device_milli;
  std::unordered_map<uint32_t, int64_t> node_cpu_milli;
  std::unordered_map<uint32_t, int64_t> node_memory_mib;
};

}  // namespace

std::string Engine::CheckFollowed(const Decisions& decisions) const {
  Ledger free;
  // The held-back milli of a degraded device are free to the jobs that accept it, those of a
  // kept one to the job it is kept for, and those of a spare to jobs a fault requeued
  // (`refuses` checks that the job is such a one).
  const auto device_free = [&](uint32_t device) -> int64_t& {
    const DeviceId id(device);
    const bool shown = degraded_.count(device) != 0 || kept_by_device_.count(device) != 0 ||
                       spare(cluster_.device(id).node);
    const uint32_t milli = shown ? state_.milli_in_place(id) : state_.free_milli(id);
    return free.device_milli.try_emplace(device, milli).first->second;
  };
  const auto cpu_free = [&](NodeId node) -> int64_t& {
    return free.node_cpu_milli.try_emplace(node.value(), state_.free_cpu_milli(node)).first->second;
  };
  const auto memory_free = [&](NodeId node) -> int64_t& {
    return free.node_memory_mib.try_emplace(node.value(), state_.free_memory_mib(node))
        .first->second;
  };
  const auto take = [&](const std::vector<TaskAllocation>& tasks, int sign) -> std::string {
    for (const TaskAllocation& task : tasks) {
      if (task.node.value() >= cluster_.nodes().size()) return "a task on no node of the cluster";
      if (task.milli_per_device == 0 || task.milli_per_device > 1000) {
        return "a share of a device outside (0, 1000] milli";
      }
      cpu_free(task.node) -= sign * task.cpu_milli;
      memory_free(task.node) -= sign * task.memory_mib;
      for (DeviceId device : task.devices) {
        if (device.value() >= cluster_.devices().size() ||
            cluster_.device(device).node != task.node) {
          return "a device not on its task's node";
        }
        device_free(device.value()) -= sign * static_cast<int64_t>(task.milli_per_device);
      }
    }
    return {};
  };
  std::unordered_set<uint32_t> decided;
  // Spares a requeued job's start takes, open to the starts after it (Launch forgets them).
  std::unordered_set<uint32_t> opened_spares;
  const auto refuses = [&](JobId id, const std::vector<TaskAllocation>& tasks) -> std::string {
    const bool accepts_degraded = find(id)->job.accepts_degraded;
    const bool sees_spares = SeesSpares(*find(id));
    for (const TaskAllocation& task : tasks) {
      if (!spare(task.node)) continue;
      if (sees_spares) {
        opened_spares.insert(task.node.value());
      } else if (opened_spares.count(task.node.value()) == 0) {
        return fmt::format("job {} is given hot spare {}, kept for jobs a fault requeued",
                           id.value(), cluster_.node(task.node).name);
      }
    }
    for (const TaskAllocation& task : tasks) {
      for (DeviceId device : task.devices) {
        if (!accepts_degraded && degraded_.count(device.value()) != 0) {
          return fmt::format("job {} is given degraded device {}, which it does not accept",
                             id.value(), device.value());
        }
        // A job that started earlier in the decisions gave back what was kept for it.
        auto kept = kept_by_device_.find(device.value());
        if (kept != kept_by_device_.end() && kept->second != id.value() &&
            decided.count(kept->second) == 0) {
          return fmt::format("job {} is given device {}, kept for job {}", id.value(),
                             device.value(), kept->second);
        }
      }
    }
    return {};
  };
  for (const PreemptJob& preemption : decisions.preemptions) {
    const JobRecord* r = find(preemption.job);
    if (r == nullptr || r->state != JobState::kRunning ||
        !decided.insert(preemption.job.value()).second) {
      return fmt::format("job {} is preempted but is not running, or is decided twice",
                         preemption.job.value());
    }
    if (std::string bad = take(r->tasks, -1); !bad.empty()) return bad;
  }
  for (const CapJob& cap : decisions.caps) {
    // A cap changes no capacity; it must name a running job's tasks as they are.
    const JobRecord* r = find(cap.job);
    const auto same_place = [](const TaskAllocation& a, const TaskAllocation& b) {
      return a.node == b.node && a.devices == b.devices;
    };
    if (r == nullptr || r->state != JobState::kRunning || decided.contains(cap.job.value()) ||
        !std::ranges::equal(r->tasks, cap.tasks, same_place)) {
      return fmt::format("job {} is capped but is not running on the tasks the cap names",
                         cap.job.value());
    }
  }
  for (const MigrateJob& move : decisions.migrations) {
    const JobRecord* r = find(move.job);
    if (r == nullptr || r->state != JobState::kRunning ||
        !decided.insert(move.job.value()).second) {
      return fmt::format("job {} moves but is not running, or moves twice", move.job.value());
    }
    if (!r->AllowsWidth(move.tasks.size())) {
      return fmt::format("job {} moves onto {} tasks, not a width it allows (full {}, min {})",
                         move.job.value(), move.tasks.size(), r->full_task_count,
                         r->job.min_task_count);
    }
    if (std::string bad = take(r->tasks, -1); !bad.empty()) return bad;
  }
  for (const MigrateJob& move : decisions.migrations) {
    if (std::string bad = take(move.tasks, +1); !bad.empty()) {
      return fmt::format("job {}'s move: {}", move.job.value(), bad);
    }
  }
  for (const StartJob& start : decisions.starts) {
    const JobRecord* r = find(start.job);
    if (r == nullptr || r->state != JobState::kPending ||
        !decided.insert(start.job.value()).second) {
      return fmt::format("job {} starts but is not pending, or is decided twice",
                         start.job.value());
    }
    if (!r->AllowsWidth(start.tasks.size())) {
      return fmt::format("job {} starts on {} tasks, not a width it allows (full {}, min {})",
                         start.job.value(), start.tasks.size(), r->full_task_count,
                         r->job.min_task_count);
    }
    if (std::string bad = take(start.tasks, +1); !bad.empty()) {
      return fmt::format("job {}'s start: {}", start.job.value(), bad);
    }
    if (std::string bad = refuses(start.job, start.tasks); !bad.empty()) return bad;
  }
  const auto overdrawn = [](const std::unordered_map<uint32_t, int64_t>& remaining) {
    return std::any_of(remaining.begin(), remaining.end(),
                       [](const auto& entry) { return entry.second < 0; });
  };
  if (overdrawn(free.device_milli) || overdrawn(free.node_cpu_milli) ||
      overdrawn(free.node_memory_mib)) {
    return "the decisions take more devices, CPU or memory than are free";
  }
  return {};
}

std::string Engine::Follow(std::span<Event> events, const Decisions& decisions, TimeUs now) {
  if (now < last_now_us_) return "a step before the engine's last one";
  last_now_us_ = now;
  // As Step does: carried usage decays up to the first step, and the work that ran since the
  // last step is charged before this step's events and decisions change what runs.
  if (steps_++ == 0) fair_share_.DecayTo(now);
  fair_share_.Advance(now);
  for (Event& event : events) Apply(event);
  KeepSpares();
  if (std::string bad = CheckFollowed(decisions); !bad.empty()) return bad;

  // Preempted jobs are requeued first, then caps are set; then in the order a migration plan is
  // applied (engine_migrate.cc): free the moved jobs, start, then give the moved jobs their new
  // tasks. A log keeps no reason: the records give it, as they gave it to the engine that decided.
  for (PreemptJob preemption : decisions.preemptions) {
    preemption.reason = ReasonOf(record(preemption.job), record(preemption.preemptor));
    Requeue(preemption, now);
  }
  for (const CapJob& cap : decisions.caps) {
    JobRecord& r = record(cap.job);
    for (size_t i = 0; i < r.tasks.size(); ++i) {
      state_.Release(r.tasks[i]);
      r.tasks[i].power_cap_w = cap.tasks[i].power_cap_w;
      state_.Allocate(r.tasks[i]);
    }
    r.cap_rung = RungOfTasks(r.tasks);
    if (r.cap_rung != 0) capped_.insert(cap.job.value());
  }
  for (const MigrateJob& move : decisions.migrations) {
    JobRecord& v = record(move.job);
    for (const TaskAllocation& task : v.tasks) state_.Release(task);
    TrackTasks(v, v.tasks, -1);
  }
  std::unordered_set<uint32_t> starting;
  for (const StartJob& start : decisions.starts) starting.insert(start.job.value());
  const auto starts = [&](JobId id) { return starting.contains(id.value()); };
  std::erase_if(queue_, starts);
  std::erase_if(arrivals_, starts);
  Decisions launched;
  // Each task was told the decision's interval, whatever this engine's rate would say.
  for (const StartJob& start : decisions.starts) {
    Launch(start.job, start.tasks, now, launched, start.checkpoint_interval_us);
  }
  int64_t cost_device_us = 0;
  int64_t resize_cost_device_us = 0;
  bool moved = false;
  bool resized = false;
  for (const MigrateJob& move : decisions.migrations) {
    // A resize's pause is charged to the changeover budget (engine_elastic.cc), a move's to
    // the migration budget.
    const bool resize = record(move.job).tasks.size() != move.tasks.size();
    Relocate(move, now);
    if (resize) {
      resize_cost_device_us += move.cost_device_us;
    } else {
      cost_device_us += defrag_.CostDeviceUs(record(move.job).job.total_devices());
    }
    (resize ? resized : moved) = true;
  }
  if (!decisions.migrations.empty()) ++release_epoch_;
  if (moved) defrag_.budget().Charge(now, cost_device_us);
  if (resized) preempter_.changeover().Charge(now, resize_cost_device_us);
  // The next pass plans afresh: the queue and any reservation changed outside one.
  reservation_stale_ = true;
  dirty_ = true;
  state_.Commit(0);
  return {};
}

}  // namespace headroom::engine
