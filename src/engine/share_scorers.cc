#include "engine/share_scorers.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>

#include "base/check.h"

namespace headroom::engine {
namespace {

constexpr int64_t kMaxScore = 100;
// The artifact's normalisers: the largest node of the openb cluster (pkg/type/open-gpu-share/
// utils/const.go MaxSpecCpu, MaxSpecGpu).
constexpr double kMaxSpecCpuMilli = 128000;
constexpr int64_t kMaxSpecGpuMilli = 8000;

struct PolicyName {
  SharePolicy policy;
  std::string_view name;
  std::string_view artifact;
  std::string_view summary;
};
constexpr std::array<PolicyName, 7> kPolicies = {{
    {SharePolicy::kRandom, "random", "01-Random", "any node that fits, at random (FGD's baseline)"},
    {SharePolicy::kDotProd, "dotprod", "02-DotProd",
     "Tetris: free resources best aligned with the demand (FGD's baseline)"},
    {SharePolicy::kClustering, "clustering", "03-GpuClustering",
     "keep tasks of one kind together (FGD's baseline)"},
    {SharePolicy::kPacking, "packing", "04-GpuPacking",
     "a shared GPU in use first, then partly used nodes (FGD's baseline)"},
    {SharePolicy::kBestFit, "bestfit", "05-BestFit", "least free left after (FGD's baseline)"},
    {SharePolicy::kFgd, "fgd", "06-FGD",
     "least growth of fragmentation for the workload (Weng et al., ATC'23)"},
    {SharePolicy::kHeadroom, "headroom", "",
     "least packing loss, then FGD's gradient with CPU and model scarcity (ours)"},
}};

// plugin/dot_product_score.go with dimExtMethod "merge", normMethod "max".
int64_t DotProdScore(const NodeView& node, const PodShape& shape) {
  const double node_cpu = static_cast<double>(node.cpu_left) / kMaxSpecCpuMilli;
  const double node_gpu = static_cast<double>(node.total_left()) / kMaxSpecGpuMilli;
  const double pod_cpu = static_cast<double>(shape.cpu_milli) / kMaxSpecCpuMilli;
  const double pod_gpu = static_cast<double>(shape.total_milli()) / kMaxSpecGpuMilli;
  const double score = 1 - (node_cpu * pod_cpu + node_gpu * pod_gpu) / 2;
  return static_cast<int64_t>(kMaxScore * score);
}

// plugin/gpu_clustering_score.go.
int64_t ClusteringScore(const NodeView& node, const PodShape& shape, const NodeKinds& kinds) {
  if (shape.gpus == 0) return 0;
  const int64_t fullness =
      kMaxScore / 4 * (kMaxSpecGpuMilli - node.total_left()) / kMaxSpecGpuMilli;
  if (kinds.count_by_kind[KindOf(shape)] > 0) {
    return fullness + (kinds.distinct == 1 ? kMaxScore * 3 / 4 : kMaxScore * 2 / 4);
  }
  return fullness + (kinds.distinct == 0 ? kMaxScore / 4 : 0);
}

// plugin/gpu_packing_score.go.
int64_t PackingScore(const NodeView& node, const PodShape& shape) {
  if (shape.gpus == 0) return 0;
  const uint32_t fully_free = node.fully_free();
  if (fully_free == node.gpu_count) {
    return std::max<int64_t>(kMaxScore / 3 - fully_free, fully_free);
  }
  std::array<uint32_t, kMaxShareGpus> order{};
  std::iota(order.begin(), order.begin() + node.gpu_count, 0U);
  std::stable_sort(order.begin(), order.begin() + node.gpu_count,
                   [&](uint32_t a, uint32_t b) { return node.gpu_left[a] < node.gpu_left[b]; });
  uint32_t wanted = shape.gpus;
  uint32_t fully_free_used = 0;
  int64_t free_pct_on_used = 0;
  for (uint32_t i = 0; i < node.gpu_count && wanted > 0; ++i) {
    const uint16_t left = node.gpu_left[order[i]];
    if (shape.milli_per_gpu > left) continue;
    --wanted;
    fully_free_used += left == 1000;
    free_pct_on_used += left * 100 / 1000;
  }
  HR_CHECK(wanted == 0);
  if (fully_free_used > 0) return std::max<int64_t>(kMaxScore / 2 - fully_free_used, kMaxScore / 3);
  return std::max<int64_t>(kMaxScore - free_pct_on_used / 10, kMaxScore / 2);
}

// plugin/best_fit_score.go, before normalisation.
int64_t BestFitScore(const NodeView& node, const PodShape& shape) {
  const double cpu = static_cast<double>(node.cpu_left - shape.cpu_milli) / kMaxSpecCpuMilli;
  const double gpu =
      static_cast<double>(node.total_left() - static_cast<int64_t>(shape.total_milli())) /
      kMaxSpecGpuMilli;
  return static_cast<int64_t>((1.0 - (cpu * 0.5 + gpu * 0.5)) * kMaxScore);
}

double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

// plugin/fgd_score.go calculateGpuShareFragExtendScore.
NodeScore FgdScore(const NodeView& node, const PodShape& shape, const ScoreContext& context) {
  const double before = NodeFragMilli(node, *context.typical, *context.types);
  auto score_of = [&](const NodeView& after) {
    const double delta = before - NodeFragMilli(after, *context.typical, *context.types);
    return static_cast<int64_t>(Sigmoid(delta / 1000) * kMaxScore);
  };
  if (!shape.shares_a_gpu()) return {score_of(AfterPlacing(node, shape, -1)), -1};
  NodeScore best{0, -1};
  for (uint32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_left[g] < shape.milli_per_gpu) continue;
    const int64_t score = score_of(AfterPlacing(node, shape, static_cast<int32_t>(g)));
    if (best.gpu < 0 || score > best.score) best = {score, static_cast<int32_t>(g)};
  }
  return best;
}

// headroom: FGD's gradient over a measure that also counts the free GPUs a node's CPU can no
// longer feed. FGD sees CPU only as a cliff (a typical task fits or lacks CPU); before the
// cliff, tasks that take more than their share of a node's CPU strand its remaining GPUs (on
// the openb cluster, most of FGD's unallocated GPUs at 100% arrived sit on 8-GPU/96-core nodes
// whose cores were taken by CPU-heavy 1-GPU tasks). The measure adds
//   λ · max(0, free GPU milli − free CPU milli / c),
// c being the typical GPU task's CPU per GPU milli, λ = 1; and a pod without a model
// constraint is charged, per milli-GPU it takes, the scarcity of the node's model (how much of
// the typical demand is constrained to it, relative to its capacity, at most 1): without that,
// flexible pods use up models that constrained pods cannot do without (on the gpuspec variants
// FGD leaves 12% of GPUs unallocated at 100% arrived, headroom 6%). Scores keep FGD's squashing,
// whose coarse ties go to the seeded node rank and so consolidate load; within a tie, a CPU-only
// task takes the node with the fewest free GPUs, and a shared-GPU task the GPU it fills most.
// Above all that, a shared-GPU task avoids a GPU whose best packing it would spoil
// (PackingValues): FGD's measure is of the moment — a 320 beside a lone 470 lowers it, as the
// 530 free milli were unusable for the large shapes — but the 210 left can only ever hold the
// rare small tasks, while a second 470 would have left 60. At 90% arrived on the openb default
// trace (seeds 42–44) the free milli stranded on GPUs that shared tasks touched falls from about
// 240 GPUs' worth (as an online best fit leaves) to 220–233, near what first-fit-decreasing
// reaches offline on the same tasks (222–225).
NodeScore HeadroomScore(const NodeView& node, const PodShape& shape, const ScoreContext& context) {
  constexpr double kStrandWeight = 1.0;
  auto measure = [&](const NodeView& n) {
    const double supported = static_cast<double>(n.cpu_left) / context.cpu_per_gpu_milli;
    const double stranded = std::max(0.0, static_cast<double>(n.total_left()) - supported);
    return NodeFragMilli(n, *context.typical, *context.types) + kStrandWeight * stranded;
  };
  // A pod that may run anywhere pays for the milli-GPUs it takes from a model that pods
  // constrained to few models need (ModelScarcity), so it goes elsewhere when it can.
  double scarce_cost = 0;
  if (shape.type == 0 && node.model < context.scarcity->size()) {
    scarce_cost = (*context.scarcity)[node.model] * static_cast<double>(shape.total_milli());
  }
  const double before = measure(node) - scarce_cost;
  // Keys, most significant first: the packing loss in thousandths of a GPU (least first), the
  // squashed gradient (0..100), the rule within a tie (0..99999).
  constexpr int64_t kTieSpan = 100000;
  constexpr int64_t kGradientSpan = (kMaxScore + 1) * kTieSpan;
  auto score_of = [&](const NodeView& after, int32_t gpu) {
    const double delta = before - measure(after);
    const int64_t gradient = static_cast<int64_t>(Sigmoid(delta / 1000) * kMaxScore);
    int64_t within_tie = 0;
    int64_t loss = 0;
    if (shape.gpus == 0) within_tie = kTieSpan - 1 - std::min(kTieSpan - 1, after.total_left());
    if (gpu >= 0) within_tie = 1000 - after.gpu_left[gpu];
    if (gpu >= 0 && context.packing != nullptr) {
      loss = std::llround(1000 *
                          context.packing->PlacementLoss(node.gpu_left[gpu], shape.milli_per_gpu));
    }
    return (1000 - loss) * kGradientSpan + gradient * kTieSpan + within_tie;
  };
  if (!shape.shares_a_gpu()) return {score_of(AfterPlacing(node, shape, -1), -1), -1};
  NodeScore best{0, -1};
  for (uint32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_left[g] < shape.milli_per_gpu) continue;
    const auto gpu = static_cast<int32_t>(g);
    const int64_t score = score_of(AfterPlacing(node, shape, gpu), gpu);
    if (best.gpu < 0 || score > best.score) best = {score, gpu};
  }
  return best;
}

}  // namespace

