#include "engine/scorer.h"

#include <algorithm>
#include <array>

namespace headroom::engine {
namespace {

struct ScorerName {
  std::string_view name;
  ScorerKind kind;
};

constexpr std::array<ScorerName, 6> kScorers = {{
    {"best_fit", ScorerKind::kBestFit},
    {"least_allocated", ScorerKind::kLeastAllocated},
    {"most_allocated", ScorerKind::kMostAllocated},
    {"first_fit", ScorerKind::kFirstFit},
    {"keep_whole_nodes", ScorerKind::kKeepWholeNodes},
    {"domain_pack", ScorerKind::kDomainPack},
}};

uint32_t MatchingWholeFree(const ClusterState& state, NodeId node, const ClassMask& mask) {
  uint32_t free = 0;
  for (DeviceClassId device_class : mask.classes) free += state.whole_free(node, device_class);
  return free;
}

// Mean over the resources the node has of (free after placement ÷ capacity).
double FreeFractionAfter(const ClusterState& state, NodeId node_id, const PlacementRequest& request,
                         uint32_t tasks) {
  const model::Node& node = state.cluster().node(node_id);
  const model::TaskShape& shape = *request.shape;
  double sum = 0;
  int resources = 0;
  if (node.cpu_milli > 0) {
    sum += static_cast<double>(state.free_cpu_milli(node_id) - tasks * shape.cpu_milli) /
           static_cast<double>(node.cpu_milli);
    ++resources;
  }
  if (node.memory_mib > 0) {
    sum += static_cast<double>(state.free_memory_mib(node_id) - tasks * shape.memory_mib) /
           static_cast<double>(node.memory_mib);
    ++resources;
  }
  if (node.device_count > 0) {
    uint64_t free_milli = 0;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      free_milli += state.free_milli(DeviceId(d));
    }
    const uint64_t used = uint64_t{tasks} * shape.devices * shape.milli_per_device;
    sum +=
        static_cast<double>(free_milli - std::min(free_milli, used)) / (1000.0 * node.device_count);
    ++resources;
  }
  return resources == 0 ? 0 : sum / resources;
}

double Score(ScorerKind kind, const ClusterState& state, NodeId node_id,
             const PlacementRequest& request, uint32_t tasks) {
  const model::Cluster& cluster = state.cluster();
  const model::Node& node = cluster.node(node_id);
  switch (kind) {
    case ScorerKind::kBestFit: {
      if (node.device_count == 0 || request.shape->devices == 0) {
        // CPU-only: best fit on CPU.
        if (node.cpu_milli == 0) return 0;
        const int64_t left = state.free_cpu_milli(node_id) - tasks * request.shape->cpu_milli;
        return 1.0 - static_cast<double>(left) / static_cast<double>(node.cpu_milli);
      }
      if (request.shape->fractional())
        return 1.0 - FreeFractionAfter(state, node_id, request, tasks);
      const uint32_t free = MatchingWholeFree(state, node_id, *request.classes);
      const uint32_t used = tasks * request.shape->devices;
      const uint32_t left = free > used ? free - used : 0;
      return 1.0 - static_cast<double>(left) / node.device_count;
    }
    case ScorerKind::kLeastAllocated:
      return FreeFractionAfter(state, node_id, request, tasks);
    case ScorerKind::kMostAllocated:
      return 1.0 - FreeFractionAfter(state, node_id, request, tasks);
    case ScorerKind::kFirstFit:
      return 1.0 - static_cast<double>(node_id.value()) /
                       static_cast<double>(std::max<size_t>(cluster.nodes().size(), 1));
    case ScorerKind::kKeepWholeNodes: {
      if (node.device_count == 0 || request.shape->devices == 0) return 1;
      uint32_t whole = 0;
      for (uint32_t c = 0; c < state.class_count(); ++c) {
        whole += state.whole_free(node_id, DeviceClassId(c));
      }
      const bool untouched = whole == node.device_count;
      const bool fills = uint64_t{tasks} * request.shape->devices >= node.device_count &&
                         !request.shape->fractional();
      return untouched && !fills ? 0 : 1;
    }
    case ScorerKind::kDomainPack: {
      const uint64_t capacity = state.domain_device_capacity(node.domain);
      uint64_t free = 0;
      for (uint32_t c = 0; c < state.class_count(); ++c) {
        free += state.domain_free_milli(node.domain, DeviceClassId(c));
      }
      if (capacity == 0) return 0;
      return 1.0 - static_cast<double>(free) / (1000.0 * static_cast<double>(capacity));
    }
  }
  return 0;
}

}  // namespace

Result<ScorerKind> ScorerByName(std::string_view name) {
  for (const ScorerName& scorer : kScorers) {
    if (scorer.name == name) return scorer.kind;
  }
  std::string known;
  for (const ScorerName& scorer : kScorers)
    known += (known.empty() ? "" : ", ") + std::string(scorer.name);
  return MakeError(ErrorCode::kInvalidArgument, "scorer '{}': expected one of {}", name, known);
}

std::vector<std::string_view> ScorerNames() {
  std::vector<std::string_view> names;
  for (const ScorerName& scorer : kScorers) names.push_back(scorer.name);
  return names;
}

double ScoreNode(const ClusterState& state, NodeId node, const PlacementRequest& request,
                 uint32_t tasks, const std::vector<WeightedScorer>& scorers) {
  double total = 0;
  for (const WeightedScorer& scorer : scorers) {
    total += scorer.weight * Score(scorer.kind, state, node, request, tasks);
  }
  return total;
}

}  // namespace headroom::engine
