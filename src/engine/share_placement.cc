#include "engine/share_placement.h"

#include <utility>

#include "base/check.h"

namespace headroom::engine {

bool SharePlaceable(const model::Cluster& cluster) {
  for (const model::Node& node : cluster.nodes()) {
    if (node.device_count > kMaxShareGpus) return false;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      if (cluster.devices()[d].device_class != cluster.devices()[node.first_device].device_class) {
        return false;
      }
    }
  }
  return true;
}

std::vector<uint8_t> AcceptedModels(const model::Cluster& cluster,
                                    const model::Selector& selector) {
  std::vector<uint8_t> accepts;
  for (const model::DeviceClass& c : cluster.device_classes()) {
    accepts.push_back(selector.Matches(c.attributes) ? 1 : 0);
  }
  return accepts;
}

PodShape PodShapeOf(const model::TaskShape& task, uint32_t type) {
  PodShape shape;
  shape.cpu_milli = task.cpu_milli;
  shape.gpus = task.devices;
  shape.milli_per_gpu = task.devices == 0 ? 0 : task.milli_per_device;
  shape.type = type;
  return shape;
}

std::unique_ptr<SharePlacement> SharePlacement::Make(const model::Cluster& cluster,
                                                     const SharePlacementConfig& config,
                                                     std::optional<ShareSetup> setup) {
  if (config.scorer.empty()) return nullptr;
  auto policy = SharePolicyByName(config.scorer);
  HR_CHECK(policy.has_value());
  if (!SharePlaceable(cluster)) return nullptr;
  const bool learning = !setup.has_value();
  if (learning) {
    // Type 0 accepts every model; the others come with the selectors the jobs name.
    ShapeTypes types;
    types.accepts.emplace_back(cluster.device_classes().size(), 1);
    setup.emplace(ShareSetup{{}, std::move(types), {}, GoRand(1)});
  }
  return std::unique_ptr<SharePlacement>(
      new SharePlacement(cluster, config, *policy, std::move(*setup), learning));
}

SharePlacement::SharePlacement(const model::Cluster& cluster, const SharePlacementConfig& config,
                               SharePolicy policy, ShareSetup setup, bool learning)
    : cluster_(cluster),
      config_(config),
      learning_(learning),
      types_(setup.types),
      type_by_selector_(std::move(setup.type_by_selector)),
      placer_(cluster, policy, std::move(setup.typical), std::move(setup.types),
              std::move(setup.rng)) {}

bool SharePlacement::Takes(const model::Job& job) const {
  if (job.task_count != 1 || job.task.devices > kMaxShareGpus) return false;
  return config_.every_single_task || job.task.fractional();
}

uint32_t SharePlacement::TypeOf(const model::Selector& selector) {
  if (selector.MatchesAll()) return 0;
  auto [it, inserted] =
      type_by_selector_.try_emplace(selector.text(), static_cast<uint32_t>(types_.accepts.size()));
  if (inserted) {
    // Only while learning: a given setup names every selector of its workload.
    HR_CHECK(learning_);
    types_.accepts.push_back(AcceptedModels(cluster_, selector));
  }
  return it->second;
}

PodShape SharePlacement::ShapeOf(const model::Job& job) {
  return PodShapeOf(job.task, TypeOf(job.task.selector));
}

void SharePlacement::Submitted(const model::Job& job) {
  if (!learning_) return;
  const size_t types_before = types_.accepts.size();
  const PodShape shape = ShapeOf(job);
  ++seen_[{shape.cpu_milli, shape.milli_per_gpu, shape.gpus, shape.type}];
  ++seen_total_;
  // Relearnt here, at fixed counts of jobs, not when placing: jobs that are never tried (a shape
  // known not to fit) do not move the moments the workload changes.
  if (types_.accepts.size() == types_before && seen_total_ < 2 * seen_at_relearn_) return;
  std::vector<PodShape> workload;
  workload.reserve(seen_total_);
  for (const auto& [key, count] : seen_) {
    const auto& [cpu, milli, gpus, type] = key;
    workload.insert(workload.end(), count, PodShape{cpu, milli, gpus, type});
  }
  placer_.SetWorkload(TypicalShapes(workload, config_.typical_coverage), types_);
  seen_at_relearn_ = seen_total_;
}

std::optional<TaskAllocation> SharePlacement::Place(const ClusterState& state,
                                                    const model::Job& job,
                                                    const SharePlacer::NodeGate& gate,
                                                    const ReservedCapacity* avoid) {
  return placer_.Choose(state, ShapeOf(job), job.task.memory_mib, &gate, avoid);
}

}  // namespace headroom::engine