Result<SharePolicy> SharePolicyByName(std::string_view name) {
  for (const PolicyName& p : kPolicies) {
    if (p.name == name) return p.policy;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "unknown packing policy \"{}\": expected random, dotprod, clustering, "
                   "packing, bestfit, fgd or headroom",
                   name);
}

std::vector<std::pair<std::string_view, std::string_view>> SharePolicySummaries() {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  for (const PolicyName& p : kPolicies) out.emplace_back(p.name, p.summary);
  return out;
}

std::string_view SharePolicyName(SharePolicy policy) {
  return kPolicies[static_cast<size_t>(policy)].name;
}

std::string_view SharePolicyArtifactName(SharePolicy policy) {
  return kPolicies[static_cast<size_t>(policy)].artifact;
}

std::vector<double> ModelScarcity(const std::vector<TypicalShape>& typical, const ShapeTypes& types,
                                  const std::vector<double>& capacity_share) {
  const uint32_t models = static_cast<uint32_t>(capacity_share.size());
  std::vector<double> pressure(models, 0);
  double total = 0;
  for (const TypicalShape& t : typical)
    total += t.weight * static_cast<double>(t.shape.total_milli());
  for (const TypicalShape& t : typical) {
    if (t.shape.gpus == 0 || t.shape.type == 0 || total <= 0) continue;
    double accepted_capacity = 0;
    for (uint32_t m = 0; m < models; ++m) {
      if (types.Accepts(t.shape.type, m)) accepted_capacity += capacity_share[m];
    }
    if (accepted_capacity <= 0) continue;
    const double demand = t.weight * static_cast<double>(t.shape.total_milli()) / total;
    for (uint32_t m = 0; m < models; ++m) {
      if (types.Accepts(t.shape.type, m))
        pressure[m] += demand * capacity_share[m] / accepted_capacity;
    }
  }
  for (uint32_t m = 0; m < models; ++m) {
    pressure[m] = capacity_share[m] > 0 ? std::min(1.0, pressure[m] / capacity_share[m]) : 0;
  }
  return pressure;
}

