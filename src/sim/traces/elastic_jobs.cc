#include "sim/traces/elastic_jobs.h"

#include "base/check.h"
#include "base/rng.h"

namespace headroom::sim {

uint64_t MakeElastic(model::Workload& workload, double share, uint64_t seed) {
  HR_CHECK(share >= 0 && share <= 1);
  // A stream of its own, so that the draws do not depend on what else used the seed.
  Rng rng(seed ^ 0xe1a5'71c0'0000'0000ULL);
  uint64_t declared = 0;
  for (model::Job& job : workload.jobs) {
    if (job.task_count < 2 || job.elastic()) continue;
    if (share < 1 && rng.Uniform() >= share) continue;
    job.min_task_count = 1;
    job.task_count_step = 1;
    ++declared;
  }
  return declared;
}

}  // namespace headroom::sim
