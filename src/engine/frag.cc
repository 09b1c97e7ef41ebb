#include "engine/frag.h"

#include <algorithm>
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

int64_t ShapeFragMilli(const NodeView& node, const PodShape& shape, const ShapeTypes& types) {
  const int64_t left = node.total_left();
  // A CPU-only task, or one that cannot run here, leaves every free milli-GPU unusable.
  if (shape.milli_per_gpu == 0 || !types.Accepts(shape.type, node.model)) return left;
  if (!GpusFit(node, shape) || node.cpu_left < shape.cpu_milli) return left;
  int64_t below = 0;
  for (uint32_t g = 0; g < node.gpu_count; ++g) {
    if (node.gpu_left[g] < shape.milli_per_gpu) below += node.gpu_left[g];
  }
  return below;
}

double NodeFragMilli(const NodeView& node, const std::vector<TypicalShape>& typical,
                     const ShapeTypes& types) {
  double frag = 0;
  for (const TypicalShape& t : typical) {
    frag += t.weight * static_cast<double>(ShapeFragMilli(node, t.shape, types));
  }
  return frag;
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
  for (TypicalShape& t : shapes) t.weight /= covered;
  return shapes;
}

}  // namespace headroom::engine
