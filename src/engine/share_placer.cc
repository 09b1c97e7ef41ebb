#include "engine/share_placer.h"

#include <algorithm>

#include "base/check.h"
#include "model/job.h"

namespace headroom::engine {

size_t SharePlacer::ShapeHash::operator()(const PodShape& s) const {
  uint64_t h = static_cast<uint64_t>(s.cpu_milli) * 0x9e3779b97f4a7c15ULL;
  h ^= (uint64_t{s.milli_per_gpu} << 32 | uint64_t{s.gpus} << 16 | s.type) + 0x632be59bd9b4e019ULL +
       (h << 6) + (h >> 2);
  return static_cast<size_t>(h);
}

SharePlacer::SharePlacer(const model::Cluster& cluster, SharePolicy policy,
                         std::vector<TypicalShape> typical, ShapeTypes types, GoRand rng)
    : cluster_(cluster),
      policy_(policy),
      typical_(std::move(typical)),
      types_(std::move(types)),
      rng_(std::move(rng)),
      cpu_per_gpu_milli_(CpuPerGpuMilli(typical_)),
      packing_(typical_),
      node_model_(cluster.nodes().size(), UINT32_MAX),
      node_kinds_(cluster.nodes().size()),
      node_rank_(cluster.nodes().size()) {
  {
    std::vector<uint32_t> by_name(cluster.nodes().size());
    for (uint32_t n = 0; n < by_name.size(); ++n) by_name[n] = n;
    std::sort(by_name.begin(), by_name.end(), [&](uint32_t a, uint32_t b) {
      return cluster.nodes()[a].name < cluster.nodes()[b].name;
    });
    const std::vector<int64_t> prefix = rng_.Perm(static_cast<int64_t>(by_name.size()));
    for (size_t i = 0; i < by_name.size(); ++i) {
      node_rank_[by_name[i]] = static_cast<uint32_t>(prefix[i]);
    }
  }
  capacity_share_.assign(cluster.device_classes().size(), 0);
  for (const model::Device& d : cluster.devices()) capacity_share_[d.device_class.value()] += 1;
  for (double& s : capacity_share_) {
    s /= static_cast<double>(std::max<size_t>(1, cluster.device_count()));
  }
  scarcity_ = ModelScarcity(typical_, types_, capacity_share_);
  for (const model::Node& node : cluster.nodes()) {
    HR_CHECK(node.device_count <= kMaxShareGpus);
    if (node.device_count > 0) {
      node_model_[node.id.value()] =
          cluster.device(DeviceId(node.first_device)).device_class.value();
    }
    node_kinds_[node.id.value()].count_by_kind.assign(kMaxShareGpus + 1, 0);
  }
}

void SharePlacer::SetWorkload(std::vector<TypicalShape> typical, ShapeTypes types) {
  typical_ = std::move(typical);
  types_ = std::move(types);
  cpu_per_gpu_milli_ = CpuPerGpuMilli(typical_);
  packing_ = PackingValues(typical_);
  scarcity_ = ModelScarcity(typical_, types_, capacity_share_);
  shape_ids_.clear();
  cache_.clear();
}

NodeView SharePlacer::ViewOf(const ClusterState& state, NodeId node) const {
  const model::Node& n = cluster_.node(node);
  NodeView view;
  view.cpu_left = state.free_cpu_milli(node);
  view.cpu_capacity = n.cpu_milli;
  view.memory_left = state.free_memory_mib(node);
  view.model = node_model_[node.value()];
  view.gpu_count = n.device_count;
  for (uint32_t g = 0; g < n.device_count; ++g) {
    view.gpu_left[g] = static_cast<uint16_t>(state.free_milli(DeviceId(n.first_device + g)));
  }
  return view;
}

uint32_t SharePlacer::ShapeId(const PodShape& shape) {
  auto [it, inserted] = shape_ids_.try_emplace(shape, static_cast<uint32_t>(cache_.size()));
  if (inserted) cache_.emplace_back(cluster_.nodes().size());
  return it->second;
}

bool SharePlacer::Feasible(const NodeView& view, const PodShape& shape) const {
  if (view.cpu_left < shape.cpu_milli) return false;
  if (shape.gpus == 0) return true;
  if (view.model == UINT32_MAX || !types_.Accepts(shape.type, view.model)) return false;
  return GpusFit(view, shape);
}

TaskAllocation SharePlacer::Allocation(const NodeView& view, NodeId node, const PodShape& shape,
                                       int32_t gpu, int64_t memory_mib) const {
  TaskAllocation task;
  task.node = node;
  task.cpu_milli = shape.cpu_milli;
  task.memory_mib = memory_mib;
  task.milli_per_device = shape.milli_per_gpu;
  const uint32_t first = cluster_.node(node).first_device;
  if (shape.shares_a_gpu()) {
    HR_CHECK(gpu >= 0);
    task.devices.push_back(DeviceId(first + static_cast<uint32_t>(gpu)));
  } else {
    // The lowest-indexed fully free GPUs (the artifact's AllocateExclusiveGpuId).
    for (uint32_t g = 0; g < view.gpu_count && task.devices.size() < shape.gpus; ++g) {
      if (view.gpu_left[g] == model::kMilliPerDevice) task.devices.push_back(DeviceId(first + g));
    }
    HR_CHECK(task.devices.size() == shape.gpus);
  }
  return task;
}

bool SharePlacer::Holds(const ReservedCapacity& avoid, uint32_t node) {
  return avoid.node_devices[node] != 0 || avoid.node_cpu_milli[node] != 0 ||
         avoid.node_memory_mib[node] != 0;
}

NodeView SharePlacer::ViewAvoiding(const ClusterState& state, NodeId node,
                                   const ReservedCapacity& avoid) const {
  NodeView view = ViewOf(state, node);
  view.cpu_left -= avoid.node_cpu_milli[node.value()];
  view.memory_left -= avoid.node_memory_mib[node.value()];
  const uint32_t first = cluster_.node(node).first_device;
  for (uint32_t g = 0; g < view.gpu_count; ++g) {
    if (avoid.device_reserved[first + g] != 0) view.gpu_left[g] = 0;
  }
  return view;
}

std::optional<TaskAllocation> SharePlacer::Choose(const ClusterState& state, const PodShape& shape,
                                                  int64_t memory_mib, const NodeGate* gate,
                                                  const ReservedCapacity* avoid) {
  const uint32_t id = ShapeId(shape);
  std::vector<Cached>& cached = cache_[id];
  const ScoreContext context{&typical_,          &types_,    nullptr,
                             cpu_per_gpu_milli_, &scarcity_, &packing_};
  auto score = [&](const NodeView& view, uint32_t n) {
    ScoreContext node_context = context;
    node_context.kinds = &node_kinds_[n];
    return ScoreShareNode(policy_, view, shape, node_context);
  };
  // Nodes holding reserved capacity are few (one blocked job's): judged afresh, not cached.
  const ReservedCapacity* held = avoid != nullptr && !avoid->empty() ? avoid : nullptr;
  feasible_scratch_.clear();
  score_scratch_.clear();
  node_scores_.clear();
  const uint32_t node_count = static_cast<uint32_t>(cluster_.nodes().size());
  for (uint32_t n = 0; n < node_count; ++n) {
    if (state.drained(NodeId(n)) || state.free_memory_mib(NodeId(n)) < memory_mib) continue;
    if (held != nullptr && Holds(*held, n)) {
      const NodeView view = ViewAvoiding(state, NodeId(n), *held);
      if (view.memory_left < memory_mib || !Feasible(view, shape) ||
          (gate != nullptr && !(*gate)(NodeId(n)))) {
        continue;
      }
      const NodeScore node_score = policy_ == SharePolicy::kRandom ? NodeScore{} : score(view, n);
      feasible_scratch_.push_back(n);
      score_scratch_.push_back(node_score.score);
      node_scores_.push_back(node_score);
      continue;
    }
    Cached& entry = cached[n];
    const uint64_t version = state.node_version(NodeId(n));
    if (entry.version != version) {
      const NodeView view = ViewOf(state, NodeId(n));
      entry.version = version;
      entry.feasible = Feasible(view, shape) && (gate == nullptr || (*gate)(NodeId(n)));
      if (entry.feasible && policy_ != SharePolicy::kRandom) entry.score = score(view, n);
    }
    if (!entry.feasible) continue;
    feasible_scratch_.push_back(n);
    score_scratch_.push_back(entry.score.score);
    if (held != nullptr) node_scores_.push_back(entry.score);
  }
  if (feasible_scratch_.empty()) return std::nullopt;

  size_t chosen = 0;
  if (policy_ == SharePolicy::kRandom) {
    chosen = static_cast<size_t>(rng_.Intn(static_cast<int64_t>(feasible_scratch_.size())));
  } else {
    if (policy_ == SharePolicy::kBestFit) {
      // kube's NormalizeScore (plugin/plugin_utils.go): integer min–max scaling to [0, 100].
      const auto [lo, hi] = std::minmax_element(score_scratch_.begin(), score_scratch_.end());
      const int64_t lowest = *lo, range = *hi - *lo;
      for (int64_t& s : score_scratch_) s = range == 0 ? 0 : (s - lowest) * 100 / range;
    }
    // The artifact's selectHost: the highest score; ties to the node whose name sorts first,
    // and names carry a random permutation prefix, so ties go by a random fixed rank.
    for (size_t i = 1; i < score_scratch_.size(); ++i) {
      if (score_scratch_[i] > score_scratch_[chosen] ||
          (score_scratch_[i] == score_scratch_[chosen] &&
           node_rank_[feasible_scratch_[i]] < node_rank_[feasible_scratch_[chosen]])) {
        chosen = i;
      }
    }
  }

  const NodeId node(feasible_scratch_[chosen]);
  const NodeView view = held != nullptr && Holds(*held, node.value())
                            ? ViewAvoiding(state, node, *held)
                            : ViewOf(state, node);
  int32_t gpu = -1;
  if (shape.shares_a_gpu()) {
    if (policy_ == SharePolicy::kRandom) {
      int64_t fitting = 0;
      for (uint32_t g = 0; g < view.gpu_count; ++g) {
        if (view.gpu_left[g] >= shape.milli_per_gpu && rng_.Intn(++fitting) == 0) {
          gpu = static_cast<int32_t>(g);
        }
      }
    } else if (policy_ == SharePolicy::kFgd || policy_ == SharePolicy::kHeadroom) {
      gpu = held != nullptr ? node_scores_[chosen].gpu : cached[node.value()].score.gpu;
    } else {
      gpu = TightestGpu(view, shape);
    }
  }
  return Allocation(view, node, shape, gpu, memory_mib);
}

void SharePlacer::Track(const TaskAllocation& task, int sign) {
  if (task.devices.empty()) return;
  PodShape shape;
  shape.gpus = static_cast<uint32_t>(task.devices.size());
  shape.milli_per_gpu = task.milli_per_device;
  NodeKinds& kinds = node_kinds_[task.node.value()];
  uint32_t& count = kinds.count_by_kind[KindOf(shape)];
  if (sign > 0) {
    if (count++ == 0) ++kinds.distinct;
  } else {
    HR_CHECK(count > 0);
    if (--count == 0) --kinds.distinct;
  }
}

std::optional<TaskAllocation> SharePlacer::Place(ClusterState& state, const PodShape& shape,
                                                 int64_t memory_mib) {
  auto task = Choose(state, shape, memory_mib, nullptr, nullptr);
  if (task) {
    state.Allocate(*task);
    Track(*task, +1);
  }
  return task;
}

}  // namespace headroom::engine
