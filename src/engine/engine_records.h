// Engine records: the engine's private per-job bookkeeping (JobRecord) and request shapes (two
// jobs of one shape fit in exactly the same places), shared by the files that implement Engine
// (engine.cc, engine_pass.cc, engine_reservation.cc, engine_migrate.cc, engine_explain*.cc,
// engine_start_plan.cc). Not for use outside the engine.
// Threading: single-threaded, owned by the engine.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "engine/engine.h"

namespace headroom::engine {

// Request shapes: two jobs of one shape fit in exactly the same places.
struct Engine::Shape {
  uint32_t devices;
  uint32_t milli;
  int64_t cpu_milli;
  int64_t memory_mib;
  uint32_t task_count;
  uint32_t mask;
  uint32_t required_level;
  uint32_t preferred_level;
  bool accepts_degraded;
  uint32_t cap_rung;
  friend bool operator==(const Shape&, const Shape&) = default;
};

struct Engine::ShapeHash {
  size_t operator()(const Shape& s) const {
    uint64_t h = 1469598103934665603ULL;
    for (uint64_t v : {uint64_t{s.devices}, uint64_t{s.milli}, static_cast<uint64_t>(s.cpu_milli),
                       static_cast<uint64_t>(s.memory_mib), uint64_t{s.task_count},
                       uint64_t{s.mask}, uint64_t{s.required_level}, uint64_t{s.preferred_level},
                       uint64_t{s.accepts_degraded}, uint64_t{s.cap_rung}}) {
      h = (h ^ v) * 1099511628211ULL;
    }
    return h;
  }
};

struct Engine::PreemptionMemo {
  TimeUs now_us = -1;
  uint64_t release_epoch = 0;
  uint64_t allocated_milli = 0;
  int64_t changeover_left_device_us = 0;
  // Whose candidates they are: a rank in a leaf queue, searching by rank, by reclaim or both.
  struct Key {
    int64_t rank = 0;
    uint32_t queue = 0;
    uint32_t mask = 0;          // Its device-model option's classes (reclaims differ by model).
    uint32_t spread_group = 0;  // A group's own gangs are never its candidates.
    // Under las, the blocked job's priority: which candidates it outranks by service alone.
    int32_t priority = 0;
    bool by_rank = false;
    bool reclaims = false;
    friend bool operator==(const Key&, const Key&) = default;
  };
  // The key of `blocked`'s searches (defined below JobRecord); `las`: the order ranks by service.
  static Key KeyOf(const JobRecord& blocked, int64_t rank, bool by_rank, bool reclaims, bool las);
  // A candidate's part in a quota gate (engine_preempt.cc QuotaGate), with queues.
  struct GateEntry {
    uint32_t queue;
    QuotaAmounts demand;
    bool borrowed;
  };
  bool has_candidates = false;
  Key key;
  std::vector<PreemptionCandidate> candidates;
  std::vector<GateEntry> gate_entries;           // One per candidate, with queues.
  std::vector<std::pair<Shape, Key>> fruitless;  // Searches with no plan.

