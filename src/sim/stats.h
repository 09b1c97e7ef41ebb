// Summary statistics over samples: mean and nearest-rank percentiles.
#pragma once

#include <vector>

#include "sim/run_result.h"

namespace headroom::sim {

// Percentiles by the nearest-rank method on a sorted copy; an empty input gives zeros.
Distribution Summarize(std::vector<double> samples);

}  // namespace headroom::sim
