// Tests for RequestStream: a trace alone comes back as it is; over a longer span it repeats,
// shifted, in order and within the span; a load curve thins it by the curve's rate at each
// arrival (all at the peak, none where the curve is zero, about half where it is half); and the
// same seed gives the same requests.
#include "sim/request_stream.h"

#include <algorithm>
#include <vector>

#include <gtest/gtest.h>

namespace headroom::sim {
namespace {

// One request every `every_s` seconds for `seconds`, numbered in its input tokens.
RequestTrace EveryTrace(int seconds, int every_s) {
  RequestTrace trace{.format = "test", .source = "test", .requests = {}};
  for (int t = 0; t < seconds; t += every_s) {
    trace.requests.push_back(
        InferenceRequest{t * kUsPerSecond, static_cast<uint32_t>(trace.requests.size()), 1});
  }
  return trace;
}

std::vector<InferenceRequest> Drain(RequestStream& stream) {
  std::vector<InferenceRequest> out;
  for (; !stream.done(); stream.Pop()) out.push_back(stream.next());
  return out;
}

// A curve at `day` (relative rate) from 06:00 to 18:00 and `night` otherwise.
LoadCurve DayAndNight(double day, double night) {
  LoadCurve curve{.format = "test", .source = "test", .relative_rate = {}};
  for (size_t bin = 0; bin < LoadCurve::kBins; ++bin) {
    curve.relative_rate.push_back(bin >= 24 && bin < 72 ? day : night);
  }
  return curve;
}

TEST(RequestStream, ATraceAloneComesBackAsItIs) {
  const RequestTrace trace = EveryTrace(3600, 10);
  RequestStream stream(trace, std::nullopt, 0, 1);
  EXPECT_EQ(stream.span_us(), trace.span_us());
  const std::vector<InferenceRequest> out = Drain(stream);
  ASSERT_EQ(out.size(), trace.requests.size());
  for (size_t i = 0; i < out.size(); ++i) {
    EXPECT_EQ(out[i].arrival_us, trace.requests[i].arrival_us);
    EXPECT_EQ(out[i].input_tokens, trace.requests[i].input_tokens);
  }
}

TEST(RequestStream, OverALongerSpanItRepeatsShiftedInOrderWithinTheSpan) {
  const RequestTrace trace = EveryTrace(3600, 10);  // 360 requests, span 3,590 s.
  const TimeUs period_us = trace.span_us() + 1;
  const TimeUs span_us = 5 * period_us - 1;  // Five whole repetitions.
  RequestStream stream(trace, std::nullopt, span_us, 7);
  const std::vector<InferenceRequest> out = Drain(stream);
  ASSERT_EQ(out.size(), 5 * trace.requests.size());
  std::vector<int> seen(trace.requests.size(), 0);
  for (size_t i = 0; i < out.size(); ++i) {
    if (i > 0) {
      EXPECT_LE(out[i - 1].arrival_us, out[i].arrival_us);
    }
    EXPECT_GE(out[i].arrival_us, 0);
    EXPECT_LE(out[i].arrival_us, span_us);
    // Each repetition holds every request of the trace once, in its own period.
    EXPECT_EQ(out[i].arrival_us / period_us, static_cast<TimeUs>(i / trace.requests.size()));
    ++seen[out[i].input_tokens];
  }
  for (int count : seen) EXPECT_EQ(count, 5);
  // The later repetitions are shifted: the second does not begin with the trace's first.
  EXPECT_EQ(out[0].input_tokens, 0u);
  EXPECT_NE(out[trace.requests.size()].arrival_us, period_us);
  // A span that ends inside a repetition cuts it there.
  RequestStream cut(trace, std::nullopt, period_us + 1800 * kUsPerSecond, 7);
  const std::vector<InferenceRequest> partial = Drain(cut);
  EXPECT_GT(partial.size(), trace.requests.size());
  EXPECT_LT(partial.size(), 2 * trace.requests.size());
  EXPECT_LE(partial.back().arrival_us, period_us + 1800 * kUsPerSecond);
}

TEST(RequestStream, ACurveThinsEachArrivalByItsRelativeRate) {
  const RequestTrace trace = EveryTrace(3600, 1);  // 3,600 requests an hour.
  const TimeUs day_us = LoadCurve::kPeriodUs;
  RequestStream stream(trace, DayAndNight(1.0, 0.0), 2 * day_us, 3);
  std::vector<size_t> per_hour(48, 0);
  for (const InferenceRequest& request : Drain(stream)) {
    ++per_hour[static_cast<size_t>(request.arrival_us / (3600 * kUsPerSecond))];
  }
  for (size_t hour = 0; hour < 48; ++hour) {
    const size_t in_day = hour % 24;
    if (in_day >= 7 && in_day < 17) {
      // The curve is 1 all hour: every arrival, 3,600 per repetition of 3,599 s.
      EXPECT_GE(per_hour[hour], 3600u) << hour;
      EXPECT_LE(per_hour[hour], 3602u) << hour;
    } else if (in_day < 5 || in_day >= 19) {
      EXPECT_EQ(per_hour[hour], 0u) << hour;  // 0 all hour.
    }
  }
  RequestStream half(trace, DayAndNight(0.5, 0.5), day_us, 3);
  const size_t kept = Drain(half).size();
  // 86,400 arrivals kept with probability 1/2: within 5 standard deviations (147).
  EXPECT_NEAR(static_cast<double>(kept), 43200, 735);
}

TEST(RequestStream, TheSameSeedGivesTheSameRequests) {
  const RequestTrace trace = EveryTrace(3600, 5);
  RequestStream a(trace, DayAndNight(0.8, 0.2), 3 * LoadCurve::kPeriodUs, 11);
  RequestStream b(trace, DayAndNight(0.8, 0.2), 3 * LoadCurve::kPeriodUs, 11);
  RequestStream c(trace, DayAndNight(0.8, 0.2), 3 * LoadCurve::kPeriodUs, 12);
  const std::vector<InferenceRequest> from_a = Drain(a), from_b = Drain(b), from_c = Drain(c);
  ASSERT_EQ(from_a.size(), from_b.size());
  for (size_t i = 0; i < from_a.size(); ++i) EXPECT_EQ(from_a[i].arrival_us, from_b[i].arrival_us);
  const bool same = from_a.size() == from_c.size() &&
                    std::equal(from_a.begin(), from_a.end(), from_c.begin(),
                               [](const InferenceRequest& x, const InferenceRequest& y) {
                                 return x.arrival_us == y.arrival_us;
                               });
  EXPECT_FALSE(same);
}

}  // namespace
}  // namespace headroom::sim
