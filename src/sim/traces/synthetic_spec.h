// SyntheticSpec: the few numbers that describe a synthetic training workload — how many jobs,
// how often they arrive, how big and how long they are, who submits them at what priority —
// and the presets `small`, `default` and `million`. GenerateSyntheticWorkload
// (synthetic_workload.h) turns a spec and a seed into jobs.
//
// The presets share one mix, shaped after the public traces (Philly, Helios, ITP; their counts
// are in tests/sim/traces/): mostly 1-device jobs (Philly 80%, ITP 75-100%), some 2/4/8
// (8-device ~10%), a tail of 16-64-device gangs (~4%); lognormal runtimes with median 30 min and
// sigma 2 (Philly's median is ~5 min with sigma 3, ITP's ~2 h with sigma ~1.2; heavy-tailed in
// all), capped at 30 days; Poisson arrivals every 45 s on average, which offers a 1,024-device
// cluster a load of about 0.75-0.9 (seeds 1-5 of `default`; the heavy tail makes it vary by
// seed — use ScaleToLoad, load_scaling.h, to aim at an exact load); four tenants weighted
// 40/30/20/10; three priority classes 0/1/2 weighted 60/30/10; user estimates 1-3x the runtime
// (backfill needs them pessimistic, as users' are); no device-model constraints and no
// fractional shares. small = 2,000 jobs, default = 20,000, million = 1,000,000.
//
// YAML spec (every field optional; absent ones take the default preset's value):
//   jobs: 5000                  # 1 .. 10,000,000
//   seed: 7                     # overrides WorkloadOptions::seed when present
//   mean_interarrival_s: 30     # exponential gaps; (0, 3600]
//   size_mix: {1: 70, 2: 5, 4: 8, 8: 12, 16: 3, 32: 1.5, 64: 0.5}   # devices: weight;
//                               # 0 = CPU-only; sizes above devices_per_node become gangs
//   runtime_median_s: 1800      # lognormal median, (0, 10^7]
//   runtime_sigma: 2.0          # lognormal sigma of ln(runtime), [0, 10]
//   runtime_min_s: 1            # clamp, (0, runtime_max_s]
//   runtime_max_s: 2592000      # clamp, <= 10^8
//   estimate_factor: [1, 3]     # estimate = runtime x factor; a number or [min, max] drawn
//                               # uniformly; 1 <= min <= max <= 1000
//   tenants: {team-a: 3, team-b: 1}   # name: weight, or a count N for tenant-0..N-1, equal
//   priority_classes: {0: 60, 1: 30, 2: 10}   # priority: weight
//   devices_per_node: 8         # gang split; 0 or absent = WorkloadOptions::max_devices_per_node
//   models: {H100: 3, A100: 1}  # each job asks for one model (`model == "H100"`); empty = any
//   fractional_share: 0.1       # share of 1-device jobs asking for 100..900 milli of a device
//   cpu_milli_per_device: 8000  # per task: devices x this (a CPU-only task gets one device's)
//   memory_mib_per_device: 65536
//   checkpoint_interval_s: 3600 # how often each job saves its work; 0 = the policy's default
//   checkpoint_cost_s: 6.3      # how long each checkpoint pauses it, [0, 3600]; 0 = not declared
//   required_topology: {level: rack, share: 0.5}   # that share of multi-node jobs (gangs of
//                               # more than one task) must fit inside one domain of the level
//   preferred_topology: {level: rack, share: 1}    # that share prefers it (falls back upwards)
//                               # level: one of the cluster's level names (checked when the
//                               # run loads the workload against its cluster); share in [0, 1];
//                               # both default to none (share 0), as in the presets
// Weights are non-negative finite numbers with a positive sum. Errors read
//   file:line: field 'size_mix.x': expected a device count from 0 to 65536, got "x"
// and YAML syntax errors "file:line: YAML syntax error: ...". Parsing never throws.
// Threading: plain values; pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"

namespace headroom::sim {

template <typename T>
using WeightedChoices = std::vector<std::pair<T, double>>;

struct SyntheticSpec {
  uint64_t jobs = 20'000;
  std::optional<uint64_t> seed;
  double mean_interarrival_s = 45;
  WeightedChoices<uint32_t> size_mix = {{1, 75},   {2, 4},  {4, 7},   {8, 10},
                                        {16, 2.5}, {32, 1}, {64, 0.5}};
  double runtime_median_s = 1800;
  double runtime_sigma = 2.0;
  double runtime_min_s = 1;
  double runtime_max_s = 30 * 24 * 3600;
  double estimate_factor_min = 1;
  double estimate_factor_max = 3;
  WeightedChoices<std::string> tenants = {
      {"team-a", 40}, {"team-b", 30}, {"team-c", 20}, {"team-d", 10}};
  WeightedChoices<int32_t> priority_classes = {{0, 60}, {1, 30}, {2, 10}};
  uint32_t devices_per_node = 0;  // 0: WorkloadOptions::max_devices_per_node.
  WeightedChoices<std::string> models;
  double fractional_share = 0;
  int64_t cpu_milli_per_device = 8000;
  int64_t memory_mib_per_device = 65536;
  double checkpoint_interval_s = 0;
  double checkpoint_cost_s = 0;
  // Topology levels some multi-node jobs state (model::Job); share 0 = none. The presets state
  // none, so their jobs are unchanged.
  std::string required_topology_level;
  double required_topology_share = 0;
  std::string preferred_topology_level;
  double preferred_topology_share = 0;
};

// Limits a spec must respect (checked by ParseSyntheticSpec; GenerateSyntheticWorkload
// HR_CHECKs them). They keep every time in range and generation bounded.
inline constexpr uint64_t kMaxSyntheticJobs = 10'000'000;
inline constexpr double kMaxMeanInterarrivalS = 3600;
inline constexpr uint32_t kMaxSyntheticJobDevices = 65536;

// The named presets: "small", "default", "million"; kNotFound for any other name.
Result<SyntheticSpec> SyntheticPreset(std::string_view name);
bool IsSyntheticPreset(std::string_view name);

// Parses a YAML spec; `source` names it in messages.
Result<SyntheticSpec> ParseSyntheticSpec(std::string_view text, std::string_view source);

}  // namespace headroom::sim
