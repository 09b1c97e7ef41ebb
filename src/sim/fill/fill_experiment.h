// The fill experiment of FGD (Weng et al., USENIX ATC'23, §6.1), as its artifact runs it
// (github.com/hkust-adsl/kubernetes-scheduler-simulator: pkg/simulator/core.go Simulate,
// simulator.go SortClusterPods / TunePodsByNodeTotalResource / SchedulePods, analysis.go
// ClusterGpuFragReport, experiments/analysis/merge_*_discrete.py):
//
//  1. The workload's tasks, sorted by name, are shuffled with the seed.
//  2. "Tuning" to `tune` × the cluster's GPU capacity: when the trace asks for less, tasks drawn
//     uniformly with replacement from the trace are appended (unshuffled) while the running
//     total plus the drawn task's per-GPU milli stays within the target — the artifact's test,
//     which stops at the first draw that does not fit; when it asks for more, tasks chosen
//     uniformly at random are removed until the total is within the target.
//  3. Tasks arrive one at a time, each submitted to the engine (Engine::Step) under a policy
//     whose share placement takes every pod (share_placement.h), and start or fail; a failed
//     pod is cancelled, not tried again; nothing departs.
//  4. After every arrival: arrived milli-GPUs (placed or not), allocated milli-GPUs and the
//     cluster's fragmentation (frag.h, over the trace's typical shapes, 95% coverage).
//  5. Curves on the arrived-percent grid 0..130: the mean, over the arrivals whose arrived
//     percent rounds to P (else those within P ± 1), of the allocation percent (each rounded to
//     2 decimals first), of the fragmented percent of capacity and of fragmented ÷ free.
// Every random draw comes from Go's math/rand seeded with the seed (base/go_rand.h), in the
// artifact's order: the shuffle, the tuning draws, kInformerDraws draws that the artifact's
// client-go informers make, the node-name permutation, then the Random policy's picks. So a seed
// here replays the artifact's run of that seed: point for point for every deterministic policy,
// and for Random until pods fail (docs/fill.md, "Fidelity").
// Promise: deterministic in (cluster, workload, policy, seed); runs are independent, so
// RunFillExperiment runs (policy, seed) pairs on `threads` threads with identical results.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/result.h"
#include "engine/share_scorers.h"
#include "model/cluster.h"
#include "model/workload.h"

namespace headroom::sim {

inline constexpr int kFillMaxArrivedPct = 130;

// Between the tuning draws and the node permutation, the artifact's scheduler starts its
// informers; each client-go reflector draws rand.Float64() once for its watch timeout
// (reflector.go ListAndWatch), on the same global generator. Ten draws land before the
// permutation: a rerun of the artifact logs that permutation, and every published run agrees.
inline constexpr int kInformerDraws = 10;

struct FillOptions {
  double tune = 1.3;
  std::vector<uint64_t> seeds = {42};
  std::vector<engine::SharePolicy> policies;
  double typical_coverage = 0.95;
  uint32_t threads = 1;
};

// One run's curves, indexed by arrived percent 0..130; NaN where no arrival fell.
struct FillCurve {
  std::vector<double> allocated_pct;
  std::vector<double> fragmented_pct;
  std::vector<double> fragmentation_ratio_pct;  // Fragmented ÷ free, in percent.
  uint64_t tasks = 0;
  uint64_t failed = 0;
};

struct FillPolicyResult {
  engine::SharePolicy policy;
  std::vector<uint64_t> seeds;
  std::vector<FillCurve> runs;  // Parallel to seeds.
};

struct FillReport {
  std::string cluster_source;
  std::string workload_source;
  uint64_t capacity_gpus = 0;
  uint64_t workload_tasks = 0;
  double tune = 0;
  std::vector<FillPolicyResult> policies;
};

// One run. The workload's jobs must be single-task (pods); errors name the first that is not.
Result<FillCurve> RunFill(const model::Cluster& cluster, const model::Workload& workload,
                          engine::SharePolicy policy, uint64_t seed, double tune,
                          double typical_coverage);

Result<FillReport> RunFillExperiment(const model::Cluster& cluster, const model::Workload& workload,
                                     const FillOptions& options);

}  // namespace headroom::sim
