#include "engine/frag.h"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

namespace headroom::engine {

bool GpusFit(const NodeView& node, const PodShape& shape) {
  uint32_t fitting = 0;
  for (uint32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_left[g] >= shape.milli_per_gpu && ++fitting >= shape.gpus) return true;
  }
  return false;
}

namespace {

// The artifact's fragment categories (pkg/utils/frag.go FragRatioDataMap), in its order.
enum FragCategory : uint8_t {
  kLackBoth,
  kLackGpu,
  kSatisfied,  // What a fitting task can use: the artifact tallies it apart; never summed.
  kLackCpu,
  kCpuOnlyFits,
  kCpuOnlyLacksCpu,
  kNoAccess,
  kCategoryCount
};

struct ShapeFrag {
  FragCategory category;
  int64_t milli;  // Fragmented milli-GPUs; a task that fits counts those below its demand.
};

// frag.go GetNodePodFrag, with NodeGpuShareFragAmount's split of a fitting task's free GPUs;
// `left` is the node's free milli-GPUs.
ShapeFrag FragOf(const NodeView& node, int64_t left, const PodShape& shape,
                 const ShapeTypes& types) {
  const bool cpu_fits = node.cpu_left >= shape.cpu_milli;
  // A CPU-only task, or one that cannot run here, leaves every free milli-GPU unusable.
  if (shape.milli_per_gpu == 0) return {cpu_fits ? kCpuOnlyFits : kCpuOnlyLacksCpu, left};
  if (!types.Accepts(shape.type, node.model)) return {kNoAccess, left};
  if (!GpusFit(node, shape)) return {cpu_fits ? kLackGpu : kLackBoth, left};
  if (!cpu_fits) return {kLackCpu, left};
  int64_t below = 0;
  for (uint32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_left[g] < shape.milli_per_gpu) below += node.gpu_left[g];
  }
  return {kLackGpu, below};
}

}  // namespace

int64_t ShapeFragMilli(const NodeView& node, const PodShape& shape, const ShapeTypes& types) {
  return FragOf(node, node.total_left(), shape, types).milli;
}

double NodeFragMilli(const NodeView& node, const std::vector<TypicalShape>& typical,
                     const ShapeTypes& types) {
  // Summed per category, then over the categories, as the artifact adds them
  // (NodeGpuShareFragAmount, FragAmountSumExceptQ3): FGD truncates its scores to integers, and a
  // last-place difference in the sum can move a score across one.
  std::array<double, kCategoryCount> by_category{};
  const int64_t left = node.total_left();
  for (const TypicalShape& t : typical) {
    const ShapeFrag frag = FragOf(node, left, t.shape, types);
    by_category[frag.category] += t.weight * static_cast<double>(frag.milli);
  }
  double sum = 0;
  for (size_t c = 0; c < by_category.size(); ++c) {
    if (c != kSatisfied) sum += by_category[c];
  }
  return sum;
}

std::vector<TypicalShape> TypicalShapes(const std::vector<PodShape>& workload, double coverage) {
  auto key = [](const PodShape& s) {
    return std::tuple(s.cpu_milli, s.milli_per_gpu, s.gpus, s.type);
  };
  std::map<std::tuple<int64_t, uint32_t, uint32_t, uint32_t>, uint64_t> counts;
  for (const PodShape& shape : workload) ++counts[key(shape)];

  std::vector<TypicalShape> shapes;
  shapes.reserve(counts.size());
  for (const auto& [k, count] : counts) {
    const auto& [cpu, milli, gpus, type] = k;
    shapes.push_back({{cpu, milli, gpus, type}, static_cast<double>(count)});
  }
  std::sort(shapes.begin(), shapes.end(), [&](const TypicalShape& a, const TypicalShape& b) {
    if (a.weight != b.weight) return a.weight > b.weight;
    return key(a.shape) > key(b.shape);
  });

  const double total = static_cast<double>(workload.size());
  double covered = 0;
  size_t kept = 0;
  while (kept < shapes.size() && covered < coverage * total) covered += shapes[kept++].weight;
  shapes.resize(kept);
  // Normalised twice, as GetTypicalPods does: by all tasks, then by the share kept.
  for (TypicalShape& t : shapes) t.weight = t.weight / total / (covered / total);
  return shapes;
}

}  // namespace headroom::engine
