// libFuzzer target: ParseSyntheticSpec on arbitrary YAML text, then a small generation from
// every spec it accepts. Parsing must never crash or throw; generation must keep its promises
// (sorted, positive runtimes, estimates within the factor range, tasks that fit a node).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "sim/traces/synthetic_spec.h"
#include "sim/traces/synthetic_workload.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto spec = headroom::sim::ParseSyntheticSpec(text, "fuzz.yaml");
  if (!spec) return 0;
  spec->jobs = std::min<uint64_t>(spec->jobs, 200);  // Generation cost is not under test here.
  const headroom::sim::WorkloadOptions options{};
  const headroom::model::Workload workload =
      headroom::sim::GenerateSyntheticWorkload(*spec, options, "fuzz.yaml");
  HR_CHECK(workload.jobs.size() == spec->jobs);
  const uint32_t per_node =
      spec->devices_per_node != 0 ? spec->devices_per_node : options.max_devices_per_node;
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const auto& job = workload.jobs[i];
    HR_CHECK(job.runtime_us > 0);
    HR_CHECK(job.runtime_estimate_us >= job.runtime_us);
    HR_CHECK(job.task.devices <= per_node);
    if (i > 0) HR_CHECK(workload.jobs[i - 1].submit_time_us <= job.submit_time_us);
  }
  return 0;
}
