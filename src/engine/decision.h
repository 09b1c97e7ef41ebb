// Decisions: what the engine tells its caller to do after a step. Placements name nodes and
// devices exactly; the caller executes them and reports back with events.
#pragma once

#include <cstdint>
#include <vector>

#include "base/ids.h"

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

struct Decisions {
  std::vector<StartJob> starts;
};

}  // namespace headroom::engine
