// The diagnostics exchange: both bodies round trip, and each malformed one is refused with the
// field it gets wrong.
#include "model/diagnostics_protocol.h"

#include <gtest/gtest.h>

namespace headroom::model {
namespace {

TEST(DiagnosticsProtocol, RequestsAndResultsRoundTrip) {
  auto devices = ParseDiagnose(DiagnoseJson({3, 0, 1023}).dump());
  ASSERT_TRUE(devices.has_value()) << devices.error().message;
  EXPECT_EQ(*devices, (std::vector<uint32_t>{3, 0, 1023}));
  EXPECT_TRUE(ParseDiagnose(R"({"diagnose": []})")->empty());
  const std::vector<DiagnosticsResult> results = {{3, false, "EUD: memory test failed"},
                                                  {4, true, ""}};
  auto parsed = ParseDiagnosticsResults(DiagnosticsResultsJson(results));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(*parsed, results);
}

TEST(DiagnosticsProtocol, MalformedBodiesNameTheField) {
  EXPECT_FALSE(ParseDiagnose("not json").has_value());
  EXPECT_EQ(ParseDiagnose(R"({"diagnose": [1, 1]})").error().message,
            "diagnose[1]: device 1 is listed twice");
  EXPECT_EQ(ParseDiagnose(R"({"diagnose": [-1]})").error().message,
            "diagnose[0]: expected a device index 0..1023, got -1");
  EXPECT_FALSE(ParseDiagnose(R"({"diagnose": [1], "more": 1})").has_value());
  EXPECT_FALSE(ParseDiagnose(R"({"diagnose": 3})").has_value());
  const auto error = [](const char* text) {
    return ParseDiagnosticsResults(nlohmann::json::parse(text)).error().message;
  };
  EXPECT_EQ(error(R"({"results": [{"index": 1024, "passed": true}]})"),
            "results[0].index: expected a device index 0..1023, got 1024");
  EXPECT_EQ(error(R"({"results": [{"index": 1, "passed": "yes"}]})"),
            "results[0].passed: expected true or false, got \"yes\"");
  EXPECT_EQ(error(R"({"results": [{"index": 1, "passed": true, "why": 1}]})"),
            "results[0]: unknown field \"why\"");
  EXPECT_EQ(error(R"({"results": [{"index": 1, "passed": true}, {"index": 1, "passed": true}]})"),
            "results[1].index: device 1 is listed twice");
  EXPECT_EQ(error(R"({"result": []})"), "unknown field \"result\"");
  const std::string long_message = R"({"results": [{"index": 1, "passed": false, "message": ")" +
                                   std::string(1025, 'x') + R"("}]})";
  EXPECT_FALSE(ParseDiagnosticsResults(nlohmann::json::parse(long_message)).has_value());
}

}  // namespace
}  // namespace headroom::model
