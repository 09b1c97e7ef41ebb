#include "engine/attained_service.h"

#include <algorithm>

#include "base/time.h"

namespace headroom::engine {

uint32_t ServiceQueue(const AttainedServiceConfig& config, int64_t attained_device_us) {
  const std::vector<int64_t>& limits = config.limits_device_s;
  // Limits ascend (ValidatePolicy), so the queue is the number of limits reached.
  const auto reached = std::upper_bound(
      limits.begin(), limits.end(), attained_device_us,
      [](int64_t attained, int64_t limit_s) { return attained < limit_s * kUsPerSecond; });
  return static_cast<uint32_t>(reached - limits.begin());
}

int64_t ServiceQueueEndDeviceUs(const AttainedServiceConfig& config, uint32_t queue) {
  if (queue >= config.limits_device_s.size()) return std::numeric_limits<int64_t>::max();
  return config.limits_device_s[queue] * kUsPerSecond;
}

int64_t ServiceRank(const AttainedServiceConfig& config, int32_t priority,
                    int64_t attained_device_us) {
  return ServiceRankInQueue(config, priority, ServiceQueue(config, attained_device_us));
}

int64_t ServiceRankInQueue(const AttainedServiceConfig& config, int32_t priority, uint32_t queue) {
  if (!config.priority_first) return -int64_t{queue};
  // Queues number at most limits + 1, and limits fit in memory: no overflow in 64 bits.
  const auto queues = static_cast<int64_t>(config.limits_device_s.size()) + 1;
  return static_cast<int64_t>(priority) * queues - int64_t{queue};
}

}  // namespace headroom::engine
