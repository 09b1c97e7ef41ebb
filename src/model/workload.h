// Workload: the jobs one run replays, sorted by submit time (ties by their order in the
// source), plus where they came from.
#pragma once

#include <string>
#include <vector>

#include "model/job.h"

namespace headroom::model {

struct Workload {
  std::string format;  // "openb", "philly", "helios", "itp", "synthetic", ...
  std::string source;  // The path or preset it was read from.
  std::vector<Job> jobs;
};

// Sorts jobs by submit time, keeping source order for equal times.
void SortBySubmitTime(Workload& workload);

}  // namespace headroom::model
