// GangSplit: how a trace job's device count becomes a gang of equal tasks, one per node. The
// public traces give a job's total devices and, at best, how many nodes it spanned; headroom's
// Job wants task_count tasks of devices_per_task each. Every trace loader uses this one rule so
// the same job shape splits the same way whatever file it came from.
//
// Rule (n = total devices, k = nodes the trace reports or 0 if it reports none, m = devices on
// the largest node of the target cluster):
//   1. n == 0: a CPU-only job of max(k, 1) tasks with no devices.
//   2. k > 0, k divides n and n / k <= m: k tasks of n / k devices (the trace's own shape).
//   3. otherwise: t = ceil(n / m) tasks of ceil(n / t) devices. This packs as few nodes as the
//      target cluster allows with equal tasks. When t does not divide n the gang asks for up to
//      t - 1 devices more than the trace job (e.g. n = 20, m = 8: 3 tasks of 7 = 21); no public
//      trace used here has such a job, and an equal-task gang cannot express it exactly.
// Promises: task_count >= 1; devices_per_task <= max(m, 1) unless n == 0 (then 0); the gang
// holds at least n devices. Pure function; thread-safe.
#pragma once

#include <cstdint>

namespace headroom::sim {

struct GangShape {
  uint32_t task_count = 1;
  uint32_t devices_per_task = 0;
};

// Preconditions: max_devices_per_node >= 1; devices and nodes at most 2^31 (the loaders bound
// every count far below that).
GangShape SplitGang(uint64_t devices, uint64_t nodes, uint32_t max_devices_per_node);

}  // namespace headroom::sim
