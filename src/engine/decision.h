// Decisions: what the engine tells its caller to do after a step. Placements name nodes and
// devices exactly; the caller executes them and reports back with events.
// A migration moves a running job: it checkpoints and stops on its old devices (free at once
// in the engine's accounting), then restarts on `tasks` and continues with its remaining work;
// it holds the new devices from this step on, including the pause. The job stays running in
// the engine throughout, and its eventual JobFinished is reported as for any running job.
#pragma once

#include <cstdint>
#include <vector>

#include "base/ids.h"
#include "base/time.h"

namespace headroom::engine {

struct TaskAllocation {
  NodeId node;
  std::vector<DeviceId> devices;
  uint32_t milli_per_device = 1000;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
};

struct StartJob {
  JobId job;
  std::vector<TaskAllocation> tasks;  // One per task, rank order.
};

struct MigrateJob {
  JobId job;
  std::vector<TaskAllocation> tasks;  // The new placement, one per task, rank order.
  TimeUs pause_us = 0;                // Checkpoint + restart the engine planned with.
  int64_t cost_device_us = 0;         // pause_us × the job's devices.
};

struct Decisions {
  std::vector<StartJob> starts;
  // Executed before the starts of the same step (a start may use devices a move freed).
  std::vector<MigrateJob> migrations;
};

}  // namespace headroom::engine
