#include "engine/autoscaler.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace headroom::engine {
namespace {

// Far above any service: a count past it is a mistake, and it keeps every product in range.
constexpr uint32_t kMaxReplicas = 1'000'000;

}  // namespace

Result<void> ValidateAutoscalerConfig(const AutoscalerConfig& config) {
  auto invalid = [](std::string message) {
    return tl::unexpected(Error{ErrorCode::kInvalidArgument, "autoscaler: " + message});
  };
  if (config.max_replicas > kMaxReplicas || config.max_replicas < config.min_replicas ||
      config.max_replicas == 0) {
    return invalid(
        fmt::format("max_replicas: expected 1 to {} and at least min_replicas ({}), got {}",
                    kMaxReplicas, config.min_replicas, config.max_replicas));
  }
  if (!(config.target_utilization > 0 && config.target_utilization <= 1)) {
    return invalid(fmt::format("target_utilization: expected a number in (0, 1], got {}",
                               config.target_utilization));
  }
  if (!(config.tolerance >= 0 && config.tolerance < 1)) {
    return invalid(fmt::format("tolerance: expected a number in [0, 1), got {}", config.tolerance));
  }
  for (const auto& [name, rate] :
       {std::pair{"scale_up", config.scale_up}, std::pair{"scale_down", config.scale_down}}) {
    if (rate.period_us <= 0) return invalid(fmt::format("{}.period_s: expected above 0", name));
    if (rate.replicas == 0 && rate.percent == 0) {
      return invalid(fmt::format("{}: expected a replicas or a percent limit above 0", name));
    }
    if (rate.percent > 10'000 || rate.replicas > kMaxReplicas) {
      return invalid(fmt::format("{}: expected percent at most 10000 and replicas at most {}", name,
                                 kMaxReplicas));
    }
  }
  if (config.scale_up_window_us < 0 || config.scale_down_window_us < 0 || config.predict_us < 0 ||
      config.trend_window_us <= 0) {
    return invalid("windows: expected 0 or more seconds (trend_window_s above 0)");
  }
  return {};
}

Autoscaler::Autoscaler(AutoscalerConfig config) : config_(config) {
  HR_CHECK(ValidateAutoscalerConfig(config_).has_value());
}

double Autoscaler::ForecastPerS() const {
  if (samples_.empty()) return 0;
  const double observed = samples_.back().second;
  if (config_.predict_us == 0 || samples_.size() < 2) return observed;
  // Least-squares line through the window's samples, time in seconds from the last one.
  const TimeUs last_us = samples_.back().first;
  double n = 0, sum_t = 0, sum_r = 0, sum_tt = 0, sum_tr = 0;
  for (const auto& [time_us, rate] : samples_) {
    const double t = static_cast<double>(time_us - last_us) / kUsPerSecond;
    n += 1;
    sum_t += t;
    sum_r += rate;
    sum_tt += t * t;
    sum_tr += t * rate;
  }
  const double spread = n * sum_tt - sum_t * sum_t;
  if (spread <= 0) return observed;
  const double slope = (n * sum_tr - sum_t * sum_r) / spread;
  const double at_last = (sum_r - slope * sum_t) / n;
  const double ahead = at_last + slope * static_cast<double>(config_.predict_us) / kUsPerSecond;
  return std::max(ahead, 0.0);
}

uint32_t Autoscaler::Recommend(TimeUs now, double rate_per_s, double capacity_per_s,
                               uint32_t current) {
  HR_CHECK(capacity_per_s > 0 && std::isfinite(capacity_per_s));
  HR_CHECK(recommendations_.empty() || now >= recommendations_.back().first);
  const double rate = std::isfinite(rate_per_s) ? std::max(rate_per_s, 0.0) : 0.0;
  samples_.push_back({now, rate});
  while (now - samples_.front().first > config_.trend_window_us) samples_.pop_front();
  const double metric = std::max(rate, ForecastPerS());

  // HPA's replica calculation: within the tolerance, no change.
  const double wanted = metric / (capacity_per_s * config_.target_utilization);
  uint32_t desired = current;
  const bool within_tolerance =
      current > 0 && std::abs(wanted / current - 1.0) <= config_.tolerance;
  if (!within_tolerance) {
    desired = static_cast<uint32_t>(std::min<double>(std::ceil(wanted), kMaxReplicas));
  }

  // Stabilisation: the lowest recommendation of the scale-up window bounds a rise, the highest
  // of the scale-down window bounds a fall (horizontal.go, stabilizeRecommendationWithBehaviors).
  uint32_t up = desired, down = desired;
  for (const auto& [time_us, recommended] : recommendations_) {
    if (now - time_us < config_.scale_up_window_us) up = std::min(up, recommended);
    if (now - time_us < config_.scale_down_window_us) down = std::max(down, recommended);
  }
  recommendations_.push_back({now, desired});
  const TimeUs keep_us = std::max(config_.scale_up_window_us, config_.scale_down_window_us);
  while (now - recommendations_.front().first >= keep_us && recommendations_.size() > 1) {
    recommendations_.pop_front();
  }
  uint32_t stable = current;
  if (stable < up) stable = up;
  if (stable > down) stable = down;

  const uint32_t next = Limited(now, current, stable);
  if (next != current) changes_.push_back({now, int64_t{next} - int64_t{current}});
  // Only changes within a policy's period count: older ones are forgotten, so that a service
  // running for months keeps a bounded history.
  const TimeUs period_us = std::max(config_.scale_up.period_us, config_.scale_down.period_us);
  while (!changes_.empty() && now - changes_.front().first >= period_us) changes_.pop_front();
  return next;
}

uint32_t Autoscaler::Limited(TimeUs now, uint32_t current, uint32_t wanted) const {
  // The count at the start of a period: now's, less what was added in it, plus what was removed
  // (horizontal.go, getReplicasChangePerPeriod).
  auto start_of_period = [&](TimeUs period_us) {
    int64_t added = 0, removed = 0;
    for (const auto& [time_us, change] : changes_) {
      if (now - time_us >= period_us) continue;
      (change > 0 ? added : removed) += std::abs(change);
    }
    return std::max<int64_t>(int64_t{current} - added + removed, 0);
  };
  int64_t bounded = wanted;
  if (wanted > current) {
    const ScalingRate& rate = config_.scale_up;
    const int64_t start = start_of_period(rate.period_us);
    int64_t limit = 0;
    if (rate.replicas > 0) limit = std::max(limit, start + rate.replicas);
    if (rate.percent > 0) {
      limit = std::max(limit, static_cast<int64_t>(std::ceil(static_cast<double>(start) *
                                                             (1 + rate.percent / 100.0))));
    }
    bounded = std::min<int64_t>(wanted, std::max<int64_t>(limit, current));
  } else if (wanted < current) {
    const ScalingRate& rate = config_.scale_down;
    const int64_t start = start_of_period(rate.period_us);
    int64_t limit = start;
    if (rate.replicas > 0) limit = std::min(limit, start - rate.replicas);
    if (rate.percent > 0) {
      // Truncated, as horizontal.go does (a scale-up's percent rounds up).
      limit = std::min(
          limit, static_cast<int64_t>(static_cast<double>(start) * (1 - rate.percent / 100.0)));
    }
    bounded = std::max<int64_t>(wanted, std::min<int64_t>(limit, current));
  }
  return static_cast<uint32_t>(
      std::clamp<int64_t>(bounded, config_.min_replicas, config_.max_replicas));
}

}  // namespace headroom::engine
