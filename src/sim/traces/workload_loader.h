// Loads a workload named FORMAT:PATH — a public trace as published, or a synthetic workload —
// into jobs the simulator replays. Each format's quirks (CRLF endings, inter-arrival gaps,
// missing trailing newlines, five-column variants) are handled in its own loader file, whose
// header documents the format and its mapping to Job:
//   openb:PATH      Alibaba GPU v2023 pod lists        openb_trace.h
//   philly:PATH     Philly 15k-job slice (re-encoded)  gen_parallel_trace.h
//   helios:PATH     Helios 15k-job slice (same format) gen_parallel_trace.h
//   itp:PATH        ITP / ElasticFlow clusterNN.csv    itp_trace.h
//   synthetic:NAME  preset small, default or million,  synthetic_workload.h
//   synthetic:PATH  or a YAML spec                     synthetic_spec.h
// PATH is everything after the first colon, so paths may contain colons.
// Promises: the workload is sorted by submit time (ties in source order); every job has
// runtime_us > 0 and runtime_estimate_us >= runtime_us; rows dropped on purpose are counted in
// `skipped` by reason, never silently; malformed input is an error naming file, line and field;
// a missing file is kNotFound. Single-threaded per call; no shared state.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/workload.h"

namespace headroom::sim {

struct WorkloadOptions {
  // Devices on the largest node of the target cluster: a trace job that asks for more devices
  // than that without saying how many nodes becomes ceil(n / this) tasks of equal size.
  uint32_t max_devices_per_node = 8;
  uint64_t seed = 1;  // For synthetic workloads.
  // Load every row as if the trace had no times (openb): the fill experiment, which ignores
  // arrival times, needs every pod, zero-runtime ones included.
  bool ignore_times = false;
};

struct LoadedWorkload {
  model::Workload workload;
  // Rows dropped on purpose (e.g. zero runtime), counted by reason; malformed rows are errors.
  std::vector<std::pair<std::string, uint64_t>> skipped;
};

// `spec` is "FORMAT:PATH"; FORMAT is openb, philly, helios, itp or synthetic.
Result<LoadedWorkload> LoadWorkload(std::string_view spec, const WorkloadOptions& options);

}  // namespace headroom::sim
