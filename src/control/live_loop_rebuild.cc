// LiveLoop::Rebuild: a new engine from the daemon's state when the cluster changed or a commit
// failed — running jobs restored on their devices (placements translated between the daemon's
// node names and device indices and the engine's ids), pending ones submitted again (live_loop.h).
#include "control/live_loop.h"
#include "control/logging.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "control/engine_log.h"

namespace headroom::control {

std::optional<std::vector<engine::TaskAllocation>> LiveLoop::ToAllocations(
    const std::vector<TaskPlacement>& placement, std::vector<uint32_t>& used_milli,
    std::vector<int64_t>& used_cpu, std::vector<int64_t>& used_memory) const {
  std::vector<engine::TaskAllocation> tasks;
  std::vector<uint32_t> milli = used_milli;
  std::vector<int64_t> cpu = used_cpu;
  std::vector<int64_t> memory = used_memory;
  for (const TaskPlacement& task : placement) {
    const model::Node* node = cluster_->FindNode(task.node);
    if (node == nullptr || task.milli_per_device == 0 || task.milli_per_device > 1000) {
      return std::nullopt;
    }
    engine::TaskAllocation out{.node = node->id,
                               .milli_per_device = task.milli_per_device,
                               .cpu_milli = task.cpu_milli,
                               .memory_mib = task.memory_mib,
                               .power_cap_w = task.power_cap_w};
    cpu[node->id.value()] += task.cpu_milli;
    memory[node->id.value()] += task.memory_mib;
    if (cpu[node->id.value()] > node->cpu_milli || memory[node->id.value()] > node->memory_mib) {
      return std::nullopt;
    }
    for (uint32_t index : task.device_indices) {
      if (index >= node->device_count) return std::nullopt;
      const uint32_t device = node->first_device + index;
      milli[device] += task.milli_per_device;
      if (milli[device] > 1000) return std::nullopt;
      out.devices.push_back(DeviceId(device));
    }
    tasks.push_back(std::move(out));
  }
  used_milli = std::move(milli);
  used_cpu = std::move(cpu);
  used_memory = std::move(memory);
  return tasks;
}

void LiveLoop::Rebuild(TimeUs now) {
  rebuild_ = false;
  ClearEvents();
  // Attained service (las) changes inside the engine, as jobs are preempted and promoted, and
  // so does whether a job a fault requeued still goes ahead: the old engine's go to the new one.
  std::unordered_map<uint64_t, int64_t> attained_device_us;
  std::unordered_set<uint64_t> expedited;
  if (engine_ != nullptr) {
    carried_ = engine_->Carried(now);
    for (const auto& [daemon_id, engine_id] : engine_of_daemon_) {
      attained_device_us[daemon_id] = engine_->attained_device_us(engine_id);
      if (engine_->requeued_by_fault(engine_id)) expedited.insert(daemon_id);
    }
  }
  engine_.reset();
  daemon_of_engine_.clear();
  engine_of_daemon_.clear();
  cluster_ = backend_.CurrentCluster();
  auto topology = std::make_shared<const Topology>(MakeTopology(cluster_));
  std::vector<JobRecord> pending;
  std::vector<JobRecord> running;
  {
    std::lock_guard lock(state_.mu);
    state_.topology = topology;
    // State's nodes are never erased, so their addresses hold until the next rebuild.
    status_of_node_.clear();
    if (cluster_ != nullptr) {
      for (const model::Node& node : cluster_->nodes()) {
        auto it = state_.nodes.find(node.name);
        status_of_node_.push_back(it == state_.nodes.end() ? nullptr : &it->second);
      }
    }
    for (const auto& [id, job] : state_.jobs) {
      if (job.state != JobState::kPending && job.state != JobState::kRunning) continue;
      std::vector<JobRecord>& active = job.state == JobState::kPending ? pending : running;
      active.push_back(job);
      if (auto it = attained_device_us.find(id); it != attained_device_us.end()) {
        active.back().attained_device_us = it->second;
      }
      active.back().expedited = expedited.count(id) != 0;
    }
  }
  if (cluster_ == nullptr || cluster_->nodes().empty()) {
    cluster_ = nullptr;
    return;
  }
  engine_ = std::make_unique<engine::Engine>(*cluster_, options_.policy, carried_);
  // Records before this one ran on another engine (or on none): idle steps close with it.
  CloseIdleRecord(now);
  engine_log_.push_back(EngineLogAppend{
      now, EngineLogText(BuildRecord(*cluster_, options_.policy_text, carried_)), true});
  engine_log_.push_back(EngineLogTrim{now - options_.engine_log_keep_us});
  next_snapshot_us_ = now + options_.engine_snapshot_interval_us;
  events_since_snapshot_ = 0;
  drained_in_engine_.assign(cluster_->nodes().size(), 0);
  withdrawn_in_engine_.assign(cluster_->devices().size(), 0);
  synced_gates_version_.reset();
  std::vector<uint32_t> used_milli(cluster_->devices().size(), 0);
  std::vector<int64_t> used_cpu(cluster_->nodes().size(), 0);
  std::vector<int64_t> used_memory(cluster_->nodes().size(), 0);
  std::vector<EndedJob> misfits;
  for (const JobRecord& job : running) {
    auto tasks = ToAllocations(job.placement, used_milli, used_cpu, used_memory);
    if (!tasks || !ToModelJob(job.spec, job.spec.tenant, 0).AllowsWidth(tasks->size())) {
      misfits.push_back({job.id, {}});
      continue;
    }
    backend_.OnStart(job, *tasks, *cluster_);
    const JobId id = NewEngineId(job.id);
    AddEvent(engine::JobRestored{id, EngineJobOf(job), std::move(*tasks), job.start_us,
                                 job.checkpoint_interval_us},
             RestoreEvent(job));
  }
  for (const JobRecord& job : pending) EnqueueSubmit(job);
  snapshot_events_ = events_.size();
  LogInfo("engine rebuilt: {} nodes, {} devices, {} running restored, {} pending",
          cluster_->nodes().size(), cluster_->devices().size(), running.size() - misfits.size(),
          pending.size());
  if (!misfits.empty())
    Requeue(std::move(misfits), "its placement no longer fits the cluster", now);
}

}  // namespace headroom::control
