#include "sim/report/html_report.h"

#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/report/sample_run_report.h"

namespace headroom::sim {
namespace {

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

std::string Without(std::string text, const std::string& needle) {
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at)) {
    text.erase(at, needle.size());
  }
  return text;
}

constexpr int kPlots = 4;  // Allocation, wait CDF, fragmentation, pending jobs.

TEST(HtmlReportTest, HasOneSvgPerPlotAndBalancedTags) {
  const std::string html = WriteHtmlReport(testing::SampleRunReport());
  EXPECT_EQ(html.rfind("<!DOCTYPE html>\n", 0), 0u);
  EXPECT_EQ(Count(html, "<svg"), kPlots);
  EXPECT_EQ(Count(html, "</svg>"), kPlots);
  EXPECT_NE(html.find("Allocation over time"), std::string::npos);
  EXPECT_NE(html.find("CDF of queue wait"), std::string::npos);
  EXPECT_NE(html.find("Fragmentation over time"), std::string::npos);
  for (const std::string tag : {"html", "head", "body", "main", "table", "thead", "tbody",
                                "section", "figure", "style", "title"}) {
    EXPECT_EQ(Count(html, "<" + tag + ">") + Count(html, "<" + tag + " "),
              Count(html, "</" + tag + ">"))
        << tag;
  }
  EXPECT_EQ(Count(html, "<tr>"), Count(html, "</tr>"));
  EXPECT_EQ(html.back(), '\n');
}

// A run that metered the building gets its section: a row per policy and the power plot.
TEST(HtmlReportTest, ShowsTheBuildingWhenARunMeteredIt) {
  RunReport report = testing::SampleRunReport();
  EXPECT_EQ(WriteHtmlReport(report).find("The building"), std::string::npos);
  report.policies[0].facility.energy_kwh = 1234.5;
  report.policies[0].facility.power_violations = 3;
  report.policies[0].facility.max_inlet_c = 27.25;
  for (SeriesPoint& point : report.policies[0].series) point.power_kw = 42;
  const std::string html = WriteHtmlReport(report);
  EXPECT_NE(html.find("<h2>The building</h2>"), std::string::npos);
  EXPECT_NE(html.find("Power drawn by the devices"), std::string::npos);
  EXPECT_EQ(Count(html, "<svg"), kPlots + 1);
  EXPECT_NE(html.find("<td>1234.5</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>3</td><td>0</td><td>27.2</td>"), std::string::npos);
  // Both policies have a row in the building's table too.
  EXPECT_EQ(Count(html, "<tr><td class=\"name\">"), 4u);
}

TEST(HtmlReportTest, SaysWhatWasSimulated) {
  const std::string html = WriteHtmlReport(testing::SampleRunReport());
  for (const char* needle : {"configs/tiny.yaml", "64 devices on 8 nodes", "philly",
                             "traces/philly_slice.csv", "120 jobs", "offered load 0.80",
                             "load scale 1.50", "<dd>42</dd>", "FIFO order, EASY backfill"}) {
    EXPECT_NE(html.find(needle), std::string::npos) << needle;
  }
  // One table row per policy with its metrics, in the table's units.
  EXPECT_EQ(Count(html, "<tr><td class=\"name\">"), 2u);
  EXPECT_NE(html.find("<td>75.0%</td><td>2.1m</td><td>30s</td>"), std::string::npos);
}

TEST(HtmlReportTest, EscapesEveryStringFromTheReport) {
  RunReport report = testing::SampleRunReport();
  const std::string evil = "<script>alert(\"x&y\")</script>'";
  report.policies[0].name = evil;
  report.policies[1].description = evil;
  report.cluster.source = evil;
  report.workload.source = evil;
  report.workload.format = evil;
  report.cluster.levels = {evil};
  report.cluster.devices_by_model = {{evil, 1}};
  report.workload.skipped_reasons = {{evil, 1}};
  const std::string html = WriteHtmlReport(report);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(evil), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;&#39;"),
            std::string::npos);
}

TEST(HtmlReportTest, IsSelfContained) {
  RunReport report = testing::SampleRunReport();
  const std::string html = WriteHtmlReport(report);
  const std::string rest = Without(html, "xmlns=\"http://www.w3.org/2000/svg\"");
  EXPECT_EQ(rest.find("http"), std::string::npos);
  EXPECT_EQ(rest.find("<script"), std::string::npos);
  EXPECT_EQ(rest.find("<link"), std::string::npos);
  EXPECT_EQ(rest.find("src="), std::string::npos);
  EXPECT_EQ(rest.find("url("), std::string::npos);
}

