// Tests for the daily load curve: bins from a hand-built qps.csv (two containers summed, API
// rows and missing values left out, a bin covered too briefly and the rest of the day
// interpolated across midnight), the rate between bin centres, the published GenAI trace's
// tide, and malformed input as errors that name file, line and field.
#include "sim/traces/load_curve.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

constexpr const char* kHeader = "timestamp_anon,value,container_ip,request_type\n";

// Bin 0 (0-899 s): two containers at 1 QPS, a sample each a minute. Bin 1: one container.
// A last sample at 2,100 s covers 300 s of bin 2, too little to measure it.
std::string TwoBinsText() {
  std::string text = kHeader;
  for (int t = 0; t < 1800; t += 60) {
    text += fmt::format("{}.0,1,a,Generative Requests\n", 1000 + t);
    if (t < 900) text += fmt::format("{}.0,1,b,Generative Requests\n", 1000 + t);
    text += fmt::format("{}.0,500,,API Requests\n", 1000 + t);
  }
  text += "2500.0,NULL,b,Generative Requests\n";
  text += "3100.0,7,a,Generative Requests\n";
  return text;
}

TEST(LoadCurve, BinsSumContainersAndTheRestOfTheDayIsInterpolated) {
  auto curve = ParseAlibabaGenaiQps(TwoBinsText(), "qps.csv");
  ASSERT_TRUE(curve.has_value()) << curve.error().message;
  EXPECT_EQ(curve->format, "alibaba-genai");
  ASSERT_EQ(curve->relative_rate.size(), LoadCurve::kBins);
  EXPECT_DOUBLE_EQ(curve->relative_rate[0], 1.0);
  EXPECT_DOUBLE_EQ(curve->relative_rate[1], 0.5);
  // Bins 2..95 lie between bin 1 (0.5) and, across midnight, bin 0 (1).
  for (size_t bin = 2; bin < LoadCurve::kBins; ++bin) {
    EXPECT_NEAR(curve->relative_rate[bin], 0.5 + 0.5 * static_cast<double>(bin - 1) / 95, 1e-12)
        << bin;
  }
  double sum = 1.5;
  for (size_t bin = 2; bin < LoadCurve::kBins; ++bin) sum += 0.5 + 0.5 * (bin - 1) / 95.0;
  EXPECT_NEAR(curve->MeanRelativeRate(), sum / 96, 1e-12);
}

TEST(LoadCurve, TheRateIsLinearBetweenBinCentresAndTheDayRepeats) {
  auto curve = ParseAlibabaGenaiQps(TwoBinsText(), "qps.csv");
  ASSERT_TRUE(curve.has_value()) << curve.error().message;
  EXPECT_DOUBLE_EQ(curve->RelativeRateAt(450 * kUsPerSecond), 1.0);
  EXPECT_DOUBLE_EQ(curve->RelativeRateAt(900 * kUsPerSecond), 0.75);
  EXPECT_DOUBLE_EQ(curve->RelativeRateAt(1350 * kUsPerSecond), 0.5);
  EXPECT_DOUBLE_EQ(curve->RelativeRateAt(LoadCurve::kPeriodUs + 900 * kUsPerSecond), 0.75);
  EXPECT_NEAR(curve->RelativeRateAt(-450 * kUsPerSecond), 0.5 + 0.5 * 94 / 95.0, 1e-12);
  // Between the last bin's centre and midnight, toward bin 0.
  const double last = curve->relative_rate.back();
  EXPECT_NEAR(curve->RelativeRateAt(0), last + (1 - last) / 2, 1e-12);
}

TEST(LoadCurve, ThePublishedGenAiTraceRisesByDayAndEmptiesByNight) {
  const std::string path = TracePath("alibaba-genai-v2026/qps.csv");
  HEADROOM_SKIP_IF_MISSING(path);
  auto curve = LoadLoadCurve("alibaba-genai:" + path);
  ASSERT_TRUE(curve.has_value()) << curve.error().message;
  EXPECT_EQ(curve->source, path);
  const auto [lowest, highest] =
      std::minmax_element(curve->relative_rate.begin(), curve->relative_rate.end());
  EXPECT_DOUBLE_EQ(*highest, 1.0);
  EXPECT_LT(*lowest, 0.01);  // The night: near nothing (hours 19-22 of the trace).
  // Hourly means of the trace give mean/peak 0.31 (peak hour 4.94 of the summed QPS); 15-min
  // bins peak higher, so the mean is a smaller share of theirs.
  EXPECT_GT(curve->MeanRelativeRate(), 0.15);
  EXPECT_LT(curve->MeanRelativeRate(), 0.35);
}

TEST(LoadCurve, MalformedInputIsAnErrorNamingFileLineAndField) {
  const auto error = [](const std::string& text) {
    auto curve = ParseAlibabaGenaiQps(text, "qps.csv");
    return curve ? std::string("no error") : curve.error().message;
  };
  std::string text =
      std::string(kHeader) + "10.0,1,a,Generative Requests\nsoon,1,a,Generative Requests\n";
  EXPECT_EQ(error(text), "qps.csv:3: field 'timestamp_anon': expected a number, got \"soon\"");
  text = std::string(kHeader) + "10.0,-1,a,Generative Requests\n";
  EXPECT_EQ(error(text), "qps.csv:2: field 'value': expected a rate >= 0, got \"-1\"");
  text = std::string(kHeader) + "-5,1,a,Generative Requests\n";
  EXPECT_EQ(error(text),
            "qps.csv:2: field 'timestamp_anon': expected seconds in [0, 10000000000], got \"-5\"");
  text = std::string(kHeader) + "10.0,1,,API Requests\n";
  EXPECT_EQ(
      error(text),
      "qps.csv: expected rows of request_type \"Generative Requests\" with a value, got none");
  text = std::string(kHeader) + "10.0,1,a,Generative Requests\n600.0,1,a,Generative Requests\n";
  EXPECT_EQ(error(text), "qps.csv: expected samples over at least 15 minutes, got 590 s");
  text = std::string(kHeader) + "0,0,a,Generative Requests\n1000,0,a,Generative Requests\n";
  EXPECT_EQ(error(text), "qps.csv: expected a positive rate somewhere, got none");
  EXPECT_NE(error("timestamp_anon,value\n1,1\n").find("request_type"), std::string::npos);
  auto unknown = LoadLoadCurve("azure:qps.csv");
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message,
            "load curve: expected a format of alibaba-genai, got \"azure\"");
  auto missing = LoadLoadCurve("alibaba-genai:/nonexistent/qps.csv");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
}

}  // namespace
}  // namespace headroom::sim
