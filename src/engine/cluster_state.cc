#include "engine/cluster_state.h"

#include <fmt/format.h>

#include "base/check.h"
#include "model/job.h"

namespace headroom::engine {

using model::kMilliPerDevice;

ClusterState::ClusterState(const model::Cluster& cluster)
    : cluster_(&cluster),
      class_count_(static_cast<uint32_t>(std::max<size_t>(cluster.device_classes().size(), 1))),
      facility_(cluster) {
  device_free_milli_.assign(cluster.devices().size(), kMilliPerDevice);
  device_withdrawn_.assign(cluster.devices().size(), 0);
  device_held_milli_.assign(cluster.devices().size(), 0);
  device_cap_w_.assign(cluster.devices().size(), 0);
  node_free_cpu_.resize(cluster.nodes().size());
  node_free_memory_.resize(cluster.nodes().size());
  node_drained_.assign(cluster.nodes().size(), 0);
  node_version_.assign(cluster.nodes().size(), 0);
  node_whole_free_.assign(cluster.nodes().size() * class_count_, 0);
  domain_whole_free_.assign(cluster.domains().size() * class_count_, 0);
  domain_free_milli_.assign(cluster.domains().size() * class_count_, 0);
  for (const model::Node& node : cluster.nodes()) {
    node_free_cpu_[node.id.value()] = node.cpu_milli;
    node_free_memory_[node.id.value()] = node.memory_mib;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      ++node_whole_free_[Index(node.id.value(), cluster.devices()[d].device_class.value())];
    }
    AddNodeToAggregates(node.id, +1);
  }
  node_class_devices_ = node_whole_free_;
  capacity_milli_ = uint64_t{kMilliPerDevice} * cluster.devices().size();
  domain_device_capacity_.resize(cluster.domains().size());
  for (const model::Domain& domain : cluster.domains()) {
    uint32_t devices = 0;
    for (uint32_t n = domain.node_begin; n < domain.node_end; ++n) {
      devices += cluster.nodes()[n].device_count;
    }
    domain_device_capacity_[domain.id.value()] = devices;
  }
}

void ClusterState::AddNodeToAggregates(NodeId node_id, int sign) {
  const model::Node& node = cluster_->node(node_id);
  for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
    const uint32_t device_class = cluster_->devices()[d].device_class.value();
    const uint64_t milli = device_free_milli_[d];
    const uint32_t whole = milli == kMilliPerDevice ? 1 : 0;
    for (DomainId domain = node.domain; domain.valid(); domain = cluster_->domain(domain).parent) {
      const size_t i = Index(domain.value(), device_class);
      if (sign > 0) {
        domain_whole_free_[i] += whole;
        domain_free_milli_[i] += milli;
      } else {
        domain_whole_free_[i] -= whole;
        domain_free_milli_[i] -= milli;
      }
      if (whole != 0) WholeFreeChanged(i);
    }
  }
}

void ClusterState::Apply(const TaskAllocation& task, int sign) {
  const uint32_t node = task.node.value();
  const bool counted = node_drained_[node] == 0;
  ++node_version_[node];
  node_free_cpu_[node] -= sign * task.cpu_milli;
  node_free_memory_[node] -= sign * task.memory_mib;
  HR_CHECK(node_free_cpu_[node] >= 0 && node_free_memory_[node] >= 0);
  // The domains above the node change by the sums over its devices of one class: one walk up
  // the tree per run of same-class devices (a task's devices are usually of one class), not
  // one per device.
  uint32_t run_class = UINT32_MAX;
  int run_whole_delta = 0;
  int64_t run_milli_delta = 0;
  auto flush_run = [&] {
    if (counted && run_class != UINT32_MAX) {
      AddToAncestors(task.node, run_class, run_whole_delta, run_milli_delta);
    }
  };
  const bool capped = task.milli_per_device == kMilliPerDevice;
  for (DeviceId device : task.devices) {
    const uint32_t d = device.value();
    HR_CHECK(cluster_->devices()[d].node == task.node);
    if (capped) device_cap_w_[d] = sign > 0 ? task.power_cap_w : 0;
    if (device_withdrawn_[d] != 0) {
      // Out of use: what its work takes or frees moves between the work and the held milli.
      const int held = device_held_milli_[d] - sign * static_cast<int>(task.milli_per_device);
      HR_CHECK(held >= 0 && held <= static_cast<int>(kMilliPerDevice));
      device_held_milli_[d] = static_cast<uint16_t>(held);
      continue;
    }
    const uint32_t device_class = cluster_->devices()[d].device_class.value();
    const int before = device_free_milli_[d];
    const int after = before - sign * static_cast<int>(task.milli_per_device);
    HR_CHECK(after >= 0 && after <= static_cast<int>(kMilliPerDevice));
    device_free_milli_[d] = static_cast<uint16_t>(after);
    const int whole_delta = (after == static_cast<int>(kMilliPerDevice) ? 1 : 0) -
                            (before == static_cast<int>(kMilliPerDevice) ? 1 : 0);
    node_whole_free_[Index(node, device_class)] += whole_delta;
    if (device_class != run_class) {
      flush_run();
      run_class = device_class;
      run_whole_delta = 0;
      run_milli_delta = 0;
    }
    run_whole_delta += whole_delta;
    run_milli_delta += after - before;
  }
  flush_run();
  facility_.Apply(task, *cluster_, sign);
  const uint64_t milli = uint64_t{task.milli_per_device} * task.devices.size();
  if (sign > 0) {
    allocated_milli_ += milli;
  } else {
    HR_CHECK(allocated_milli_ >= milli);
    allocated_milli_ -= milli;
  }
}

