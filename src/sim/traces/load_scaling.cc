#include "sim/traces/load_scaling.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"
#include "base/time.h"

namespace headroom::sim {
namespace {

struct Extent {
  TimeUs first = 0;
  TimeUs last = 0;
  TimeUs last_end = 0;
};

Extent ExtentOf(const model::Workload& workload) {
  HR_CHECK(!workload.jobs.empty());
  Extent extent{.first = kNever, .last = -kNever, .last_end = -kNever};
  for (const model::Job& job : workload.jobs) {
    extent.first = std::min(extent.first, job.submit_time_us);
    extent.last = std::max(extent.last, job.submit_time_us);
    extent.last_end = std::max(extent.last_end, job.submit_time_us + job.runtime_us);
  }
  return extent;
}

}  // namespace

double OfferedLoad(const model::Workload& workload, uint64_t capacity_milli) {
  HR_CHECK(capacity_milli > 0);
  if (workload.jobs.empty()) return 0;
  const Extent extent = ExtentOf(workload);
  TimeUs span_us = extent.last - extent.first;
  if (span_us == 0) span_us = extent.last_end - extent.first;
  if (span_us <= 0) return 0;
  double demand_milli_s = 0;
  for (const model::Job& job : workload.jobs) {
    demand_milli_s += static_cast<double>(job.total_milli()) * UsToSeconds(job.runtime_us);
  }
  return demand_milli_s / (static_cast<double>(capacity_milli) * UsToSeconds(span_us));
}

double ScaleToLoad(model::Workload& workload, double target_load, uint64_t capacity_milli) {
  HR_CHECK(capacity_milli > 0);
  HR_CHECK(target_load > 0 && std::isfinite(target_load));
  if (workload.jobs.empty()) return 1;
  const Extent extent = ExtentOf(workload);
  if (extent.last == extent.first) return 1;
  const double load = OfferedLoad(workload, capacity_milli);
  if (load <= 0) return 1;
  const double factor = load / target_load;
  // The scaled span must stay a representable time (about 146,000 years).
  HR_CHECK(static_cast<double>(extent.last - extent.first) * factor < 4.6e18);
  for (model::Job& job : workload.jobs) {
    const double offset = static_cast<double>(job.submit_time_us - extent.first) * factor;
    job.submit_time_us = extent.first + static_cast<TimeUs>(std::llround(offset));
  }
  return factor;
}

}  // namespace headroom::sim
