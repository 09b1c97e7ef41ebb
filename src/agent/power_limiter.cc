#include "agent/power_limiter.h"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

namespace headroom::agent {

PowerLimiter::PowerLimiter(PowerControl* control, std::vector<int> device_indices,
                           std::function<void(const std::string&)> log)
    : control_(control), device_indices_(std::move(device_indices)), log_(std::move(log)) {}

void PowerLimiter::Apply(const std::vector<model::DesiredTask>& desired) {
  std::map<int, int64_t> wanted;
  for (int index : device_indices_) wanted[index] = 0;
  // A device two tasks share has one limit: the least restrictive asked (caps are set only on
  // whole devices, so this is the rare case of a stale reply).
  for (const model::DesiredTask& task : desired) {
    for (int index : task.devices) {
      auto it = wanted.find(index);
      if (it == wanted.end()) continue;
      it->second = it->second == 0 ? task.power_cap_w : std::max(it->second, task.power_cap_w);
    }
  }
  for (const auto& [index, cap_w] : wanted) {
    auto asked = asked_.find(index);
    if (!first_ && asked != asked_.end() && asked->second == cap_w) continue;
    asked_[index] = cap_w;
    if (control_ == nullptr) {
      if (!first_ || cap_w != 0) {
        log_(cap_w == 0 ? fmt::format("device {}: power cap lifted (recorded; no NVML)", index)
                        : fmt::format("device {}: power cap {} W recorded, not applied (no NVML)",
                                      index, cap_w));
      }
      continue;
    }
    auto limits = control_->Limits(index);
    if (!limits) {
      log_(fmt::format("device {}: power limit not set: {}", index, limits.error().message));
      continue;
    }
    const uint32_t target =
        cap_w == 0 ? limits->default_w
                   : std::clamp(static_cast<uint32_t>(cap_w), limits->min_w, limits->max_w);
    if (target == limits->now_w) {
      applied_[index] = target;
      continue;
    }
    if (auto set = control_->Set(index, target); !set) {
      log_(fmt::format("device {}: power limit {} W not set: {}", index, target,
                       set.error().message));
      continue;
    }
    applied_[index] = target;
    log_(cap_w == 0 ? fmt::format("device {}: power cap lifted, limit back to its default {} W",
                                  index, target)
                    : fmt::format("device {}: power limit set to {} W (asked {} W)", index, target,
                                  cap_w));
  }
  first_ = false;
}

}  // namespace headroom::agent
