// Prometheus text parser: exact samples from dcgm-exporter-shaped text, one clear error per
// malformed line, and properties — any input parses or fails with "line N: ...", and rendered
// samples parse back to themselves.
#include "model/prometheus_text.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace headroom::model {
namespace {

constexpr const char* kDcgmText =
    "# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).\n"
    "# TYPE DCGM_FI_DEV_GPU_TEMP gauge\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"0\",UUID=\"GPU-00000000-0000-0000-0000-000000000000\","
    "device=\"nvidia0\",modelName=\"NVIDIA H100 80GB HBM3\",Hostname=\"node1\"} 40\n"
    "DCGM_FI_DEV_GPU_TEMP{gpu=\"1\",UUID=\"GPU-1\",device=\"nvidia1\"} 41.5 1700000000000\n"
    "\n"
    "# a free comment\n"
    "DCGM_FI_DEV_POWER_USAGE{gpu=\"0\" , } -1.25e2\n"
    "up +Inf\n"
    "down NaN\n";

TEST(AgentPrometheusText, ParsesDcgmExporterTextExactly) {
  auto samples = ParsePrometheusText(kDcgmText);
  ASSERT_TRUE(samples.has_value()) << samples.error().message;
  ASSERT_EQ(samples->size(), 5u);
  const PrometheusSample& first = (*samples)[0];
  EXPECT_EQ(first.name, "DCGM_FI_DEV_GPU_TEMP");
  EXPECT_EQ(first.line, 3);
  ASSERT_EQ(first.labels.size(), 5u);
  EXPECT_EQ(first.labels[3].name, "modelName");
  EXPECT_EQ(first.labels[3].value, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(*first.Label("gpu"), "0");
  EXPECT_EQ(first.Label("missing"), nullptr);
  EXPECT_EQ(first.value, 40.0);
  EXPECT_FALSE(first.timestamp_ms.has_value());
  EXPECT_EQ((*samples)[1].value, 41.5);
  EXPECT_EQ((*samples)[1].timestamp_ms, 1700000000000);
  EXPECT_EQ((*samples)[2].line, 7);
  EXPECT_EQ((*samples)[2].value, -125.0);
  EXPECT_EQ((*samples)[2].labels.size(), 1u);
  EXPECT_TRUE(std::isinf((*samples)[3].value));
  EXPECT_GT((*samples)[3].value, 0);
  EXPECT_TRUE(std::isnan((*samples)[4].value));
}

TEST(AgentPrometheusText, UnescapesLabelValues) {
  auto samples = ParsePrometheusText("m{a=\"x\\\"y\\\\z\\n\"} 1\n");
  ASSERT_TRUE(samples.has_value()) << samples.error().message;
  EXPECT_EQ((*samples)[0].labels[0].value, "x\"y\\z\n");
}

TEST(AgentPrometheusText, EmptyAndCommentOnlyInputHasNoSamples) {
  EXPECT_TRUE(ParsePrometheusText("")->empty());
  EXPECT_TRUE(ParsePrometheusText("# HELP x y\n\n   \n#\n")->empty());
}

struct BadCase {
  const char* text;
  const char* message;
};

TEST(AgentPrometheusText, MalformedLinesGiveOneClearError) {
  const BadCase cases[] = {
      {"ok 1\n9bad 1\n", "line 2: expected a metric name, got \"9bad 1\""},
      {"m{gpu=0} 1\n", "line 1: expected '\"' opening a label value, got \"0} 1\""},
      {"m{gpu=\"0\" 1\n", "line 1: expected ',' or '}' after a label value, got \"1\""},
      {"m{gpu=\"0} 1\n", "line 1: expected '\"' closing the label value, got the end of the line"},
      {"m{a=\"1\",a=\"2\"} 1\n",
       "line 1: expected a label name not already given, not 'a' again, got \"a=\\\"2\\\"} 1\""},
      {"m{a=\"\\t\"} 1\n",
       "line 1: expected an escape \\\\, \\\" or \\n in a label value, got \"\\\\t\\\"} 1\""},
      {"m 12abc\n", "line 1: expected a sample value for m, got \"12abc\""},
      {"m\n", "line 1: expected a sample value for m, got the end of the line"},
      {"m 1 2.5\n",
       "line 1: expected an integer timestamp in milliseconds or the end of the line, got "
       "\"2.5\""},
      {"m 1 2 3\n", "line 1: expected the end of the line after the timestamp, got \"3\""},
      {"m 1\r\n", "line 1: expected lines ended by \\n alone, got a carriage return at column 4"},
      {"# TYPE m gauge\n# TYPE m counter\n",
       "line 2: expected one TYPE line for m, got a second one"},
      {"# TYPE m gorge\n",
       "line 1: expected a metric type (counter, gauge, histogram, summary or untyped), got "
       "\"gorge\""},
      {"# HELP\n", "line 1: expected a metric name after HELP or TYPE, got the end of the line"},
      {"m 0x10\n", "line 1: expected a sample value for m, got \"0x10\""},
      {"m{:a=\"1\"} 1\n", "line 1: expected a label name or '}', got \":a=\\\"1\\\"} 1\""},
  };
  for (const BadCase& bad : cases) {
    auto samples = ParsePrometheusText(bad.text);
    ASSERT_FALSE(samples.has_value()) << bad.text;
    EXPECT_EQ(samples.error().message, bad.message) << bad.text;
    EXPECT_EQ(samples.error().code, ErrorCode::kInvalidArgument);
  }
}

RC_GTEST_PROP(AgentPrometheusTextProperty, AnyInputParsesOrFailsWithALineNumber,
              (const std::string& text)) {
  auto samples = ParsePrometheusText(text);
  if (!samples) {
    RC_ASSERT(samples.error().message.rfind("line ", 0) == 0);
    RC_ASSERT(samples.error().message.find('\n') == std::string::npos);
  }
}

// Mostly-valid lines built from exposition pieces reach deeper than random bytes.
RC_GTEST_PROP(AgentPrometheusTextProperty, PiecesOfTheFormatNeverCrash, ()) {
  const std::vector<std::string> pieces = {"m",       "DCGM_FI_DEV_GPU_TEMP",
                                           "{",       "}",
                                           "gpu",     "=",
                                           "\"0\"",   "\"",
                                           "\\",      ",",
                                           " ",       "\t",
                                           "1",       "-2.5e3",
                                           "NaN",     "+Inf",
                                           "# TYPE ", "# HELP ",
                                           "gauge",   "\n",
                                           "\r",      "17000",
                                           ":",       "_"};
  const auto picks =
      *rc::gen::container<std::vector<size_t>>(rc::gen::inRange<size_t>(0, pieces.size()));
  std::string text;
  for (const size_t pick : picks) text += pieces[pick];
  auto samples = ParsePrometheusText(text);
  if (!samples) RC_ASSERT(samples.error().message.rfind("line ", 0) == 0);
}

std::string Escape(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

RC_GTEST_PROP(AgentPrometheusTextProperty, RenderedSamplesParseBackExactly, ()) {
  const auto names = *rc::gen::nonEmpty(rc::gen::container<std::vector<std::string>>(
      rc::gen::element<std::string>("DCGM_FI_DEV_GPU_TEMP", "up", "a:b_c", "_x9")));
  const auto values =
      *rc::gen::container<std::vector<int>>(names.size(), rc::gen::arbitrary<int>());
  const auto label_values = *rc::gen::container<std::vector<std::string>>(
      names.size(), rc::gen::container<std::string>(rc::gen::element<char>(
                        'a', 'Z', '0', ' ', '"', '\\', '\n', '{', '}', ',')));
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    text += names[i] + "{gpu=\"" + std::to_string(i) + "\",v=\"" + Escape(label_values[i]) +
            "\"} " + std::to_string(values[i]) + "\n";
  }
  auto samples = ParsePrometheusText(text);
  RC_ASSERT(samples.has_value());
  RC_ASSERT(samples->size() == names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    const PrometheusSample& sample = (*samples)[i];
    RC_ASSERT(sample.name == names[i]);
    RC_ASSERT(sample.value == static_cast<double>(values[i]));
    RC_ASSERT(*sample.Label("gpu") == std::to_string(i));
    RC_ASSERT(*sample.Label("v") == label_values[i]);
    RC_ASSERT(sample.line == static_cast<int>(i) + 1);
  }
}

}  // namespace
}  // namespace headroom::model
