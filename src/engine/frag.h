// Fragmentation as FGD measures it (Weng et al., "Beware of Fragmentation: Scheduling
// GPU-Sharing Workloads with Fragmentation Gradient Descent", USENIX ATC'23, §3; artifact
// github.com/hkust-adsl/kubernetes-scheduler-simulator, pkg/utils/frag.go).
//
// A node's free GPU capacity is fragmented *for a task shape* when that task cannot use it:
// the node cannot host the task at all (too few GPUs with enough free milli, too little CPU, a
// GPU model the task does not accept, or the task wants no GPU), in which case every free
// milli-GPU counts; or the node can host it, in which case only the GPUs whose free share is
// below the task's per-GPU demand count. Over a target workload — a distribution of shapes
// ("typical shapes", weights summing to 1) — the node's fragmentation is the expectation:
//
//   F(n) = Σ_m p_m · frag_m(n),  frag_m(n) = Σ_g free_g                if m does not fit on n
//                                           = Σ_{g: free_g < d_m} free_g  if it fits
//
// where free_g is GPU g's free milli and d_m the shape's milli per GPU. The cluster's
// fragmentation is Σ_n F(n); its fragmentation ratio is that over the free milli-GPUs.
// Promise: pure functions of their arguments; identical node states give identical values.
// Threading: immutable after construction; safe to share across threads.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace headroom::engine {

inline constexpr uint32_t kMaxShareGpus = 16;

// One task's demand as the packing policies see it. `type` indexes the accessibility table
// (which GPU models the task accepts); type 0 accepts every model.
struct PodShape {
  int64_t cpu_milli = 0;
  uint32_t milli_per_gpu = 0;  // 0 for a CPU-only task; 1..1000.
  uint32_t gpus = 0;
  uint32_t type = 0;

  uint64_t total_milli() const { return uint64_t{milli_per_gpu} * gpus; }
  bool shares_a_gpu() const { return gpus == 1 && milli_per_gpu < 1000; }
  bool operator==(const PodShape&) const = default;
};

// A node's free resources, GPUs in the node's own index order.
struct NodeView {
  int64_t cpu_left = 0;
  int64_t cpu_capacity = 0;
  int64_t memory_left = 0;
  uint32_t model = 0;  // Device class of the node's GPUs.
  uint32_t gpu_count = 0;
  std::array<uint16_t, kMaxShareGpus> gpu_left{};

  int64_t total_left() const {
    int64_t total = 0;
    for (uint32_t g = 0; g < gpu_count; ++g) total += gpu_left[g];
    return total;
  }
  uint32_t fully_free() const {
    uint32_t count = 0;
    for (uint32_t g = 0; g < gpu_count; ++g) count += gpu_left[g] == 1000;
    return count;
  }
};

struct TypicalShape {
  PodShape shape;
  double weight = 0;
};

// Which task types accept which GPU models: accepts[type][model].
struct ShapeTypes {
  std::vector<std::vector<uint8_t>> accepts;

  bool Accepts(uint32_t type, uint32_t model) const {
    return type == 0 || accepts[type][model] != 0;
  }
};

// GPUs on the node with at least the shape's per-GPU demand free number at least its GPUs.
bool GpusFit(const NodeView& node, const PodShape& shape);

// Fragmented milli-GPUs of one node for one shape (frag_m above).
int64_t ShapeFragMilli(const NodeView& node, const PodShape& shape, const ShapeTypes& types);

// F(n) above.
double NodeFragMilli(const NodeView& node, const std::vector<TypicalShape>& typical,
                     const ShapeTypes& types);

// The artifact's typical shapes: shapes counted over the workload, most frequent first (ties:
// the larger shape by cpu, milli, gpus, type), kept until they cover `coverage` (0.95 in the
// paper's runs) of all tasks, then renormalised to sum to 1.
std::vector<TypicalShape> TypicalShapes(const std::vector<PodShape>& workload, double coverage);

}  // namespace headroom::engine