  // Forgets everything unless the floor is still as it was.
  void Keep(TimeUs now, uint64_t epoch, uint64_t allocated, int64_t changeover_left) {
    if (now == now_us && epoch == release_epoch && allocated == allocated_milli &&
        changeover_left == changeover_left_device_us) {
      return;
    }
    *this = PreemptionMemo{now, epoch, allocated, changeover_left};
  }
  bool Fruitless(const Shape& shape, const Key& of) const {
    return std::find(fruitless.begin(), fruitless.end(), std::pair{shape, of}) != fruitless.end();
  }
};

// The devices a job's lost work, resize pauses and attained service are counted over at
// `width` tasks (at its current width by default): a share counts one, a CPU-only job one.
inline int64_t CountedDevices(const model::Job& job, uint64_t width) {
  return static_cast<int64_t>(std::max<uint64_t>(width * job.task.devices, 1));
}
inline int64_t CountedDevices(const model::Job& job) { return CountedDevices(job, job.task_count); }

struct Engine::JobRecord {
  // As submitted, except that job.task_count and job.runtime_estimate_us are at the width it
  // runs at (or, pending, at its full width): an elastic job started narrower (model/job.h).
  model::Job job;
  uint32_t full_task_count = 0;
  TimeUs full_estimate_us = 0;
  std::optional<JobState> state;  // nullopt: no job has this id (yet).
  TenantId tenant;
  uint32_t quota_queue = QuotaTree::kRoot;  // Its leaf queue (quota.h).
  uint32_t selector_mask = 0;               // The device classes its selector matches.
  // The classes it is placed on: its selector's, or with device-model quotas those of one
  // model option (Engine::ModelOption), as Kueue assigns a podset one ResourceFlavor.
  uint32_t mask = 0;
  // The quota slot of the device model its devices count against; kQuotaResources: none.
  uint8_t model_slot = kQuotaResources;
  uint32_t required_level = kNoLevel;  // Resolved from the job's level names.
  uint32_t preferred_level = kNoLevel;
  bool unknown_level = false;  // A stated level the cluster does not have: never fits.
  uint32_t spread_group = 0;   // Its job's spread group (Engine::SpreadGroupOf); 0: none.
  bool never_fits = false;
  QueueKey key;
  TimeUs start_us = 0;
  TimeUs expected_end_us = 0;
  TimeUs moved_us = -1;  // When it last migrated; a job moves at most once per step.
  // When it last began working from a saved state (its start, after any restart pause; the end
  // of a move's pause): its periodic checkpoints count from here.
  TimeUs checkpoint_base_us = 0;
  // The checkpoint interval its current attempt was told at its start
  // (recovery.direct_checkpoints); 0: none, it checkpoints as it declared.
  TimeUs directed_interval_us = 0;
  uint32_t preemptions = 0;    // Times it was preempted and requeued.
  uint32_t interruptions = 0;  // Times a fault ended its attempt (JobInterrupted).
  // Node-µs it ran (distinct nodes × time, each attempt from its start to its stop): what its
  // chance of meeting faults grows with. And its recent interruptions, each with the node-µs it
  // had run when the attempt the fault ended began, for recovery.hold_after (engine_hold.cc);
  // kept only when the policy holds.
  double exposure_node_us = 0;
  uint32_t node_interruptions = 0;  // Of its interruptions, those whose node is known.
  struct InterruptionMark {
    TimeUs at_us = 0;
    NodeId node;
    double exposure_node_us = 0;
  };
  std::vector<InterruptionMark> recent_interruptions;
  bool expedited = false;          // Interrupted, pending ahead of the queue (recovery.expedite).
  bool requeued_by_fault = false;  // Pending since a fault interrupted it (it may take spares).
  // Pending after a fault: the devices of its other nodes kept for it (recovery.keep_nodes).
  std::vector<DeviceId> kept_devices;
  TimeUs pending_since_us = 0;  // Its submission or last requeue.
  // Device-µs run since its submission or last promotion, its current run aside (las), and the
  // time it has waited since that promotion after first running (the starvation measure).
  int64_t attained_device_us = 0;
  TimeUs waited_since_promotion_us = 0;
  uint32_t running_slot = 0;  // Running: its place in its queue's running_by_queue_ list.
  std::vector<TaskAllocation> tasks;
  // The rung of the cap ladder its devices run at, or (pending) are placed at (0: uncapped).
  uint32_t cap_rung = 0;
  PendingCode code = PendingCode::kNone;
  NodeFilter::Overdraw facility_block;  // With kFacility: the element over, and by how much.
  uint32_t position = 0;

  // Runs at (or is tried at) `width` tasks from now on; its estimate scales with the width.
  void SetWidth(uint32_t width) {
    job.task_count = full_task_count;
    job.runtime_estimate_us = job.AtWidth(full_estimate_us, width);
    job.task_count = width;
  }
  // A pending job as it waits: an elastic one at its narrowest width, the one it starts at
  // whatever else is free (what its pending reasons describe).
  JobRecord AtNarrowest() const {
    JobRecord narrowest = *this;
    if (job.elastic()) narrowest.SetWidth(job.min_task_count);
    return narrowest;
  }
  // Whether it may run with `width` tasks: its full width, or an elastic width.
  bool AllowsWidth(size_t width) const {
    return model::Job::WidthAllowed(full_task_count, job.min_task_count, job.task_count_step,
                                    width);
  }

  Shape shape() const {
    return Shape{job.task.devices,     job.task.milli_per_device,
                 job.task.cpu_milli,   job.task.memory_mib,
                 job.task_count,       mask,
                 required_level,       preferred_level,
                 job.accepts_degraded, cap_rung};
  }
};

inline Engine::PreemptionMemo::Key Engine::PreemptionMemo::KeyOf(const JobRecord& blocked,
                                                                 int64_t rank, bool by_rank,
                                                                 bool reclaims, bool las) {
  return Key{.rank = rank,
             .queue = blocked.quota_queue,
             .mask = blocked.mask,
             .spread_group = blocked.spread_group,
             .priority = las ? blocked.job.priority : 0,
             .by_rank = by_rank,
             .reclaims = reclaims};
}

}  // namespace headroom::engine
