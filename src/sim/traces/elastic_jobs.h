// Declaring a workload's gangs elastic, so that one trace can be replayed with and without
// elasticity. The ITP/ElasticFlow traces' jobs are elastic by origin (ElasticFlow scales each
// job between one worker and what it asked for), but no published trace states a job's range:
// `MakeElastic` gives a drawn share of the multi-task jobs the range 1..task_count in steps of
// one task (model/job.h says what a width means for its runtime).
// Promises: deterministic for a seed (base/rng.h, the same draws everywhere); jobs of one task
// and jobs already elastic are left alone; order, times and shapes are untouched.
#pragma once

#include <cstdint>

#include "model/workload.h"

namespace headroom::sim {

// Declares each multi-task job elastic with probability `share` (0 to 1; 1: all); returns how
// many it declared.
uint64_t MakeElastic(model::Workload& workload, double share, uint64_t seed);

}  // namespace headroom::sim
