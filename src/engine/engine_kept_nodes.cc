// The node set a fault's requeue keeps (recovery.keep_nodes): Slurm 25.11's expedited requeue
// keeps "the previously allocated set of nodes" of a job a node failure ended from launching
// other work until the job starts again (slurm.schedmd.com/news.html), so that the restart needs
// only replacements for the nodes that failed. The engine withdraws the devices the job held on
// its other nodes (ClusterState rule 5: free milli held back) and shows them to that job alone
// while it looks for room (PlaceAt); its start, cancellation, end or hold gives them back. A
// health withdrawal of a kept device takes it out of the set: health decides that device now.
#include <algorithm>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

void Engine::KeepNodes(JobId id, NodeId faulted) {
  JobRecord& r = record(id);
  HR_CHECK(r.state == JobState::kRunning && r.kept_devices.empty());
  for (const TaskAllocation& task : r.tasks) {
    if (task.node == faulted) continue;
    for (DeviceId device : task.devices) {
      // A withdrawn device is health's; one shared with other work is not the job's to keep.
      if (state_.withdrawn(device) || kept_by_device_.count(device.value()) != 0) continue;
      r.kept_devices.push_back(device);
    }
  }
  std::sort(r.kept_devices.begin(), r.kept_devices.end());
  r.kept_devices.erase(std::unique(r.kept_devices.begin(), r.kept_devices.end()),
                       r.kept_devices.end());
  for (DeviceId device : r.kept_devices) kept_by_device_.emplace(device.value(), id.value());
}

void Engine::WithdrawKept(const JobRecord& r) {
  for (DeviceId device : r.kept_devices) state_.SetWithdrawn(device, true);
}

void Engine::ReturnKept(JobRecord& r) {
  if (r.kept_devices.empty()) return;
  for (DeviceId device : r.kept_devices) {
    state_.SetWithdrawn(device, false);
    kept_by_device_.erase(device.value());
  }
  r.kept_devices.clear();
  ++release_epoch_;
  reservation_stale_ = true;
  dirty_ = true;
}

void Engine::ForgetKept(DeviceId device) {
  auto it = kept_by_device_.find(device.value());
  if (it == kept_by_device_.end()) return;
  std::vector<DeviceId>& kept = jobs_[it->second].kept_devices;
  kept.erase(std::find(kept.begin(), kept.end(), device));
  kept_by_device_.erase(it);
}

}  // namespace headroom::engine
