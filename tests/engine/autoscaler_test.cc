// Autoscaler (engine/autoscaler.h): Kubernetes' HPA algorithm on the request rate — the replica
// formula and its tolerance, the default rate limits (4 replicas or 100% per 15 s up), the
// 300 s scale-down stabilisation window, the bounds — and headroom's forecast of a rising rate;
// a property over random rate sequences: always within bounds, rises within the rate limits,
// and a steady rate settles at its formula's count.
#include "engine/autoscaler.h"

#include <cmath>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace headroom::engine {
namespace {

constexpr TimeUs kSync = 15 * kUsPerSecond;  // HPA's default sync period.

AutoscalerConfig Bounded(uint32_t min_replicas, uint32_t max_replicas) {
  AutoscalerConfig config;
  config.min_replicas = min_replicas;
  config.max_replicas = max_replicas;
  config.target_utilization = 0.5;
  return config;
}

// Steps `autoscaler` once per sync from `now` with the given rates (capacity 10 requests/s a
// replica), returning the count after each.
std::vector<uint32_t> SyncEach(Autoscaler& autoscaler, uint32_t& replicas, TimeUs& now,
                               const std::vector<double>& rates) {
  std::vector<uint32_t> counts;
  for (const double rate : rates) {
    replicas = autoscaler.Recommend(now, rate, 10, replicas);
    counts.push_back(replicas);
    now += kSync;
  }
  return counts;
}

TEST(Autoscaler, ScalesUpByTheFormulaWithinFourReplicasOrDoublingPerFifteenSeconds) {
  Autoscaler autoscaler(Bounded(1, 100));
  uint32_t replicas = 2;
  TimeUs now = 0;
  // 100 requests/s at 5 a replica (half of 10): 20 wanted; from 2, +4 (6), x2 (12), then 20.
  EXPECT_EQ(SyncEach(autoscaler, replicas, now, {100, 100, 100, 100}),
            (std::vector<uint32_t>{6, 12, 20, 20}));
}

TEST(Autoscaler, AChangeWithinTheToleranceIsNoChange) {
  Autoscaler autoscaler(Bounded(1, 100));
  // 10 replicas serve 50 requests/s at target; 54 is 8% above, 56 is 12% above.
  EXPECT_EQ(autoscaler.Recommend(0, 54, 10, 10), 10u);
  EXPECT_EQ(autoscaler.Recommend(kSync, 56, 10, 10), 12u);  // ceil(56 / 5).
}

TEST(Autoscaler, AScaleDownWaitsForTheStabilisationWindowThenFollowsTheRate) {
  Autoscaler autoscaler(Bounded(1, 100));
  uint32_t replicas = 20;
  TimeUs now = 0;
  SyncEach(autoscaler, replicas, now, {100});  // Recommended 20 at t = 0.
  // The rate falls to 10 requests/s (2 replicas) from t = 15 s: the highest recommendation of
  // the last 300 s is still 20 until t = 300 s.
  const std::vector<uint32_t> counts =
      SyncEach(autoscaler, replicas, now, std::vector<double>(20, 10.0));
  for (size_t i = 0; i < 19; ++i) EXPECT_EQ(counts[i], 20u) << "sync " << i + 1;
  EXPECT_EQ(counts[19], 2u);  // t = 300 s: 100% a period allows the whole fall.
}

TEST(Autoscaler, StaysWithinItsBoundsAndMayRestAtZero) {
  Autoscaler bounded(Bounded(3, 8));
  EXPECT_EQ(bounded.Recommend(0, 1000, 10, 8), 8u);
  EXPECT_EQ(bounded.Recommend(0, 0, 10, 3), 3u);
  AutoscalerConfig idle = Bounded(0, 8);
  idle.scale_down_window_us = 0;
  Autoscaler to_zero(idle);
  EXPECT_EQ(to_zero.Recommend(0, 0, 10, 4), 0u);
  EXPECT_EQ(to_zero.Recommend(kSync, 12, 10, 0), 3u);  // From nothing: ceil(12 / 5).
}

// headroom's forecast: on a rate rising 10 requests/s every sync, the count looks 60 s ahead
// (the rate 40 requests/s higher by then), where the HPA alone follows the rate.
TEST(Autoscaler, AForecastScalesAheadOfARisingRate) {
  AutoscalerConfig plain = Bounded(1, 100);
  plain.scale_up = {100, 100, kSync};  // No rate limit in the way.
  AutoscalerConfig ahead = plain;
  ahead.predict_us = 60 * kUsPerSecond;
  Autoscaler hpa(plain), forecasting(ahead);
  uint32_t hpa_replicas = 2, forecast_replicas = 2;
  TimeUs hpa_now = 0, forecast_now = 0;
  const std::vector<double> rising = {10, 20, 30};
  EXPECT_EQ(SyncEach(hpa, hpa_replicas, hpa_now, rising), (std::vector<uint32_t>{2, 4, 6}));
  EXPECT_EQ(SyncEach(forecasting, forecast_replicas, forecast_now, rising),
            (std::vector<uint32_t>{2, 12, 14}));
  EXPECT_DOUBLE_EQ(forecasting.ForecastPerS(), 70);
  // As the rate falls, the scale-down window holds the count.
  EXPECT_EQ(SyncEach(forecasting, forecast_replicas, forecast_now, {20, 10}),
            (std::vector<uint32_t>{14, 14}));
}

TEST(Autoscaler, ConfigurationsThatCannotWorkAreRefusedByField) {
  AutoscalerConfig config = Bounded(4, 2);
  EXPECT_EQ(ValidateAutoscalerConfig(config).error().message,
            "autoscaler: max_replicas: expected 1 to 1000000 and at least min_replicas (4), got 2");
  config = Bounded(1, 2);
  config.target_utilization = 0;
  EXPECT_EQ(ValidateAutoscalerConfig(config).error().message,
            "autoscaler: target_utilization: expected a number in (0, 1], got 0");
  config = Bounded(1, 2);
  config.scale_up = {0, 0, kSync};
  EXPECT_EQ(ValidateAutoscalerConfig(config).error().message,
            "autoscaler: scale_up: expected a replicas or a percent limit above 0");
  config = Bounded(1, 2);
  config.tolerance = std::nan("");
  EXPECT_FALSE(ValidateAutoscalerConfig(config).has_value());
  EXPECT_TRUE(ValidateAutoscalerConfig(Bounded(0, 1)).has_value());
}

RC_GTEST_PROP(AutoscalerProperty, BoundedRateLimitedAndSettlingOnASteadyRate, ()) {
  AutoscalerConfig config;
  config.min_replicas = *rc::gen::inRange<uint32_t>(0, 5);
  config.max_replicas = config.min_replicas + *rc::gen::inRange<uint32_t>(1, 60);
  config.target_utilization = *rc::gen::element(0.5, 0.7, 1.0);
  config.predict_us = *rc::gen::element<TimeUs>(0, 0, 90 * kUsPerSecond);
  Autoscaler autoscaler(config);
  const double capacity = *rc::gen::element(1.0, 7.5, 40.0);
  const auto rates = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 2000));
  uint32_t replicas = *rc::gen::inRange(config.min_replicas, config.max_replicas + 1);
  std::vector<std::pair<TimeUs, uint32_t>> history = {{-kSync, replicas}};
  TimeUs now = 0;
  auto step = [&](double rate) {
    const uint32_t before = replicas;
    replicas = autoscaler.Recommend(now, rate, capacity, replicas);
    RC_ASSERT(replicas >= config.min_replicas && replicas <= config.max_replicas);
    // A rise stays within max(+4, x2) of the count one period ago (the default up policies).
    if (replicas > before) {
      const uint32_t period_start = history[history.size() - 1].second;
      RC_ASSERT(replicas <= std::max(period_start + 4, 2 * period_start) || replicas <= before);
    }
    history.push_back({now, replicas});
    now += kSync;
  };
  for (const int rate : rates) step(rate);
  // A steady rate, held past the scale-down window and the trend window, settles within the
  // tolerance of its formula's count (or at a bound).
  const double steady = *rc::gen::inRange(0, 2000);
  for (int i = 0; i < 40; ++i) step(steady);
  const double wanted = steady / (capacity * config.target_utilization);
  const uint32_t exact = static_cast<uint32_t>(
      std::clamp<double>(std::ceil(wanted), config.min_replicas, config.max_replicas));
  const bool within = replicas > 0 && std::abs(wanted / replicas - 1.0) <= config.tolerance;
  RC_ASSERT(replicas == exact || within);
}

}  // namespace
}  // namespace headroom::engine
