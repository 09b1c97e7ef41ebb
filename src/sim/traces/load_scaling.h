// Offered load of a workload on a cluster, and rescaling a workload's arrivals to reach a
// target load — the knob that lets one trace be replayed on clusters of any size.
//
// Definitions (over all jobs of the workload; order does not matter):
//   demand_milli_s = sum over jobs of total_milli() * runtime_us / 10^6   (milli-device-seconds;
//                    a CPU-only job demands nothing; a share counts its milli)
//   first          = min submit_time_us
//   span_us        = max submit_time_us - first; if that is 0 (all jobs arrive together),
//                    max(submit_time_us + runtime_us) - first instead
//   OfferedLoad    = demand_milli_s / (capacity_milli * span_us / 10^6)
// 1.0 means the jobs ask for exactly the cluster's device-time over the arrival window; above 1
// the queue must grow. An empty workload, or one whose span is still 0, has load 0.
// ScaleToLoad multiplies every submit time's offset from the first by
//   factor = OfferedLoad(before) / target_load
// (rounded to the nearest microsecond), so the arrival span becomes span * factor and the load
// becomes target_load, up to that rounding. Runtimes and estimates are untouched, and the order
// of jobs is kept. When every job arrives at the same instant, moving arrivals cannot change
// the load: the workload is left alone and the factor returned is 1. Likewise when the load is 0.
// Floating point is used here on purpose: these are reporting and set-up numbers, never engine
// accounting. Single-threaded; pure functions of their arguments.
#pragma once

#include <cstdint>

#include "model/workload.h"

namespace headroom::sim {

// Precondition: capacity_milli > 0.
double OfferedLoad(const model::Workload& workload, uint64_t capacity_milli);

// Rescales submit times so that OfferedLoad(workload, capacity_milli) == target_load; returns
// the factor applied to arrival offsets (> 1 stretches arrivals out and lowers the load).
// Preconditions: capacity_milli > 0, target_load > 0 and finite, and the scaled arrival span
// fits in TimeUs (no real target comes near).
double ScaleToLoad(model::Workload& workload, double target_load, uint64_t capacity_milli);

}  // namespace headroom::sim
