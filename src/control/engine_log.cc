#include "control/engine_log.h"

#include "control/job_spec.h"
#include "control/sqlite_store.h"
#include "model/cluster_yaml_writer.h"

namespace headroom::control {

using Json = nlohmann::json;

std::vector<TaskPlacement> PlacementOn(const model::Cluster& cluster,
                                       const std::vector<engine::TaskAllocation>& tasks) {
  std::vector<TaskPlacement> placement;
  for (size_t rank = 0; rank < tasks.size(); ++rank) {
    const engine::TaskAllocation& task = tasks[rank];
    const model::Node& node = cluster.node(task.node);
    TaskPlacement out{.rank = static_cast<uint32_t>(rank),
                      .node = node.name,
                      .milli_per_device = task.milli_per_device,
                      .cpu_milli = task.cpu_milli,
                      .memory_mib = task.memory_mib};
    for (DeviceId device : task.devices) {
      out.device_indices.push_back(device.value() - node.first_device);
    }
    placement.push_back(std::move(out));
  }
  return placement;
}

std::optional<std::vector<engine::TaskAllocation>> AllocationsOn(
    const model::Cluster& cluster, const std::vector<TaskPlacement>& placement) {
  std::vector<engine::TaskAllocation> tasks;
  for (const TaskPlacement& task : placement) {
    const model::Node* node = cluster.FindNode(task.node);
    if (node == nullptr) return std::nullopt;
    engine::TaskAllocation out{.node = node->id,
                               .milli_per_device = task.milli_per_device,
                               .cpu_milli = task.cpu_milli,
                               .memory_mib = task.memory_mib};
    for (uint32_t index : task.device_indices) {
      if (index >= node->device_count) return std::nullopt;
      out.devices.push_back(DeviceId(node->first_device + index));
    }
    tasks.push_back(std::move(out));
  }
  return tasks;
}

Json BuildRecord(const model::Cluster& cluster, std::string_view policy_text) {
  return {{"build", {{"cluster", model::WriteClusterYaml(cluster)}, {"policy", policy_text}}}};
}

Json SubmitEvent(const JobRecord& job) {
  return {{"submit", job.id}, {"spec", JobSpecToJson(job.spec)}, {"submit_us", job.submit_us}};
}

Json RestoreEvent(const JobRecord& job) {
  return {{"restore", job.id},
          {"spec", JobSpecToJson(job.spec)},
          {"submit_us", job.submit_us},
          {"start_us", job.start_us},
          {"placement", PlacementToJson(job.placement)}};
}

Json FinishEvent(uint64_t job) { return {{"finish", job}}; }

Json CancelEvent(uint64_t job) { return {{"cancel", job}}; }

Json DrainEvent(std::string_view node, bool drained) {
  return {{"drain", node}, {"drained", drained}};
}

Json DecisionsJson(const engine::Decisions& decisions, const model::Cluster& cluster,
                   const std::vector<uint64_t>& daemon_of_engine) {
  Json out = Json::array();
  decisions.Visit(engine::Handlers{
      [&](const engine::MigrateJob& move) {
        out.push_back({{"move", daemon_of_engine.at(move.job.value())},
                       {"placement", PlacementToJson(PlacementOn(cluster, move.tasks))},
                       {"pause_us", move.pause_us}});
      },
      [&](const engine::StartJob& start) {
        out.push_back({{"start", daemon_of_engine.at(start.job.value())},
                       {"placement", PlacementToJson(PlacementOn(cluster, start.tasks))}});
      }});
  return out;
}

}  // namespace headroom::control
