// Job: a gang of identical tasks that starts all-or-nothing. Each task lands on one node and
// asks for devices (whole ones, or a share of one device), CPU and memory; the selector says
// which devices qualify. This is the shape of Slurm's `--nodes=N --gpus-per-node=G` and of a
// Kubernetes ResourceClaim with a count and a CEL-like selector.
// An elastic job may also run with fewer tasks, from min_task_count up to task_count in steps
// of task_count_step, as Slurm's `--nodes=MIN-MAX` and torchrun's `--nnodes=MIN:MAX` allow; its
// work is device-time, so it runs task_count / width times as long at a width (linear scaling:
// the pessimistic case for a narrow start, since data-parallel training scales sublinearly).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include "base/time.h"
#include "model/selector.h"

namespace headroom::model {

inline constexpr uint32_t kMilliPerDevice = 1000;

struct TaskShape {
  // Whole devices per task, or 1 with milli_per_device < 1000 for a share of one device
  // (openb's gpu_milli). 0 devices: a CPU-only task.
  uint32_t devices = 0;
  uint32_t milli_per_device = kMilliPerDevice;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  Selector selector;

  bool fractional() const { return devices == 1 && milli_per_device < kMilliPerDevice; }
};

enum class TraceOutcome { kUnknown, kCompleted, kFailed, kKilled };

struct Job {
  std::string name;
  std::string tenant = "default";
  int32_t priority = 0;  // Larger runs first where the queue order looks at it.
  TimeUs submit_time_us = 0;
  // What the user promised (Slurm's --time); backfill plans with it. Never below runtime_us
  // in a trace-faithful replay unless the workload says so.
  TimeUs runtime_estimate_us = 0;
  // How long the job really runs at full speed (simulator input; unknown to the engine's
  // planning, which sees only the estimate).
  TimeUs runtime_us = 0;
  uint32_t task_count = 1;
  TaskShape task;
  TraceOutcome trace_outcome = TraceOutcome::kUnknown;
  // How often the job saves its progress (at full speed); a preempted job restarts from its
  // last checkpoint. 0: not declared (the policy's default applies, preemption.h).
  TimeUs checkpoint_interval_us = 0;
  // How long the job pauses to write one checkpoint (its blocking time: 6.3 s for a 7B model
  // with PyTorch's asynchronous checkpointing, PHYSICS.md §4.6). 0: not declared. A policy with
  // recovery.direct_checkpoints sets the interval of a job that declares it (engine_checkpoint.cc).
  TimeUs checkpoint_cost_us = 0;
  // Times earlier engines preempted it (the daemon carries the count across engine rebuilds
  // and restarts); the per-job preemption budget counts from it.
  uint32_t preemptions = 0;
  // When it last became pending, where that is after its submission (a requeue before the
  // engine that sees it now); 0: at its submission. The reclaim hysteresis counts from it.
  TimeUs pending_since_us = 0;
  // Device-microseconds it ran under earlier engines since its submission or last promotion,
  // its current run aside (the las order's attained service); the engine's count starts here.
  int64_t attained_device_us = 0;
  // A fault interrupted it under an earlier engine and it has not started since: with the
  // policy's recovery.expedite it goes ahead of the queue there too (engine/event.h), and it may
  // take the policy's hot spares (recovery.hot_spares).
  bool expedited = false;
  // Non-empty: held, and why (an earlier engine held it under recovery.hold_after, or an
  // operator did; engine/event.h JobHeld). A held job is pending but in no pass.
  std::string hold_reason;
  // Fabric levels by name (one of the cluster's level names, e.g. "rack" or "leaf"; resolved
  // and checked by ValidateTopologyLevels, job_topology.h). Empty = not stated.
  // Required: the whole gang inside one domain of that level, or it waits (Kueue's
  // `kueue.x-k8s.io/podset-required-topology`, Slurm's topology/block `--segment`).
  std::string required_topology_level;
  // Preferred: one domain of that level if any holds it, else one domain of each level above
  // in turn, up to the whole cluster (Kueue's `podset-preferred-topology`).
  std::string preferred_topology_level;
  // Elastic: the fewest tasks it may run with (0 or task_count: rigid) and the step between
  // widths (task_count − min_task_count is a multiple of it).
  uint32_t min_task_count = 0;
  uint32_t task_count_step = 1;
  // Whether its tasks may run on degraded devices (engine/event.h DeviceWithdrawn): usable, but
  // below their full speed (a hot GPU's clocks drop below base), as a Kubernetes device taint's
  // toleration allows; work that does not say so never gets one.
  bool accepts_degraded = false;
  // Gangs that should not share a failure domain, e.g. a service's replicas: each one-task gang
  // of a group goes to the rack (deepest fabric domain) holding fewest of the group's tasks
  // among those with room (placement.h). Empty: none.
  std::string spread_group;
  // A replica of a service answering requests (inference): its latency follows its clock, so
  // the engine caps it last and never starts it capped (engine_power_caps.cc).
  bool serving = false;

  bool elastic() const { return min_task_count != 0 && min_task_count < task_count; }
  // Whether it may run with `width` tasks: all of them, or a width of its elastic range.
  bool AllowsWidth(uint64_t width) const {
    return WidthAllowed(task_count, min_task_count, task_count_step, width);
  }
  static bool WidthAllowed(uint32_t full, uint32_t min, uint32_t step, uint64_t width) {
    if (width == full) return true;
    return min != 0 && width >= min && width < full && (full - width) % (step == 0 ? 1 : step) == 0;
  }
  // How long `full_us` of work at task_count tasks takes at `width` tasks (rounded up).
  TimeUs AtWidth(TimeUs full_us, uint64_t width) const {
    return ScaledToWidth(full_us, task_count, width);
  }
  static TimeUs ScaledToWidth(TimeUs full_us, uint32_t full, uint64_t width) {
    if (width == 0 || width >= full || full_us <= 0) return full_us;
    return static_cast<TimeUs>(
        std::ceil(static_cast<double>(full_us) * full / static_cast<double>(width)));
  }

  // Total whole devices (shares count as one device each for reporting).
  uint64_t total_devices() const { return uint64_t{task_count} * task.devices; }
  // Device demand in milli-devices: the accounting unit for load and allocation.
  uint64_t total_milli() const {
    return uint64_t{task_count} * task.devices * task.milli_per_device;
  }
};

}  // namespace headroom::model