void ClusterState::Allocate(const TaskAllocation& task) {
  Apply(task, +1);
  undo_log_.push_back(UndoRecord{.kind = UndoRecord::Kind::kAllocate, .task = task, .node = {}});
}

void ClusterState::Release(const TaskAllocation& task) {
  Apply(task, -1);
  undo_log_.push_back(UndoRecord{.kind = UndoRecord::Kind::kRelease, .task = task, .node = {}});
}

void ClusterState::ApplyDrain(NodeId node, bool drained) {
  if ((node_drained_[node.value()] != 0) == drained) return;
  ++node_version_[node.value()];
  if (drained) {
    AddNodeToAggregates(node, -1);
    node_drained_[node.value()] = 1;
  } else {
    node_drained_[node.value()] = 0;
    AddNodeToAggregates(node, +1);
  }
}

void ClusterState::ApplyWithdraw(DeviceId device, bool withdrawn) {
  const uint32_t d = device.value();
  if ((device_withdrawn_[d] != 0) == withdrawn) return;
  const model::Device& spec = cluster_->devices()[d];
  const uint32_t node = spec.node.value();
  const uint32_t device_class = spec.device_class.value();
  ++node_version_[node];
  const int before = device_free_milli_[d];
  const int after = withdrawn ? 0 : device_held_milli_[d];
  device_held_milli_[d] = static_cast<uint16_t>(withdrawn ? before : 0);
  device_free_milli_[d] = static_cast<uint16_t>(after);
  device_withdrawn_[d] = withdrawn ? 1 : 0;
  const int whole_delta = (after == static_cast<int>(kMilliPerDevice) ? 1 : 0) -
                          (before == static_cast<int>(kMilliPerDevice) ? 1 : 0);
  node_whole_free_[Index(node, device_class)] += whole_delta;
  if (node_drained_[node] == 0)
    AddToAncestors(spec.node, device_class, whole_delta, after - before);
}

void ClusterState::AddToAncestors(NodeId node, uint32_t device_class, int whole_delta,
                                  int64_t milli_delta) {
  for (DomainId domain = cluster_->node(node).domain; domain.valid();
       domain = cluster_->domain(domain).parent) {
    const size_t i = Index(domain.value(), device_class);
    domain_whole_free_[i] += whole_delta;
    domain_free_milli_[i] += milli_delta;
    if (whole_delta != 0) WholeFreeChanged(i);
  }
}

void ClusterState::SetWithdrawn(DeviceId device, bool withdrawn) {
  undo_log_.push_back(UndoRecord{.kind = UndoRecord::Kind::kWithdraw,
                                 .task = {},
                                 .node = {},
                                 .previous_drained = device_withdrawn_[device.value()] != 0,
                                 .device = device});
  ApplyWithdraw(device, withdrawn);
}

void ClusterState::SetDrained(NodeId node, bool drained) {
  undo_log_.push_back(UndoRecord{.kind = UndoRecord::Kind::kDrain,
                                 .task = {},
                                 .node = node,
                                 .previous_drained = node_drained_[node.value()] != 0});
  ApplyDrain(node, drained);
}

void ClusterState::RollbackTo(Mark mark) {
  HR_CHECK(mark <= undo_log_.size());
  while (undo_log_.size() > mark) {
    UndoRecord& record = undo_log_.back();
    switch (record.kind) {
      case UndoRecord::Kind::kAllocate:
        Apply(record.task, -1);
        break;
      case UndoRecord::Kind::kRelease:
        Apply(record.task, +1);
        break;
      case UndoRecord::Kind::kDrain:
        ApplyDrain(record.node, record.previous_drained);
        break;
      case UndoRecord::Kind::kWithdraw:
        ApplyWithdraw(record.device, record.previous_drained);
        break;
    }
    undo_log_.pop_back();
  }
}

void ClusterState::Commit(Mark mark) {
  HR_CHECK(mark <= undo_log_.size());
  if (mark == 0) undo_log_.clear();
}

