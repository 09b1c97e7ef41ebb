// Tests for the Mooncake (FAST'25) JSONL loader: the published conversation trace loads with its
// README's counts, fractions, blank lines and unknown fields are read, and malformed lines are
// errors naming file, line and field.
#include "sim/traces/mooncake_trace.h"

#include <string>

#include <gtest/gtest.h>

#include "sim/traces/request_trace.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

TEST(MooncakeTrace, TheConversationTraceLoadsWithItsPublishedCounts) {
  const std::string path = TracePath("mooncake-kimi-fast25/conversation_trace.jsonl");
  HEADROOM_SKIP_IF_MISSING(path);
  auto trace = LoadRequestTrace("mooncake:" + path);
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  EXPECT_EQ(trace->format, "mooncake");
  ASSERT_EQ(trace->requests.size(), 12'031u);
  EXPECT_EQ(trace->span_us(), TimeUs{3'536'999'000});
  size_t at_zero = 0;
  uint64_t input = 0, output = 0;
  for (size_t i = 0; i < trace->requests.size(); ++i) {
    const InferenceRequest& request = trace->requests[i];
    if (i > 0) {
      EXPECT_LE(trace->requests[i - 1].arrival_us, request.arrival_us);
    }
    at_zero += request.arrival_us == 0 ? 1 : 0;
    input += request.input_tokens;
    output += request.output_tokens;
  }
  EXPECT_EQ(at_zero, 10u);  // README: ten requests at t=0.
  EXPECT_EQ(input, 144'793'823u);
  EXPECT_EQ(output, 4'122'048u);
}

TEST(MooncakeTrace, FractionsBlankLinesAndOtherFieldsAreRead) {
  const std::string text =
      "{\"timestamp\": 1500, \"input_length\": 6758, \"output_length\": 500, \"hash_ids\": [0, "
      "1]}\n"
      "\n"
      "{\"timestamp\": 1000.25, \"input_length\": 12, \"output_length\": 3, \"model\": "
      "\"kimi\"}\r\n"
      "  \n"
      "{\"output_length\": 9, \"input_length\": 7, \"timestamp\": 1500}";
  auto trace = ParseMooncakeTrace(text, "trace.jsonl");
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  ASSERT_EQ(trace->requests.size(), 3u);
  EXPECT_EQ(trace->requests[0].arrival_us, 0);
  EXPECT_EQ(trace->requests[0].input_tokens, 12u);
  EXPECT_EQ(trace->requests[1].arrival_us, 499'750);
  EXPECT_EQ(trace->requests[1].input_tokens, 6758u);  // Ties keep the file's order.
  EXPECT_EQ(trace->requests[2].arrival_us, 499'750);
  EXPECT_EQ(trace->requests[2].output_tokens, 9u);
  auto empty = ParseMooncakeTrace("", "empty.jsonl");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->requests.empty());
}

TEST(MooncakeTrace, MalformedLinesNameFileLineAndField) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1}\n[1, 2]",
       "t.jsonl:2: expected a JSON object, got \"[1, 2]\""},
      {"{\"timestamp\": 0, \"input_length\": 1, \"output_length\": 1\n",
       "t.jsonl:1: expected a JSON object, got \"{\"timestamp\": 0, \"input_length\": 1, \"out\""},
      {"\n{\"input_length\": 1, \"output_length\": 1}",
       "t.jsonl:2: field 'timestamp': expected a non-negative number, got nothing"},
      {"{\"timestamp\": -5, \"input_length\": 1, \"output_length\": 1}",
       "t.jsonl:1: field 'timestamp': expected a non-negative number at most 10000000000000, got "
       "-5"},
      {"{\"timestamp\": 5, \"input_length\": 1.5, \"output_length\": 1}",
       "t.jsonl:1: field 'input_length': expected a non-negative integer at most 100000000, got "
       "1.5"},
      {"{\"timestamp\": 5, \"input_length\": 1, \"output_length\": \"many\"}",
       "t.jsonl:1: field 'output_length': expected a non-negative integer at most 100000000, got "
       "\"many\""},
      {"{\"timestamp\": 1e300, \"input_length\": 1, \"output_length\": 1}",
       "t.jsonl:1: field 'timestamp': expected a non-negative number at most 10000000000000, got "
       "1e+300"},
  };
  for (const Case& c : cases) {
    auto trace = ParseMooncakeTrace(c.text, "t.jsonl");
    ASSERT_FALSE(trace.has_value()) << c.text;
    EXPECT_EQ(trace.error().message, c.message);
  }
}

}  // namespace
}  // namespace headroom::sim
