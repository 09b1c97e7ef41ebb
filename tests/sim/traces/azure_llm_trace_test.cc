// Tests for the Azure LLM inference 2023 loader: the published code trace loads with its
// README's counts, the conversation trace's form (same columns) loads from a fixture, wall-clock
// times convert exactly, and malformed cells are errors naming file, line and field.
#include "sim/traces/azure_llm_trace.h"

#include <string>

#include <gtest/gtest.h>

#include "sim/traces/request_trace.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

TEST(AzureLlmTrace, TheCodeTraceLoadsWithItsPublishedCounts) {
  const std::string path = TracePath("azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto trace = LoadRequestTrace("azure-llm:" + path);
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  EXPECT_EQ(trace->format, "azure-llm");
  EXPECT_EQ(trace->source, path);
  ASSERT_EQ(trace->requests.size(), 8819u);
  EXPECT_EQ(trace->requests.front().arrival_us, 0);
  // 18:17:03.9799600 to 19:14:19.9280560, to the microsecond.
  EXPECT_EQ(trace->span_us(), 3'435'948'056);
  uint64_t input = 0, output = 0;
  uint32_t longest_input = 0, longest_output = 0;
  for (size_t i = 0; i < trace->requests.size(); ++i) {
    const InferenceRequest& request = trace->requests[i];
    if (i > 0) {
      EXPECT_LE(trace->requests[i - 1].arrival_us, request.arrival_us);
    }
    input += request.input_tokens;
    output += request.output_tokens;
    longest_input = std::max(longest_input, request.input_tokens);
    longest_output = std::max(longest_output, request.output_tokens);
  }
  EXPECT_EQ(input, 18'059'974u);  // Mean 2,048 prompt tokens (README).
  EXPECT_EQ(output, 245'896u);    // Mean 27.9 generated tokens.
  EXPECT_EQ(longest_input, 7437u);
  EXPECT_EQ(longest_output, 1899u);
}

// The conversation trace has the same columns; fewer fractional digits, none, LF endings and
// rows out of order are read too (sorted, ties in file order).
TEST(AzureLlmTrace, TheConversationFormAndItsVariantsLoad) {
  const std::string text =
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:15:46.6805900,374,44\n"
      "2023-11-16 18:15:50.9951690,396,109\n"
      "2023-11-16 18:15:46.68,879,45\n"
      "2023-11-16 18:16:00,91,7";
  auto trace = ParseAzureLlmTrace(text, "AzureLLMInferenceTrace_conv.csv");
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  ASSERT_EQ(trace->requests.size(), 4u);
  EXPECT_EQ(trace->requests[0].arrival_us, 0);
  EXPECT_EQ(trace->requests[0].input_tokens, 879u);  // .680000 before .680590.
  EXPECT_EQ(trace->requests[1].arrival_us, 590);
  EXPECT_EQ(trace->requests[1].input_tokens, 374u);
  EXPECT_EQ(trace->requests[1].output_tokens, 44u);
  EXPECT_EQ(trace->requests[2].arrival_us, 4'315'169);
  EXPECT_EQ(trace->requests[3].arrival_us, 13'320'000);
}

TEST(AzureLlmTrace, WallClockTimesAreExactMicrosecondsSinceTheEpoch) {
  EXPECT_EQ(ParseWallClockUs("1970-01-01 00:00:00"), 0);
  EXPECT_EQ(ParseWallClockUs("2000-03-01 00:00:00"), 951'868'800 * kUsPerSecond);
  EXPECT_EQ(ParseWallClockUs("2023-11-16 18:17:03.9799600"), 1'700'158'623'979'960);
  EXPECT_EQ(ParseWallClockUs("2024-02-29 23:59:59.5"), 1'709'251'199'500'000);
  EXPECT_EQ(ParseWallClockUs("2023-11-16 18:17:03.123456789"), 1'700'158'623'123'456);
  for (const char* bad :
       {"2023-02-29 00:00:00", "2023-11-16T18:17:03", "2023-13-01 00:00:00", "2023-11-16 24:00:00",
        "2023-11-16 18:17:03.", "1969-12-31 23:59:59", "2023-11-16 18:17:03.1234567890",
        "2023-11-16 18:17", "", "2023-11-16 18:17:0x", "2023-11-16 18:17:03,5"}) {
    EXPECT_FALSE(ParseWallClockUs(bad).has_value()) << bad;
  }
}

TEST(AzureLlmTrace, MalformedCellsNameFileLineAndField) {
  struct Case {
    const char* text;
    const char* message;
  };
  const Case cases[] = {
      {"TIMESTAMP,ContextTokens,GeneratedTokens\r\n2023-11-16 18:17:03.1,10,2\r\n"
       "2023-02-30 00:00:00,10,2",
       "code.csv:3: field 'TIMESTAMP': expected a time as YYYY-MM-DD HH:MM:SS.fffffff, got "
       "\"2023-02-30 00:00:00\""},
      {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.1,-4,2",
       "code.csv:2: field 'ContextTokens': expected a non-negative integer, got \"-4\""},
      {"TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.1,4,2000000000",
       "code.csv:2: field 'GeneratedTokens': expected a non-negative integer at most 100000000, "
       "got \"2000000000\""},
  };
  for (const Case& c : cases) {
    auto trace = ParseAzureLlmTrace(c.text, "code.csv");
    ASSERT_FALSE(trace.has_value()) << c.text;
    EXPECT_EQ(trace.error().message, c.message);
  }
  auto missing = ParseAzureLlmTrace("TIMESTAMP,Prompt,GeneratedTokens\n", "code.csv");
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().message.find("ContextTokens"), std::string::npos)
      << missing.error().message;
}

TEST(RequestTrace, SpecsNameAKnownFormatAndAFileThatExists) {
  auto no_path = LoadRequestTrace("azure-llm");
  ASSERT_FALSE(no_path.has_value());
  EXPECT_EQ(no_path.error().message,
            "request trace: expected FORMAT:PATH (azure-llm or mooncake), got \"azure-llm\"");
  auto unknown = LoadRequestTrace("splitwise:/tmp/x.csv");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message,
            "request trace: expected a format of azure-llm or mooncake, got \"splitwise\"");
  auto absent = LoadRequestTrace("mooncake:/nonexistent/trace.jsonl");
  ASSERT_FALSE(absent.has_value());
  EXPECT_EQ(absent.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace headroom::sim
