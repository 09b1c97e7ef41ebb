// Tests for ServingTally and its latency histogram: percentiles within 0.1% of the exact order
// statistics (sim::Summarize) over random samples, count, mean and max exact, merged tallies
// equal to one tally of everything, and failed requests counted apart.
#include "sim/serving_tally.h"

#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "sim/request_replay.h"
#include "sim/stats.h"

namespace headroom::sim {
namespace {

RC_GTEST_PROP(LatencyHistogramProperty, PercentilesLieWithinATenthOfAPercent, ()) {
  // Latencies from 10 µs to 30 h, spread over every decade.
  const auto exponents =
      *rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::inRange(-5000, 5100)));
  std::vector<double> samples;
  LatencyHistogram histogram;
  for (const int exponent : exponents) {
    samples.push_back(std::pow(10.0, exponent / 1000.0));
    histogram.Add(samples.back());
  }
  const Distribution exact = Summarize(samples);
  const Distribution folded = histogram.Summary();
  RC_ASSERT(folded.count == exact.count);
  RC_ASSERT(folded.max == exact.max);
  RC_ASSERT(std::abs(folded.mean - exact.mean) <= 1e-9 * exact.mean);
  for (const auto& [a, b] : {std::pair{folded.p50, exact.p50}, std::pair{folded.p95, exact.p95},
                             std::pair{folded.p99, exact.p99}}) {
    // Below 0.1 ms every sample shares one bucket: the smallest stands for them.
    if (b < 1e-4) continue;
    RC_ASSERT(std::abs(a - b) <= 0.001 * b);
  }
}

TEST(ServingTally, MergedTalliesEqualOneAndFailuresCountApart) {
  ServingTally first, second, all;
  for (int i = 0; i < 100; ++i) {
    RequestOutcome outcome{.arrival_us = i * kUsPerSecond,
                           .first_token_us = i * kUsPerSecond + (i + 1) * 10'000,
                           .finish_us = i * kUsPerSecond + (i + 1) * 20'000,
                           .tbt_s = 0.01,
                           .restarts = i % 10 == 0 ? 1u : 0u,
                           .met_slo = i < 90,
                           .settled = true};
    if (i % 25 == 24) outcome.first_token_us = outcome.finish_us = kNever;
    if (i % 25 == 24) outcome.met_slo = false;
    (i < 40 ? first : second).Add(outcome);
    all.Add(outcome);
  }
  first.Merge(second);
  const ServingSummary merged = first.Summary(), whole = all.Summary();
  EXPECT_EQ(merged.requests, 100u);
  EXPECT_EQ(merged.failed, 4u);
  EXPECT_EQ(merged.restarted, 10u);
  // 90 met, of which the failed 24, 49 and 74 are not: 87.
  EXPECT_DOUBLE_EQ(merged.slo_attainment, 0.87);
  EXPECT_EQ(merged.ttft_s.count, 96u);
  EXPECT_DOUBLE_EQ(merged.ttft_s.max, 0.99);  // Request 98 (99 failed): 99 × 10 ms.
  EXPECT_DOUBLE_EQ(merged.latency_s.max, 1.98);
  EXPECT_EQ(merged.latency_s.p50, whole.latency_s.p50);
  EXPECT_EQ(merged.ttft_s.p99, whole.ttft_s.p99);
  EXPECT_NEAR(merged.ttft_s.mean, whole.ttft_s.mean, 1e-12);
  EXPECT_DOUBLE_EQ(ServingTally().Summary().slo_attainment, 1.0);
}

}  // namespace
}  // namespace headroom::sim
