#include "sim/traces/gang_split.h"

#include "base/check.h"

namespace headroom::sim {

GangShape SplitGang(uint64_t devices, uint64_t nodes, uint32_t max_devices_per_node) {
  HR_CHECK(max_devices_per_node >= 1);
  HR_CHECK(devices <= (uint64_t{1} << 31) && nodes <= (uint64_t{1} << 31));
  if (devices == 0) {
    return GangShape{.task_count = static_cast<uint32_t>(nodes == 0 ? 1 : nodes),
                     .devices_per_task = 0};
  }
  if (nodes > 0 && devices % nodes == 0 && devices / nodes <= max_devices_per_node) {
    return GangShape{.task_count = static_cast<uint32_t>(nodes),
                     .devices_per_task = static_cast<uint32_t>(devices / nodes)};
  }
  const uint64_t tasks = (devices + max_devices_per_node - 1) / max_devices_per_node;
  const uint64_t per_task = (devices + tasks - 1) / tasks;
  return GangShape{.task_count = static_cast<uint32_t>(tasks),
                   .devices_per_task = static_cast<uint32_t>(per_task)};
}

}  // namespace headroom::sim
