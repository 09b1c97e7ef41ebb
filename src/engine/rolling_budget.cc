#include "engine/rolling_budget.h"

#include <algorithm>

namespace headroom::engine {
namespace {

constexpr TimeUs kWindowUs = 3600 * kUsPerSecond;

}  // namespace

int64_t RollingBudget::LeftDeviceUs(TimeUs now) {
  while (!spent_.empty() && spent_.front().first <= now - kWindowUs) {
    spent_device_us_ -= spent_.front().second;
    spent_.pop_front();
  }
  if (limit_device_us_ == kUnlimited) return kUnlimited;
  return std::max<int64_t>(limit_device_us_ - spent_device_us_, 0);
}

void RollingBudget::Charge(TimeUs now, int64_t cost_device_us) {
  if (!spent_.empty() && spent_.back().first == now) {
    spent_.back().second += cost_device_us;
  } else {
    spent_.emplace_back(now, cost_device_us);
  }
  spent_device_us_ += cost_device_us;
}

TimeUs RollingBudget::NextReleaseUs() const {
  return spent_.empty() ? kNever : spent_.front().first + kWindowUs;
}

std::vector<std::pair<TimeUs, int64_t>> RollingBudget::SpentSince(TimeUs now) const {
  std::vector<std::pair<TimeUs, int64_t>> spent;
  for (const auto& charge : spent_) {
    if (charge.first > now - kWindowUs) spent.push_back(charge);
  }
  return spent;
}

}  // namespace headroom::engine
