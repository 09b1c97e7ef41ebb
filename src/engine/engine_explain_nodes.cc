// Engine::TallyNodes: the "of 1,250 nodes: 200 drained, 810 with fewer than 8 free matching
// devices, ..." part of why a job waits (pending_reason.h, NodeTally). One pass over the nodes,
// each counted under the first constraint it fails, in the order the placer checks them (hot
// spares first, for a job that may not take them; a node
// short of free devices where devices withheld from the job, degraded or kept for another job's
// restart, would make room is counted under that); the
// nodes that could take a task also sum how many of the gang's tasks they hold, per domain of
// the job's required level (the whole cluster when it states none). O(nodes).
#include <algorithm>

#include <fmt/format.h>

#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

void Engine::TallyNodes(const JobRecord& r, PendingStatus& status) const {
  const model::TaskShape& shape = r.job.task;
  const PlacementRequest gang = RequestOf(r);
  model::TaskShape devices_only = shape;
  devices_only.cpu_milli = 0;
  devices_only.memory_mib = 0;
  const PlacementRequest one_task_devices{&devices_only, 1, gang.classes};
  const auto& filters = placer_.options().filters;
  std::vector<uint32_t> rejected(filters.size(), 0);
  uint32_t short_devices = 0;
  // Of those, the nodes where devices withheld from this job would have made room: degraded
  // ones it does not accept, or ones kept for another job's restart (engine_kept_nodes.cc).
  uint32_t short_degraded = 0;
  uint32_t short_kept = 0;
  const auto short_counter = [&](NodeId id) -> uint32_t& {
    if (!gang.whole_devices() || (degraded_.empty() && kept_by_device_.empty())) {
      return short_devices;
    }
    const model::Node& node = cluster_.node(id);
    uint32_t free = 0;
    uint32_t degraded = 0;
    uint32_t kept = 0;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      const DeviceId device(d);
      if (gang.classes->matches[cluster_.device(device).device_class.value()] == 0) continue;
      if (state_.free_milli(device) == model::kMilliPerDevice) ++free;
      if (state_.held_milli(device) != model::kMilliPerDevice) continue;
      if (degraded_.count(d) != 0) ++degraded;
      auto it = kept_by_device_.find(d);
      if (it != kept_by_device_.end() && &jobs_[it->second] != &r) ++kept;
    }
    if (r.job.accepts_degraded) {
      free += degraded;
    } else if (free + degraded >= shape.devices) {
      return short_degraded;
    }
    return free + kept >= shape.devices ? short_kept : short_devices;
  };
  uint32_t spares = 0;  // Hot spares, when the job may not take them.
  uint32_t short_cpu = 0;
  uint32_t short_memory = 0;
  uint32_t able = 0;
  const uint32_t block_level = r.required_level == kNoLevel ? 0 : r.required_level;
  DomainId block;
  uint64_t block_tasks = 0;
  uint64_t best_block_tasks = 0;
  for (const model::Node& node : cluster_.nodes()) {
    const DomainId domain = cluster_.AncestorAt(node.id, block_level);
    if (domain != block) block_tasks = 0;
    block = domain;
    if (spare(node.id) && !SeesSpares(r)) {
      ++spares;
      continue;
    }
    const auto rejecting = std::find_if(filters.begin(), filters.end(), [&](const auto& filter) {
      return !filter->Admits(state_, node.id, gang);
    });
    if (rejecting != filters.end()) {
      ++rejected[static_cast<size_t>(rejecting - filters.begin())];
    } else if (shape.devices > 0 &&
               Placer::FreeCapacity(state_, node.id, one_task_devices, nullptr) == 0) {
      ++short_counter(node.id);
    } else if (shape.cpu_milli > state_.free_cpu_milli(node.id)) {
      ++short_cpu;
    } else if (shape.memory_mib > state_.free_memory_mib(node.id)) {
      ++short_memory;
    } else {
      ++able;
      block_tasks += Placer::FreeCapacity(state_, node.id, gang, nullptr);
      best_block_tasks = std::max(best_block_tasks, block_tasks);
    }
  }
  if (spares > 0) status.nodes.push_back({"hot spares kept for jobs a fault requeues", spares});
  for (size_t f = 0; f < filters.size(); ++f) {
    if (rejected[f] > 0) status.nodes.push_back({std::string(filters[f]->rejects()), rejected[f]});
  }
  if (short_devices > 0) {
    status.nodes.push_back(
        {shape.fractional()
             ? fmt::format("without {:g} of a matching device free", shape.milli_per_device / 1e3)
             : fmt::format("with fewer than {} free matching device{}", shape.devices,
                           shape.devices == 1 ? "" : "s"),
         short_devices});
  }
  if (short_degraded > 0) {
    status.nodes.push_back(
        {"with room only on degraded devices, which the job does not accept", short_degraded});
  }
  if (short_kept > 0) {
    status.nodes.push_back(
        {"with room only on devices kept for an interrupted job's restart", short_kept});
  }
  if (short_cpu > 0) {
    status.nodes.push_back(
        {fmt::format("with less than {} mCPU free", shape.cpu_milli), short_cpu});
  }
  if (short_memory > 0) {
    status.nodes.push_back(
        {fmt::format("with less than {} MiB of memory free", shape.memory_mib), short_memory});
  }
  if (able > 0) status.nodes.push_back({"can take a task", able});
  status.tasks_placeable = std::min<uint64_t>(best_block_tasks, r.job.task_count);
}

}  // namespace headroom::engine
