// libFuzzer target: the Philly/Helios re-encoded format (gen_parallel_trace.h) on arbitrary
// text, through both entry points and two node sizes. It must never crash, hang or overflow,
// and whatever it accepts must keep the loader's promises (sorted, positive runtimes, exact
// estimates, gangs of tasks that fit a node and hold every device the row asked for).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/gen_parallel_trace.h"

namespace {

void Check(const headroom::Result<headroom::sim::LoadedWorkload>& loaded, uint32_t max) {
  if (!loaded) return;
  const auto& jobs = loaded->workload.jobs;
  for (size_t i = 0; i < jobs.size(); ++i) {
    HR_CHECK(jobs[i].runtime_us > 0);
    HR_CHECK(jobs[i].runtime_estimate_us == jobs[i].runtime_us);
    HR_CHECK(jobs[i].task_count >= 1);
    HR_CHECK(jobs[i].task.devices <= max);
    HR_CHECK(jobs[i].task.cpu_milli >= 0);
    if (i > 0) HR_CHECK(jobs[i - 1].submit_time_us <= jobs[i].submit_time_us);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const uint32_t max : {8u, 3u}) {
    const headroom::sim::WorkloadOptions options{.max_devices_per_node = max};
    Check(headroom::sim::ParsePhillyTrace(text, "philly.csv", options), max);
    Check(headroom::sim::ParseHeliosTrace(text, "helios.csv", options), max);
  }
  return 0;
}
