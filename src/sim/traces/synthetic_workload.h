// Synthetic workloads: jobs drawn from a SyntheticSpec (synthetic_spec.h) with a seeded
// generator, for experiments at sizes and loads no public trace offers (up to millions of
// jobs) and for tests that need a workload of known shape.
//
// Each job, in submission order i = 0, 1, ...:
//   submit   = previous submit + Exponential(mean_interarrival_s)   (the first at its own gap)
//   devices  = a size drawn from size_mix; size > devices_per_node becomes a gang by SplitGang
//              (gang_split.h), e.g. 32 on 8-device nodes = 4 tasks of 8; 0 = one CPU-only task
//   share    = with probability fractional_share, a 1-device job asks for 100, 200, ... or 900
//              milli of its device (uniform)
//   runtime  = clamp(LogNormal(runtime_median_s, runtime_sigma), runtime_min_s, runtime_max_s),
//              at least 1 us
//   estimate = runtime x Uniform(estimate_factor_min, estimate_factor_max), so >= runtime
//   tenant, priority, model: drawn from their weights; a model gives `model == "NAME"`
//   cpu_milli, memory_mib per task = per-device values x devices (x share / 1000 for a
//              share; one device's worth for a CPU-only task)
//   name     = "syn-<i>"; trace_outcome kUnknown
//   topology = a multi-node job (task_count > 1) states required_topology_level with
//              probability required_topology_share, and independently preferred_topology_level
//              with probability preferred_topology_share (no draw at share 0)
// Promises:
//  1. Deterministic: the same spec and seed give the same jobs on every platform (headroom::Rng
//     and its own distributions only); a different seed gives different jobs.
//  2. The workload is sorted by submit time; the first job arrives at its own first gap.
//  3. Cost is linear in jobs, one pass, with no per-job allocation beyond the Job itself (names
//     stay within the small-string buffer; model selectors are shared): a million jobs take
//     about 0.5 s of CPU, most of it first-touching the jobs' memory (248 bytes a job).
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "model/workload.h"
#include "sim/traces/synthetic_spec.h"
#include "sim/traces/workload_loader.h"

namespace headroom::sim {

// Uses spec.seed when set, else options.seed; spec.devices_per_node when non-zero, else
// options.max_devices_per_node. Preconditions: the spec respects the limits in synthetic_spec.h
// (ParseSyntheticSpec and SyntheticPreset guarantee it); options.max_devices_per_node >= 1.
model::Workload GenerateSyntheticWorkload(const SyntheticSpec& spec, const WorkloadOptions& options,
                                          std::string source);

// `name_or_path`: a preset name (small, default, million), or the path of a YAML spec (a
// preset name wins over a file of that name; write ./small for the file).
Result<LoadedWorkload> LoadSyntheticWorkload(std::string_view name_or_path,
                                             const WorkloadOptions& options);

}  // namespace headroom::sim
