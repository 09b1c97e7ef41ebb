// libFuzzer target: ParseOpenbTrace on arbitrary text. It must never crash, hang or overflow,
// and whatever it accepts must keep the loader's promises (sorted, positive runtimes, exact
// estimates, one task per pod, shares only on one-device tasks).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/openb_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto loaded = headroom::sim::ParseOpenbTrace(text, "fuzz.csv", headroom::sim::WorkloadOptions{});
  if (!loaded) return 0;
  const auto& jobs = loaded->workload.jobs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    HR_CHECK(jobs[i].runtime_us > 0);
    HR_CHECK(jobs[i].runtime_estimate_us == jobs[i].runtime_us);
    HR_CHECK(jobs[i].task_count == 1);
    HR_CHECK(jobs[i].task.milli_per_device >= 1 &&
             jobs[i].task.milli_per_device <= headroom::model::kMilliPerDevice);
    HR_CHECK(jobs[i].task.fractional() ||
             jobs[i].task.milli_per_device == headroom::model::kMilliPerDevice);
    if (i > 0) HR_CHECK(jobs[i - 1].submit_time_us <= jobs[i].submit_time_us);
  }
  return 0;
}