double CpuPerGpuMilli(const std::vector<TypicalShape>& typical) {
  double cpu = 0, gpu = 0;
  for (const TypicalShape& t : typical) {
    if (t.shape.gpus == 0) continue;
    cpu += t.weight * static_cast<double>(t.shape.cpu_milli);
    gpu += t.weight * static_cast<double>(t.shape.total_milli());
  }
  return gpu > 0 && cpu > 0 ? cpu / gpu : 1;
}

uint32_t KindOf(const PodShape& shape) { return shape.shares_a_gpu() ? 0 : shape.gpus; }

int32_t TightestGpu(const NodeView& node, const PodShape& shape) {
  int32_t best = -1;
  for (uint32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_left[g] < shape.milli_per_gpu) continue;
    if (best < 0 || node.gpu_left[g] < node.gpu_left[best]) best = static_cast<int32_t>(g);
  }
  return best;
}

NodeView AfterPlacing(const NodeView& node, const PodShape& shape, int32_t gpu) {
  NodeView after = node;
  after.cpu_left -= shape.cpu_milli;
  if (shape.gpus == 0) return after;
  if (gpu >= 0) {
    HR_CHECK(after.gpu_left[gpu] >= shape.milli_per_gpu);
    after.gpu_left[gpu] = static_cast<uint16_t>(after.gpu_left[gpu] - shape.milli_per_gpu);
    return after;
  }
  std::array<uint32_t, kMaxShareGpus> order{};
  std::iota(order.begin(), order.begin() + node.gpu_count, 0U);
  std::stable_sort(order.begin(), order.begin() + node.gpu_count,
                   [&](uint32_t a, uint32_t b) { return node.gpu_left[a] < node.gpu_left[b]; });
  uint32_t wanted = shape.gpus;
  for (uint32_t i = 0; i < node.gpu_count && wanted > 0; ++i) {
    uint16_t& left = after.gpu_left[order[i]];
    if (left < shape.milli_per_gpu) continue;
    left = static_cast<uint16_t>(left - shape.milli_per_gpu);
    --wanted;
  }
  HR_CHECK(wanted == 0);
  return after;
}

NodeScore ScoreShareNode(SharePolicy policy, const NodeView& node, const PodShape& shape,
                         const ScoreContext& context) {
  switch (policy) {
    case SharePolicy::kDotProd:
      return {DotProdScore(node, shape), -1};
    case SharePolicy::kClustering:
      return {ClusteringScore(node, shape, *context.kinds), -1};
    case SharePolicy::kPacking:
      return {PackingScore(node, shape), -1};
    case SharePolicy::kBestFit:
      return {BestFitScore(node, shape), -1};
    case SharePolicy::kFgd:
      return FgdScore(node, shape, context);
    case SharePolicy::kHeadroom:
      return HeadroomScore(node, shape, context);
    case SharePolicy::kRandom:
      break;
  }
  HR_CHECK(false && "random has no node score");
  return {};
}

}  // namespace headroom::engine
