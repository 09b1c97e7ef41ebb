#include "engine/request.h"

#include "base/check.h"

namespace headroom::engine {

void SpreadCounts::Add(uint32_t group, DomainId domain, int delta) {
  uint32_t& tasks = tasks_[Key(group, domain)];
  HR_CHECK(delta >= 0 || tasks >= static_cast<uint32_t>(-delta));
  tasks = static_cast<uint32_t>(static_cast<int64_t>(tasks) + delta);
  if (tasks == 0) tasks_.erase(Key(group, domain));
}

void ReservedCapacity::Resize(size_t nodes, size_t devices) {
  device_reserved.assign(devices, 0);
  node_devices.assign(nodes, 0);
  node_cpu_milli.assign(nodes, 0);
  node_memory_mib.assign(nodes, 0);
  touched_nodes.clear();
  touched_devices.clear();
}

void ReservedCapacity::Clear() {
  for (uint32_t node : touched_nodes) {
    node_devices[node] = 0;
    node_cpu_milli[node] = 0;
    node_memory_mib[node] = 0;
  }
  for (uint32_t device : touched_devices) device_reserved[device] = 0;
  touched_nodes.clear();
  touched_devices.clear();
}

void ReservedCapacity::Reserve(NodeId node, const std::vector<DeviceId>& devices, int64_t cpu_milli,
                               int64_t memory_mib) {
  const uint32_t n = node.value();
  if (node_devices[n] == 0 && node_cpu_milli[n] == 0 && node_memory_mib[n] == 0) {
    touched_nodes.push_back(n);
  }
  for (DeviceId device : devices) {
    if (device_reserved[device.value()] == 0) {
      device_reserved[device.value()] = 1;
      touched_devices.push_back(device.value());
      ++node_devices[n];
    }
  }
  node_cpu_milli[n] += cpu_milli;
  node_memory_mib[n] += memory_mib;
}

}  // namespace headroom::engine
