// Events: what the engine is told happened since the last step. The simulator and the daemon
// produce them; the engine consumes them in order inside Step().
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/decision.h"
#include "engine/facility_ledger.h"
#include "model/job.h"

namespace headroom::engine {

// A new job; `id` is chosen by the caller, dense, and never reused.
struct JobSubmitted {
  JobId id;
  model::Job job;
};

// A running job ended (completed, failed or was killed outside the engine); its capacity is free.
struct JobFinished {
  JobId id;
  bool failed = false;  // Ended other than by completing (the engine treats both alike).
};

// Withdraw a job: pending jobs leave the queue, running ones release their capacity.
struct JobCancelled {
  JobId id;
};

// A node stops (or resumes) accepting new work; running work is untouched.
struct NodeDrained {
  NodeId node;
  bool drained = true;
};

// A device stops (or resumes) taking new work: its health failed, or it is being diagnosed or
// repaired. Work running on it is untouched (where the fault ended that work, a JobInterrupted
// says so); what the work frees stays out of use until the device is returned. A degraded
// device (withdrawn and degraded: it works, below full speed) still takes the work of jobs
// that accept degraded devices (model::Job::accepts_degraded), and no other.
struct DeviceWithdrawn {
  DeviceId device;
  bool withdrawn = true;
  bool degraded = false;
};

// A running job's attempt was ended by a fault (its node or a device under it failed): its
// capacity is free and it is pending again at once under the same id, to resume from its last
// checkpoint after a restart pause, as a preempted job does. It spends no preemption budget and
// counts as no preemption; with the policy's `recovery.expedite` it goes ahead of the queue. An
// event for a job that is not running changes nothing. `node`: where the fault was (invalid:
// not known); the policy's `recovery.hold_after` counts the different nodes.
struct JobInterrupted {
  JobId id;
  NodeId node;
};

// A pending job held (out of every pass, its reason shown as why it waits) or released (pending
// as before, its interruption history forgotten). The engine holds a job itself under the
// policy's `recovery.hold_after`; an operator's hold says why in `reason`. An event for a job
// that is not pending, or already in the state asked for, changes nothing.
struct JobHeld {
  JobId id;
  bool held = true;
  std::string reason;
};

// A job already running with a known placement, re-created after a restart or an engine
// rebuild (the daemon's recovery path). Its allocations are applied as running; they must fit
// the free capacity (checked: a placement that does not fit is a bug in the caller, which
// validates placements before restoring them). `id` follows JobSubmitted's rules.
struct JobRestored {
  JobId id;
  model::Job job;
  std::vector<TaskAllocation> tasks;  // One per task, rank order.
  TimeUs started_us = 0;
  // The checkpoint interval its start told it (StartJob::checkpoint_interval_us); 0: none.
  TimeUs checkpoint_interval_us = 0;
};

// A facility element's limit now: a power domain's (a feed derated for maintenance, or back) or
// a cooling zone's capacity (a unit failed, or repaired). `index` is into the cluster's list of
// that kind (model::Facility); an index past it changes nothing. Running work is untouched.
struct FacilityLimit {
  FacilityLedger::Kind kind = FacilityLedger::Kind::kPower;
  uint32_t index = 0;
  int64_t limit_w = 0;
};

using Event = std::variant<JobSubmitted, JobFinished, JobCancelled, NodeDrained, JobRestored,
                           JobInterrupted, DeviceWithdrawn, JobHeld, FacilityLimit>;

}  // namespace headroom::engine
