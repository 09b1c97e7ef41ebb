// Engine::CheckInvariants: the books agree with themselves — every device's milli held by
// running jobs plus its free (or, withdrawn, held) milli is one device, gangs hold all their tasks,
// every pending job is queued once and every running one is in the end-time index, the spread
// groups count the tasks running in each rack, and a job's queues count the devices it holds (of
// its device model), the devices kept for a job a fault requeued are withdrawn for it alone, and
// hot spares are idle nodes withdrawn whole, and the facility ledger's loads are the running
// tasks' draw.
// Tests and the simulator's checked runs call it after steps; "" when all hold.
#include "engine/engine.h"

#include <algorithm>

#include <fmt/format.h>

#include "engine/engine_records.h"

namespace headroom::engine {

std::string Engine::CheckInvariants() const {
  if (std::string problem = state_.CheckInvariants(); !problem.empty()) return problem;
  std::vector<uint32_t> device_milli(cluster_.devices().size(), 0);
  size_t pending = 0;
  size_t running = 0;
  SpreadCounts spread;
  for (size_t i = 0; i < jobs_.size(); ++i) {
    const JobRecord& r = jobs_[i];
    if (r.state == JobState::kPending) ++pending;
    // Kept devices belong to a pending job, are withdrawn and are indexed back to it.
    if (!r.kept_devices.empty() && r.state != JobState::kPending) {
      return fmt::format("job {}: devices kept for it while it is not pending", i);
    }
    for (DeviceId device : r.kept_devices) {
      auto kept = kept_by_device_.find(device.value());
      if (!state_.withdrawn(device) || kept == kept_by_device_.end() || kept->second != i) {
        return fmt::format("job {}: kept device {} is not withdrawn for it", i, device.value());
      }
    }
    if (r.state != JobState::kRunning) continue;
    ++running;
    if (r.spread_group != 0) {
      for (const TaskAllocation& task : r.tasks) {
        spread.Add(r.spread_group, cluster_.node(task.node).domain, 1);
      }
    }
    if (r.tasks.size() != r.job.task_count) {
      return fmt::format("job {}: {} tasks allocated, gang has {}", i, r.tasks.size(),
                         r.job.task_count);
    }
    for (const TaskAllocation& task : r.tasks) {
      for (DeviceId device : task.devices) {
        device_milli[device.value()] += task.milli_per_device;
        // On a device-model option, its devices are all of that model.
        if (r.model_slot < kQuotaResources &&
            quotas_.DeviceModelSlot(
                cluster_.device_class(cluster_.device(device).device_class).model) !=
                r.model_slot) {
          return fmt::format("job {}: device {} is not of the device model it counts against", i,
                             device.value());
        }
      }
    }
  }
  for (size_t d = 0; d < device_milli.size(); ++d) {
    const DeviceId device(static_cast<uint32_t>(d));
    if (device_milli[d] + state_.free_milli(device) + state_.held_milli(device) !=
        model::kMilliPerDevice) {
      return fmt::format("device {}: running jobs hold {} milli but {} is free and {} held", d,
                         device_milli[d], state_.free_milli(device), state_.held_milli(device));
    }
  }
  if (!(spread == spread_)) return "the spread groups' racks disagree with the running tasks";
  // The facility ledger is the idle floor plus every running task's draw.
  FacilityLedger ledger(cluster_);
  for (const JobRecord& r : jobs_) {
    if (r.state != JobState::kRunning) continue;
    for (const TaskAllocation& task : r.tasks) ledger.Apply(task, cluster_, +1);
  }
  for (uint32_t element = 0; element < ledger.size(); ++element) {
    const FacilityLedger& books = state_.facility();
    if (ledger.load_mw(element) != books.load_mw(element) ||
        ledger.nominal_mw(element) != books.nominal_mw(element)) {
      return fmt::format("facility element '{}': its load disagrees with the running tasks",
                         books.name(element));
    }
  }
  // A hot spare is a node nothing runs on, all its devices withdrawn and held back in full, and
  // no spare domain holds more than the policy keeps.
  size_t spares = 0;
  std::vector<uint32_t> spares_in_domain(spares_in_domain_.size(), 0);
  for (const model::Node& node : cluster_.nodes()) {
    if (!spare(node.id)) continue;
    ++spares;
    ++spares_in_domain[SpareDomainIndex(node.id)];
    bool idle = !state_.drained(node.id) && state_.free_cpu_milli(node.id) == node.cpu_milli &&
                state_.free_memory_mib(node.id) == node.memory_mib;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      idle = idle && state_.withdrawn(DeviceId(d)) &&
             state_.held_milli(DeviceId(d)) == model::kMilliPerDevice;
    }
    if (!idle) return fmt::format("hot spare {} is not idle and withdrawn", node.name);
  }
  if (spares != spare_count_ || spares_in_domain != spares_in_domain_ ||
      std::any_of(spares_in_domain.begin(), spares_in_domain.end(),
                  [&](uint32_t n) { return n > policy_.recovery.spare_nodes; })) {
    return "the hot spares' counts disagree with the nodes kept";
  }
  if (pending != queue_.size() + arrivals_.size() + held_.size()) {
    return fmt::format("{} pending jobs but {} queued and {} held", pending,
                       queue_.size() + arrivals_.size(), held_.size());
  }
  for (const JobId id : held_) {
    if (jobs_[id.value()].job.hold_reason.empty()) {
      return fmt::format("job {} held for no reason", id.value());
    }
  }
  if (running != running_by_end_.size()) {
    return fmt::format("{} running jobs but {} in the end-time index", running,
                       running_by_end_.size());
  }
  size_t by_queue = 0;
  for (const auto& jobs : running_by_queue_) {
    by_queue += jobs.size();
    for (uint32_t slot = 0; slot < jobs.size(); ++slot) {
      const JobRecord& r = jobs_[jobs[slot].second];
      if (r.state != JobState::kRunning || r.running_slot != slot ||
          r.job.priority != jobs[slot].first) {
        return fmt::format("job {}: its place in the running index is wrong", jobs[slot].second);
      }
    }
  }
  if (running != by_queue) {
    return fmt::format("{} running jobs but {} in the index by queue", running, by_queue);
  }
  if (!quotas_.empty()) {
    if (std::string problem = quotas_.CheckBooks(); !problem.empty()) return problem;
    std::vector<QuotaAmounts> leaf_usage(quotas_.size(), QuotaAmounts{});
    for (const JobRecord& r : jobs_) {
      if (r.state != JobState::kRunning) continue;
      const QuotaAmounts demand = DemandOf(r);
      for (size_t k = 0; k < kQuotaResources; ++k) leaf_usage[r.quota_queue][k] += demand[k];
    }
    for (uint32_t q = 0; q < quotas_.size(); ++q) {
      if (quotas_.is_leaf(q) && quotas_.usage(q) != leaf_usage[q]) {
        return fmt::format("queue '{}': its books differ from its running jobs", quotas_.name(q));
      }
    }
  }
  return "";
}

}  // namespace headroom::engine
