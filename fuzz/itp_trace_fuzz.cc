// libFuzzer target: ParseItpTrace on arbitrary text with two node sizes. It must never crash,
// hang or overflow, and whatever it accepts must keep the loader's promises (sorted, the first
// arrival at 0, positive runtimes, exact estimates, tasks that fit a node).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/itp_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const uint32_t max : {8u, 3u}) {
    auto loaded = headroom::sim::ParseItpTrace(
        text, "cluster.csv", headroom::sim::WorkloadOptions{.max_devices_per_node = max});
    if (!loaded) continue;
    const auto& jobs = loaded->workload.jobs;
    if (!jobs.empty()) HR_CHECK(jobs.front().submit_time_us == 0);
    for (size_t i = 0; i < jobs.size(); ++i) {
      HR_CHECK(jobs[i].runtime_us > 0);
      HR_CHECK(jobs[i].runtime_estimate_us == jobs[i].runtime_us);
      HR_CHECK(jobs[i].task.devices <= max);
      if (i > 0) HR_CHECK(jobs[i - 1].submit_time_us <= jobs[i].submit_time_us);
    }
  }
  return 0;
}
