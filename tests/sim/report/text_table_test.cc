#include "sim/report/text_table.h"

#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/report/sample_run_report.h"

namespace headroom::sim {
namespace {

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(TextTableTest, RendersHeaderAndKnownRowExactly) {
  const std::vector<std::string> lines = Lines(WriteTextTable(testing::SampleRunReport()));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[0],
            "cluster configs/tiny.yaml (64 devices, 8 nodes) | workload philly "
            "traces/philly_slice.csv (120 jobs, 3 rows skipped) | offered load 0.80 (load scale "
            "1.50) | seed 42");
  EXPECT_EQ(lines[1],
            "policy  alloc  wait mean  wait p50  wait p95  wait p99  jct mean  jct p95  "
            "bsld mean   frag  completed  unplaced  makespan  1-block  migrations");
  EXPECT_EQ(lines[3],
            "fifo    75.0%       2.1m       30s     15.0m      2.0h      1.0h     4.0h       "
            "1.50  12.5%        118         2      1.0d        -           0");
  EXPECT_EQ(lines[4],
            "fgd     37.5%       1.0m       30s     15.0m      2.0h      1.0h     4.0h       "
            "1.50  12.5%        118         2      1.0d        -           0");
}

TEST(TextTableTest, ColumnsAreAligned) {
  RunReport report = testing::SampleRunReport();
  report.policies[1].name = "a-much-longer-policy-name";
  report.policies[1].metrics.jobs_completed = 1234567;
  report.policies[1].metrics.wait_s.p99 = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::string> lines = Lines(WriteTextTable(report));
  ASSERT_EQ(lines.size(), 5u);
  // The last column is right-aligned, so every table line has the same length, and each
  // column boundary (two spaces) sits at the same offset on every line.
  for (size_t i = 2; i < lines.size(); ++i) {
    EXPECT_EQ(lines[i].size(), lines[1].size()) << lines[i];
    for (size_t c = 0; c + 1 < lines[2].size(); ++c) {
      if (lines[2][c] == ' ' && lines[2][c + 1] == ' ' && c > 0 && lines[2][c - 1] == '-') {
        EXPECT_EQ(lines[i].substr(c, 2), "  ") << "line " << i << " offset " << c;
      }
    }
  }
  EXPECT_NE(lines[4].find("a-much-longer-policy-name"), std::string::npos);
  EXPECT_NE(lines[4].find("1234567"), std::string::npos);
  EXPECT_NE(lines[4].find("  -  "), std::string::npos);  // NaN prints as "-".
}

TEST(TextTableTest, SameInputGivesSameBytes) {
  EXPECT_EQ(WriteTextTable(testing::SampleRunReport()), WriteTextTable(testing::SampleRunReport()));
}

TEST(TextTableTest, NamesCannotBreakLines) {
  RunReport report = testing::SampleRunReport();
  report.policies[0].name = "evil\nname\t";
  const std::vector<std::string> lines = Lines(WriteTextTable(report));
  ASSERT_EQ(lines.size(), 5u);
  EXPECT_EQ(lines[3].substr(0, 10), "evil?name?");
}

TEST(TextTableTest, EmptyReportSaysSo) {
  const std::string text = WriteTextTable(RunReport{});
  EXPECT_NE(text.find("(no policies were run)\n"), std::string::npos);
}

TEST(TextTableTest, FormatsDurationsInHumanUnits) {
  EXPECT_EQ(FormatDuration(0), "0s");
  EXPECT_EQ(FormatDuration(0.01), "0s");
  EXPECT_EQ(FormatDuration(4.24), "4.2s");
  EXPECT_EQ(FormatDuration(12), "12s");
  EXPECT_EQ(FormatDuration(59.7), "1.0m");
  EXPECT_EQ(FormatDuration(204), "3.4m");
  EXPECT_EQ(FormatDuration(7560), "2.1h");
  EXPECT_EQ(FormatDuration(86100), "23.9h");
  EXPECT_EQ(FormatDuration(86300), "1.0d");
  EXPECT_EQ(FormatDuration(129600), "1.5d");
  EXPECT_EQ(FormatDuration(100 * 86400.0), "100d");
  EXPECT_EQ(FormatDuration(-30), "-30s");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::quiet_NaN()), "-");
  EXPECT_EQ(FormatDuration(std::numeric_limits<double>::infinity()), "-");
}

TEST(TextTableTest, FormatsPercent) {
  EXPECT_EQ(FormatPercent(0.7342), "73.4%");
  EXPECT_EQ(FormatPercent(1), "100.0%");
  EXPECT_EQ(FormatPercent(-0.0001), "0.0%");
  EXPECT_EQ(FormatPercent(std::numeric_limits<double>::quiet_NaN()), "-");
}

}  // namespace
}  // namespace headroom::sim
