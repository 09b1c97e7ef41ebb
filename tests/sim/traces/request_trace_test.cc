// Request traces in general: the FORMAT:PATH dispatch, and MultiplexRequests, which raises a
// trace's rate by superposing shifted copies over the same span.
#include "sim/traces/request_trace.h"

#include <algorithm>

#include <gtest/gtest.h>

namespace headroom::sim {
namespace {

RequestTrace Ramp(int count) {
  RequestTrace trace{.format = "test", .source = "ramp", .requests = {}};
  for (int i = 0; i < count; ++i) {
    trace.requests.push_back({i * kUsPerSecond, static_cast<uint32_t>(100 + i), 10});
  }
  return trace;
}

bool SortedWithin(const RequestTrace& trace, TimeUs span_us) {
  const auto& r = trace.requests;
  return std::is_sorted(r.begin(), r.end(),
                        [](const auto& a, const auto& b) { return a.arrival_us < b.arrival_us; }) &&
         std::all_of(r.begin(), r.end(), [&](const InferenceRequest& request) {
           return request.arrival_us >= 0 && request.arrival_us <= span_us;
         });
}

TEST(RequestTrace, NamesTheFormatsItReads) {
  auto unknown = LoadRequestTrace("splitwise:/tmp/x.csv");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_NE(unknown.error().message.find("azure-llm or mooncake"), std::string::npos);
  auto missing = LoadRequestTrace("azure-llm:/nonexistent/trace.csv");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

TEST(RequestTrace, MultiplexByOneGivesTheTraceBack) {
  const RequestTrace ramp = Ramp(100);
  const RequestTrace same = MultiplexRequests(ramp, 1, 7);
  ASSERT_EQ(same.requests.size(), ramp.requests.size());
  for (size_t i = 0; i < ramp.requests.size(); ++i) {
    EXPECT_EQ(same.requests[i].arrival_us, ramp.requests[i].arrival_us);
    EXPECT_EQ(same.requests[i].input_tokens, ramp.requests[i].input_tokens);
  }
}

TEST(RequestTrace, MultiplexKeepsTheSpanAndScalesTheCount) {
  const RequestTrace ramp = Ramp(1000);
  const RequestTrace triple = MultiplexRequests(ramp, 3, 7);
  EXPECT_EQ(triple.requests.size(), 3000u);
  EXPECT_TRUE(SortedWithin(triple, ramp.span_us()));
  // Every request of the trace appears three times (its token counts identify it).
  for (uint32_t input = 100; input < 1100; input += 111) {
    EXPECT_EQ(std::count_if(triple.requests.begin(), triple.requests.end(),
                            [&](const InferenceRequest& r) { return r.input_tokens == input; }),
              3)
        << input;
  }
  const RequestTrace part = MultiplexRequests(ramp, 2.5, 7);
  EXPECT_GT(part.requests.size(), 2400u);  // 2,000 + Binomial(1000, 0.5).
  EXPECT_LT(part.requests.size(), 2600u);
  EXPECT_TRUE(SortedWithin(part, ramp.span_us()));
  const RequestTrace half = MultiplexRequests(ramp, 0.5, 7);
  EXPECT_GT(half.requests.size(), 400u);
  EXPECT_LT(half.requests.size(), 600u);
  // The same seed, the same trace; another seed, other offsets.
  const RequestTrace again = MultiplexRequests(ramp, 2.5, 7);
  ASSERT_EQ(again.requests.size(), part.requests.size());
  for (size_t i = 0; i < part.requests.size(); ++i) {
    EXPECT_EQ(again.requests[i].arrival_us, part.requests[i].arrival_us);
  }
  const RequestTrace other = MultiplexRequests(ramp, 3, 8);
  bool differs = false;
  for (size_t i = 0; i < other.requests.size(); ++i) {
    differs |= other.requests[i].input_tokens != triple.requests[i].input_tokens;
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace headroom::sim