void ClusterState::SyncIndex() const {
  for (const size_t i : index_dirty_) {
    index_dirty_flag_[i] = 0;
    const auto domain = static_cast<uint32_t>(i / class_count_);
    const auto device_class = static_cast<uint32_t>(i % class_count_);
    LevelIndex& index =
        index_[cluster_->domain(DomainId(domain)).level * class_count_ + device_class];
    if (!index.built || indexed_whole_[i] == domain_whole_free_[i]) continue;
    index.by_whole_free.erase({indexed_whole_[i], domain});
    index.by_whole_free.emplace(domain_whole_free_[i], domain);
    indexed_whole_[i] = domain_whole_free_[i];
  }
  index_dirty_.clear();
}

void ClusterState::VisitByWholeFree(uint32_t level, DeviceClassId device_class, uint32_t min_whole,
                                    bool most_first,
                                    const std::function<bool(DomainId)>& visit) const {
  HR_CHECK(level < cluster_->domain_levels() && device_class.value() < class_count_);
  if (!indexing_) {
    indexing_ = true;
    index_.resize(size_t{cluster_->domain_levels()} * class_count_);
    indexed_whole_.assign(domain_whole_free_.size(), 0);
    index_dirty_flag_.assign(domain_whole_free_.size(), 0);
  }
  SyncIndex();
  LevelIndex& index = index_[level * class_count_ + device_class.value()];
  if (!index.built) {
    index.built = true;
    for (const DomainId domain : cluster_->domains_at_level(level)) {
      const size_t i = Index(domain.value(), device_class.value());
      indexed_whole_[i] = domain_whole_free_[i];
      index.by_whole_free.emplace(domain_whole_free_[i], domain.value());
    }
  }
  const auto& entries = index.by_whole_free;
  if (!most_first) {
    for (auto it = entries.lower_bound({min_whole, 0}); it != entries.end(); ++it) {
      if (!visit(DomainId(it->second))) return;
    }
    return;
  }
  // Most free first, but within one count by ascending id: walk the counts down, each forward.
  auto group_end = entries.end();
  while (group_end != entries.begin()) {
    const uint32_t whole = std::prev(group_end)->first;
    if (whole < min_whole) return;
    const auto group_begin = entries.lower_bound({whole, 0});
    for (auto it = group_begin; it != group_end; ++it) {
      if (!visit(DomainId(it->second))) return;
    }
    group_end = group_begin;
  }
}

std::string ClusterState::CheckInvariants() const {
  const model::Cluster& cluster = *cluster_;
  std::vector<uint32_t> whole(node_whole_free_.size(), 0);
  std::vector<uint32_t> domain_whole(domain_whole_free_.size(), 0);
  std::vector<uint64_t> domain_milli(domain_free_milli_.size(), 0);
  uint64_t free_total = 0;
  for (const model::Node& node : cluster.nodes()) {
    const uint32_t n = node.id.value();
    if (node_free_cpu_[n] < 0 || node_free_cpu_[n] > node.cpu_milli) {
      return fmt::format("node {}: free cpu {} outside [0, {}]", node.name, node_free_cpu_[n],
                         node.cpu_milli);
    }
    if (node_free_memory_[n] < 0 || node_free_memory_[n] > node.memory_mib) {
      return fmt::format("node {}: free memory {} outside [0, {}]", node.name, node_free_memory_[n],
                         node.memory_mib);
    }
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
      const uint32_t milli = device_free_milli_[d];
      if (milli > kMilliPerDevice) return fmt::format("device {}: free milli {} > 1000", d, milli);
      if (device_withdrawn_[d] == 0 ? device_held_milli_[d] != 0 : milli != 0) {
        return fmt::format("device {}: withdrawn {} but free {} and held {}", d,
                           device_withdrawn_[d] != 0, milli, device_held_milli_[d]);
      }
      free_total += milli + device_held_milli_[d];
      const uint32_t device_class = cluster.devices()[d].device_class.value();
      if (milli == kMilliPerDevice) ++whole[Index(n, device_class)];
      if (node_drained_[n] != 0) continue;
      for (DomainId domain = node.domain; domain.valid(); domain = cluster.domain(domain).parent) {
        domain_whole[Index(domain.value(), device_class)] += milli == kMilliPerDevice ? 1 : 0;
        domain_milli[Index(domain.value(), device_class)] += milli;
      }
    }
  }
  if (whole != node_whole_free_) return "per-node whole-device counts disagree with devices";
  if (domain_whole != domain_whole_free_) return "per-domain whole-device counts disagree";
  if (domain_milli != domain_free_milli_) return "per-domain free milli disagrees";
  if (capacity_milli_ - free_total != allocated_milli_) {
    return fmt::format("allocated milli {} != capacity {} - free {}", allocated_milli_,
                       capacity_milli_, free_total);
  }
  return "";
}

}  // namespace headroom::engine
