// Loader for the Microsoft ITP cluster job traces published with ElasticFlow (Gu et al.,
// "ElasticFlow: An Elastic Serverless Training Platform for Distributed Deep Learning",
// ASPLOS'23; github.com/microsoft/elasticflow-traces, data/raw-traces.tar.gz, clusterNN.csv).
//
// Format: CSV with a header, LF endings and NO trailing newline. Columns
//   job_id (UUID), submission_time (s from collection start), duration (s), num_gpu
// sorted by submission_time. There is no status, node count, placement, queueing delay or
// cluster capacity (choose one, e.g. from peak concurrent demand).
//
// Mapping, one row -> one Job:
//   job_id          -> name; tenant "default" (the trace has no users)
//   submission_time -> submit time, shifted so that the earliest loaded job arrives at 0 (the
//                      raw times start days into the collection, e.g. 1,932,025 s in cluster01)
//   duration        -> runtime, and runtime_estimate = runtime (exact; the trace holds no user
//                      estimate). Rows of zero or negative duration are skipped and counted
//                      ("zero runtime", "negative runtime"); none exist in the published files,
//                      whose durations start at 600 s.
//   num_gpu         -> the gang, by SplitGang (gang_split.h) with no node count: one task when
//                      it fits a node of the target cluster, else ceil(num_gpu /
//                      max_devices_per_node) equal tasks (num_gpu is a power of two up to 64,
//                      so with 8-device nodes a 64-GPU job is 8 tasks of 8). 0 -> CPU-only.
//   cpu, memory     -> 0 (not in the format); selector -> match every device;
//   trace_outcome   -> kUnknown.
// Promises: the workload is sorted by submit time, ties in file order; malformed cells are
// errors "file:line: field 'x': expected ..., got "..."". Pure; thread-safe.
// Precondition: options.max_devices_per_node >= 1.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "sim/traces/workload_loader.h"

namespace headroom::sim {

Result<LoadedWorkload> ParseItpTrace(std::string_view text, std::string source,
                                     const WorkloadOptions& options);

}  // namespace headroom::sim
