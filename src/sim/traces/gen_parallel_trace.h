// Loader for the re-encoded Philly and Helios job slices published by DIR-LAB's
// Gen-Parallel-Workloads (github.com/DIR-LAB/Gen-Parallel-Workloads, Philly/ and Helios/
// training_data/*_data_training.csv): the last 15,000 jobs of Microsoft Philly (Jeon et al.,
// "Analysis of Large-Scale Multi-Tenant GPU Clusters for DNN Training Workloads", USENIX ATC'19)
// and of SenseTime Helios (Hu et al., "Characterization and Prediction of Deep Learning
// Workloads in Large-Scale GPU Datacenters", SC'21). Both use one format.
//
// Format: CSV with a header and CRLF endings. Columns
//   u_id, user, gpu_num, cpu_num, node_num, interval, run_time, wall_time, new_status
// `interval` is seconds since the previous row's submission (the first row's is 0), `run_time`
// seconds; `wall_time` is always 0 in both files (no user estimate); users are re-indexed ints.
// There are no timestamps, queueing delays or placements.
//
// Mapping, one row -> one Job:
//   u_id                   -> name "philly-<u_id>" / "helios-<u_id>"
//   user                   -> tenant "user-<user>"
//   cumulative sum of interval -> submit time (the first row arrives at its own interval, 0)
//   run_time               -> runtime, and runtime_estimate = runtime: the estimates are exact,
//                             since wall_time (the only estimate the format has) is always 0.
//                             Rows of zero or negative run_time are skipped and counted
//                             ("zero runtime", "negative runtime"); their interval still counts.
//   gpu_num, node_num      -> the gang, by SplitGang (gang_split.h): node_num tasks of
//                             gpu_num / node_num devices when that divides and fits a node of
//                             the target cluster, else ceil(gpu_num / max_devices_per_node)
//                             equal tasks. gpu_num 0 -> max(node_num, 1) CPU-only tasks.
//   cpu_num                -> cpu_milli per task = ceil(cpu_num * 1000 / task_count): cpu_num
//                             is the job's total, like gpu_num (Helios: ~5 CPUs per GPU; Philly:
//                             always 0).
//   new_status             -> trace_outcome: Pass -> kCompleted, Failed -> kFailed,
//                             Killed -> kKilled
//   memory                 -> 0 (not in the format); selector -> match every device.
// Helios keeps its 4,204 CPU-only rows: they were real jobs of the cluster.
// Promises: the workload is sorted by submit time, ties in file order; malformed cells are
// errors "file:line: field 'x': expected ..., got "..."". Pure; thread-safe.
// Precondition: options.max_devices_per_node >= 1.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "sim/traces/workload_loader.h"

namespace headroom::sim {

// Parses philly_data_training.csv (names "philly-<u_id>", format "philly").
Result<LoadedWorkload> ParsePhillyTrace(std::string_view text, std::string source,
                                        const WorkloadOptions& options);

// Parses helios_data_training.csv (names "helios-<u_id>", format "helios").
Result<LoadedWorkload> ParseHeliosTrace(std::string_view text, std::string source,
                                        const WorkloadOptions& options);

}  // namespace headroom::sim