TEST(HtmlReportTest, SameInputGivesSameBytes) {
  EXPECT_EQ(WriteHtmlReport(testing::SampleRunReport()),
            WriteHtmlReport(testing::SampleRunReport()));
}

TEST(HtmlReportTest, RendersEmptyReport) {
  const std::string html = WriteHtmlReport(RunReport{});
  EXPECT_EQ(Count(html, "<svg"), kPlots);
  EXPECT_NE(html.find("No policies were run."), std::string::npos);
}

TEST(HtmlReportTest, WaitCdfIsDownsampledAndSpansZeroToOne) {
  std::vector<double> waits;
  for (int i = 0; i < 100000; ++i) waits.push_back(i * 0.5);
  const std::vector<svg::Point> points = WaitCdfPoints(waits, 500);
  ASSERT_EQ(points.size(), 500u);
  EXPECT_DOUBLE_EQ(points.front().x, 1);  // Waits under 1 s are drawn at 1 s.
  EXPECT_DOUBLE_EQ(points.front().y, 0);
  EXPECT_DOUBLE_EQ(points.back().x, 49999.5);
  EXPECT_DOUBLE_EQ(points.back().y, 1);
  for (size_t i = 1; i < points.size(); ++i) {
    EXPECT_LE(points[i - 1].x, points[i].x);
    EXPECT_LE(points[i - 1].y, points[i].y);
  }
}

TEST(HtmlReportTest, WaitCdfOfShortListKeepsEveryRank) {
  const std::vector<svg::Point> points = WaitCdfPoints({30, 0, 600, 5}, 500);  // Unsorted.
  ASSERT_EQ(points.size(), 5u);
  EXPECT_DOUBLE_EQ(points[0].x, 1);
  EXPECT_DOUBLE_EQ(points[0].y, 0);
  EXPECT_DOUBLE_EQ(points[1].x, 1);
  EXPECT_DOUBLE_EQ(points[1].y, 0.25);
  EXPECT_DOUBLE_EQ(points[2].x, 5);
  EXPECT_DOUBLE_EQ(points[3].x, 30);
  EXPECT_DOUBLE_EQ(points[4].x, 600);
  EXPECT_DOUBLE_EQ(points[4].y, 1);
  EXPECT_TRUE(WaitCdfPoints({}, 500).empty());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(WaitCdfPoints({5, nan, 1}, 500).size(), 3u);
}

TEST(HtmlReportTest, LongSeriesAreAveragedIntoBuckets) {
  std::vector<svg::Point> points;
  for (int i = 0; i < 1000; ++i) points.push_back({static_cast<double>(i), i % 2 == 0 ? 0.0 : 1.0});
  const std::vector<svg::Point> buckets = BucketMeans(points, 500);
  ASSERT_EQ(buckets.size(), 500u);
  EXPECT_DOUBLE_EQ(buckets[0].x, 0.5);
  EXPECT_DOUBLE_EQ(buckets[0].y, 0.5);
  EXPECT_DOUBLE_EQ(buckets[499].x, 998.5);
  EXPECT_EQ(BucketMeans(points, 2000).size(), 1000u);
}

}  // namespace
}  // namespace headroom::sim

namespace headroom::sim {
namespace {

TEST(HtmlReportTest, PlotsTheLargestFreeBlockOfEveryLevelBelowTheRoot) {
  RunReport report = testing::SampleRunReport();
  report.cluster.levels = {"cluster", "leaf", "rack"};
  for (PolicyRun& run : report.policies) {
    for (SeriesPoint& point : run.series) point.largest_free_block_by_level = {64, 32, 16};
    run.metrics.multi_node_jobs = 4;
    run.metrics.multi_node_within_one_block = 0.5;
    run.metrics.migrations = 2;
    run.metrics.migration_cost_device_hours = 1.3;
  }
  const std::string html = WriteHtmlReport(report);
  EXPECT_EQ(Count(html, "<svg"), kPlots + 2);
  EXPECT_NE(html.find("Largest free block per leaf over time"), std::string::npos);
  EXPECT_NE(html.find("Largest free block per rack over time"), std::string::npos);
  EXPECT_EQ(html.find("Largest free block per cluster"), std::string::npos);
  EXPECT_NE(html.find("<td>50.0%</td><td>2 (1.3)</td>"), std::string::npos);
  EXPECT_EQ(html, WriteHtmlReport(report));
}

}  // namespace
}  // namespace headroom::sim
