#include "control/job_table.h"

#include "base/check.h"

namespace headroom::control {

void JobTable::Put(JobRecord job) {
  auto [it, inserted] = jobs_.try_emplace(job.id);
  if (!inserted) Count(it->second, -1);
  it->second = std::move(job);
  Count(it->second, +1);
}

void JobTable::Erase(uint64_t id) {
  auto it = jobs_.find(id);
  if (it == jobs_.end()) return;
  Count(it->second, -1);
  jobs_.erase(it);
}

const std::set<uint64_t>& JobTable::RunningOn(const std::string& node) const {
  static const std::set<uint64_t> kNone;
  auto it = running_by_node_.find(node);
  return it == running_by_node_.end() ? kNone : it->second;
}

uint64_t JobTable::PendingOf(const std::string& tenant) const {
  auto it = pending_by_tenant_.find(tenant);
  return it == pending_by_tenant_.end() ? 0 : it->second;
}

void JobTable::Count(const JobRecord& job, int64_t delta) {
  uint64_t& in_state = count_by_state_[static_cast<size_t>(job.state)];
  HR_CHECK(delta > 0 || in_state > 0);
  in_state += static_cast<uint64_t>(delta);
  if (job.state == JobState::kRunning) {
    if (delta > 0) {
      running_ids_.insert(job.id);
      for (const TaskPlacement& task : job.placement) running_by_node_[task.node].insert(job.id);
    } else {
      running_ids_.erase(job.id);
      for (const TaskPlacement& task : job.placement) {
        auto on_node = running_by_node_.find(task.node);
        if (on_node == running_by_node_.end()) continue;  // Two ranks on one node.
        on_node->second.erase(job.id);
        if (on_node->second.empty()) running_by_node_.erase(on_node);
      }
    }
  }
  if (job.state != JobState::kPending) return;
  if (delta > 0) {
    ++pending_by_tenant_[job.spec.tenant];
    return;
  }
  auto it = pending_by_tenant_.find(job.spec.tenant);
  HR_CHECK(it != pending_by_tenant_.end() && it->second > 0);
  if (--it->second == 0) pending_by_tenant_.erase(it);
}

}  // namespace headroom::control
