// Node scorers for GPU-sharing workloads: the baselines of FGD's evaluation and FGD itself,
// each as the artifact implements it (github.com/hkust-adsl/kubernetes-scheduler-simulator,
// pkg/simulator/plugin/*.go, run with the scheduler configs of experiments/run_scripts), plus
// headroom's own. Scores are integers in [0, 100] as Kubernetes score plugins return them, so
// the integer truncations that create ties — broken at random by the scheduler — are kept.
//
//  random      every feasible node equally likely (RandomScore: one node chosen in PreScore).
//  dotprod     Tetris's alignment (Grandl et al., SIGCOMM'14): 100·(1 − ⟨free, demand⟩/2), both
//              vectors (CPU, GPU milli) divided by the largest node (128 cores, 8 GPUs).
//  clustering  keep GPU tasks of one kind together: bands by whether the node already hosts
//              that kind only (75–100], among others (50–75], nothing (25–50], or only other
//              kinds (0–25], each band rising with how full the node's GPUs are.
//  packing     prefer a shared GPU already in use, then partly used nodes, then empty ones.
//  bestfit     100·(1 − ½·Σ (free − demand)/largest) over CPU and GPU, then min–max
//              normalised over the feasible nodes (integer arithmetic, as kube's).
//  fgd         100·sigmoid((F(n) − F(n after)) / 1000): the least growth of fragmentation
//              (frag.h) under the target workload's typical shapes.
//  headroom    first, for a task sharing a GPU, the least packing loss (packing_values.h:
//              how much of a GPU's best use the placement spoils for good); then FGD's
//              gradient over fragmentation plus the free GPUs the node's CPU can no longer
//              feed, a charge for flexible pods taking scarce GPU models, and tie rules that
//              consolidate (see share_scorers.cc).
// GPU choice inside the node: random for `random`; the scoring GPU for fgd/headroom; the
// tightest GPU that fits (lowest index on ties) for the others. Whole-GPU tasks take the
// lowest-indexed fully free GPUs.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "base/result.h"
#include "engine/frag.h"
#include "engine/packing_values.h"

namespace headroom::engine {

enum class SharePolicy { kRandom, kDotProd, kClustering, kPacking, kBestFit, kFgd, kHeadroom };

Result<SharePolicy> SharePolicyByName(std::string_view name);
std::string_view SharePolicyName(SharePolicy policy);
// Every policy's name and a line on what it prefers, in the order above.
std::vector<std::pair<std::string_view, std::string_view>> SharePolicySummaries();
// The artifact's directory name for the policy ("06-FGD"); empty for headroom.
std::string_view SharePolicyArtifactName(SharePolicy policy);

// What a node already hosts, for the clustering scorer: tasks per kind (0: shared GPU, k: k
// whole GPUs), and how many kinds are present.
struct NodeKinds {
  std::vector<uint32_t> count_by_kind;  // Index 0 shared, 1..kMaxShareGpus whole GPUs.
  uint32_t distinct = 0;
};

uint32_t KindOf(const PodShape& shape);

struct ScoreContext {
  const std::vector<TypicalShape>* typical = nullptr;
  const ShapeTypes* types = nullptr;
  const NodeKinds* kinds = nullptr;  // For clustering.
  // For headroom: the typical GPU task's CPU per GPU milli (CpuPerGpuMilli below).
  double cpu_per_gpu_milli = 1;
  const std::vector<double>* scarcity = nullptr;  // By model (ModelScarcity below).
  const PackingValues* packing = nullptr;         // For headroom; nullptr: no packing loss.
};

// Per GPU model m, in [0, 1]: min(1, D_m / C_m), where C_m is m's share of the cluster's GPUs and
// D_m the share of typical GPU demand (weight × milli) from shapes constrained to a set of
// models that includes m, each shape's demand split over its models by capacity. 0 for every
// model when no shape is constrained.
std::vector<double> ModelScarcity(const std::vector<TypicalShape>& typical, const ShapeTypes& types,
                                  const std::vector<double>& capacity_share);

// Σ weight·cpu ÷ Σ weight·GPU milli over the typical shapes that ask for GPUs; 1 when none do.
double CpuPerGpuMilli(const std::vector<TypicalShape>& typical);

struct NodeScore {
  int64_t score = 0;
  int32_t gpu = -1;  // The chosen shared GPU for a shared-GPU task, else -1.
};

// Score of a node that passed the filter (GpusFit, CPU, memory, model). Not for kRandom.
NodeScore ScoreShareNode(SharePolicy policy, const NodeView& node, const PodShape& shape,
                         const ScoreContext& context);

// Tightest fitting GPU for a shared-GPU task (lowest index on ties); -1 when none fits.
int32_t TightestGpu(const NodeView& node, const PodShape& shape);

// The node after the task, the artifact's way: CPU taken; a shared task on `gpu`; whole GPUs
// from the least free that fit (so fully free ones, lowest index first).
NodeView AfterPlacing(const NodeView& node, const PodShape& shape, int32_t gpu);

}  // namespace headroom::engine
