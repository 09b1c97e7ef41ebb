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

}  // namespace headroom::engine
