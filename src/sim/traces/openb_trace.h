// Loader for Alibaba's cluster-trace-gpu-v2023 pod lists ("openb", Weng et al., "Beware of
// Fragmentation: Scheduling GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX
// ATC'23; github.com/alibaba/clusterdata, cluster-trace-gpu-v2023/csv/openb_pod_list_*.csv).
//
// Format: CSV with a header, LF endings. Columns
//   name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase,
//   creation_time, deletion_time, scheduled_time            (times: seconds, relative)
// The four multigpu20/30/40/50 variants keep only the first five columns. Columns are found by
// name, so any order works; the five are required, the rest optional (deletion_time is required
// when creation_time is present).
//
// Mapping, one pod -> one Job of one task (a pod never spans nodes):
//   name                   -> Job::name
//   num_gpu 0              -> a CPU-only task (gpu_milli ignored)
//   num_gpu 1, gpu_milli g -> one device; g < 1000 asks for a share of it (milli_per_device = g,
//                             g in 1..1000, as FGD's GPU sharing)
//   num_gpu n > 1          -> n whole devices (the trace's gpu_milli is always 1000 there;
//                             any other value is ignored, as multi-GPU pods take whole GPUs).
//                             A pod larger than every node stays one task and never fits, as in
//                             the FGD simulator.
//   cpu_milli, memory_mib  -> TaskShape::cpu_milli, memory_mib
//   gpu_spec "A|B"         -> selector `model in ["A", "B"]` (duplicates dropped, order kept);
//                             empty -> match every device
//   qos                    -> priority: Guaranteed 3, LS 2, Burstable 1, BE 0; empty or absent
//                             -> 0 (Kubernetes QoS order, with Alibaba's latency-sensitive LS
//                             above best-effort BE)
//   pod_phase              -> trace_outcome: Succeeded -> kCompleted, Failed -> kFailed,
//                             Running, Pending, Unknown -> kUnknown
//   creation_time          -> submit time
//   deletion_time - creation_time -> runtime, and runtime_estimate = runtime (the trace holds
//                             no user estimate). Pods of zero or negative runtime are skipped
//                             and counted ("zero runtime", "negative runtime").
//   scheduled_time         -> checked (empty or a count) but unused; Pending pods, which have
//                             none, still load: they were demand.
// Quirk to keep in mind: the timed files are not a clean arrival trace but a snapshot of pods
// alive in a ~34-day window (every deletion falls in the last ~34 days; creations reach back
// ~149 days), so long-lived pods are over-represented and early arrivals are sparse. The FGD
// paper ignores the times and fills the cluster in file order.
// Untimed variants (no creation_time column, i.e. multigpu*): every pod is submitted at 0, in
// file order, with runtime = estimate = kOpenbUntimedRuntimeUs (a year), so in any replay they
// arrive in order and never leave: only the fill experiment (allocate until the first pod does
// not fit, then measure fragmentation) is meaningful on them.
// Promises: the workload is sorted by submit time, ties in file order; malformed cells are
// errors "file:line: field 'x': expected ..., got "..."". Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>

#include "base/result.h"
#include "base/time.h"
#include "sim/traces/workload_loader.h"

namespace headroom::sim {

inline constexpr TimeUs kOpenbUntimedRuntimeUs = TimeUs{365} * 24 * 3600 * kUsPerSecond;

// Parses one pod list; `source` names it in messages and in Workload::source.
Result<LoadedWorkload> ParseOpenbTrace(std::string_view text, std::string source,
                                       const WorkloadOptions& options);

}  // namespace headroom::sim
