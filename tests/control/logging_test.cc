#include "control/logging.h"

#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace headroom::control {
namespace {

std::vector<std::pair<LogLevel, std::string>>& Lines() {
  static std::vector<std::pair<LogLevel, std::string>> lines;
  return lines;
}

void Keep(LogLevel level, std::string_view line) { Lines().emplace_back(level, line); }

// Counts how often it is formatted.
struct Costly {
  int* formatted = nullptr;
};

class LoggingTest : public ::testing::Test {
 protected:
  void SetUp() override { Lines().clear(); }
  void TearDown() override { SetLogSink(original_.sink, original_.min_level); }
  void Use(LogLevel min_level) { SetLogSink(&Keep, min_level); }

 private:
  const LogSetting original_ = SetLogSink(&Keep, LogLevel::kInfo);
};

}  // namespace
}  // namespace headroom::control

template <>
struct fmt::formatter<headroom::control::Costly> : fmt::formatter<int> {
  auto format(const headroom::control::Costly& costly, format_context& context) const {
    ++*costly.formatted;
    return fmt::formatter<int>::format(*costly.formatted, context);
  }
};

namespace headroom::control {
namespace {

TEST_F(LoggingTest, EachLineReachesTheSinkFormattedWithItsLevel) {
  Use(LogLevel::kDebug);
  LogDebug("a {}", 1);
  LogInfo("b {:o}", 8);
  LogWarn("c {:.1f}", 0.25);
  LogError("d {}", std::string("e"));
  const std::vector<std::pair<LogLevel, std::string>> expected = {{LogLevel::kDebug, "a 1"},
                                                                  {LogLevel::kInfo, "b 10"},
                                                                  {LogLevel::kWarn, "c 0.2"},
                                                                  {LogLevel::kError, "d e"}};
  EXPECT_EQ(Lines(), expected);
}

TEST_F(LoggingTest, LinesBelowTheLevelAreNeitherFormattedNorWritten) {
  Use(LogLevel::kWarn);
  int formatted = 0;
  LogDebug("{}", Costly{&formatted});
  LogInfo("{}", Costly{&formatted});
  EXPECT_EQ(formatted, 0);
  EXPECT_TRUE(Lines().empty());
  LogWarn("{}", Costly{&formatted});
  EXPECT_EQ(formatted, 1);
  ASSERT_EQ(Lines().size(), 1u);
  EXPECT_EQ(Lines()[0].second, "1");
  EXPECT_FALSE(LogEnabled(LogLevel::kInfo));
  EXPECT_TRUE(LogEnabled(LogLevel::kError));
}

TEST_F(LoggingTest, SettingTheLevelKeepsTheSink) {
  Use(LogLevel::kError);
  SetLogLevel(LogLevel::kInfo);
  LogDebug("dropped");
  LogInfo("kept");
  ASSERT_EQ(Lines().size(), 1u);
  EXPECT_EQ(Lines()[0].second, "kept");
}

TEST_F(LoggingTest, SettingASinkReturnsTheOneItReplaces) {
  Use(LogLevel::kError);
  const LogSetting mine = SetLogSink(&Keep, LogLevel::kDebug);
  EXPECT_EQ(mine.sink, &Keep);
  EXPECT_EQ(mine.min_level, LogLevel::kError);
}

}  // namespace
}  // namespace headroom::control
