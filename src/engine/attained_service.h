// Attained-service queues (policy_config.h AttainedServiceConfig; Tiresias's discretized
// 2D-LAS): which queue a job's attained service puts it in, and where that queue ends. Shared
// by the las order, which sorts pending jobs by queue, and the engine, which ranks running jobs
// by queue when it looks for preemption victims. Pure functions of the configuration.
#pragma once

#include <cstdint>
#include <limits>

#include "engine/policy_config.h"

namespace headroom::engine {

// The largest queue limit, device-seconds (31,700 device-years): in microseconds it still fits.
inline constexpr int64_t kMaxServiceLimitDeviceS = 1'000'000'000'000;

// 0 for the least served queue, one more for each limit at or below `attained_device_us`.
uint32_t ServiceQueue(const AttainedServiceConfig& config, int64_t attained_device_us);

// The attained service (device-µs) at which a job leaves `queue` for the next; the largest
// int64_t for the last queue, which a job never leaves.
int64_t ServiceQueueEndDeviceUs(const AttainedServiceConfig& config, uint32_t queue);

// How a job ranks by its service queue, higher first: minus its queue; with priority_first,
// its priority ahead of that (each priority step above every queue).
int64_t ServiceRank(const AttainedServiceConfig& config, int32_t priority,
                    int64_t attained_device_us);
// The same for a job known to be in service queue `queue`.
int64_t ServiceRankInQueue(const AttainedServiceConfig& config, int32_t priority, uint32_t queue);

}  // namespace headroom::engine
