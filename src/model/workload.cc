#include "model/workload.h"

#include <algorithm>

namespace headroom::model {

void SortBySubmitTime(Workload& workload) {
  std::stable_sort(workload.jobs.begin(), workload.jobs.end(),
                   [](const Job& a, const Job& b) { return a.submit_time_us < b.submit_time_us; });
}

}  // namespace headroom::model
