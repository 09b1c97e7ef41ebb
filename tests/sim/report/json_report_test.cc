#include "sim/report/json_report.h"

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/report/sample_run_report.h"

namespace headroom::sim {
namespace {

using nlohmann::json;

std::vector<std::string> Keys(const nlohmann::ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

TEST(JsonReportTest, WritesEveryRequiredKeyAndValue) {
  const RunReport report = testing::SampleRunReport();
  const json root = json::parse(WriteJsonReport(report));

  const json& cluster = root.at("cluster");
  EXPECT_EQ(cluster.at("devices"), 64);
  EXPECT_EQ(cluster.at("nodes"), 8);
  EXPECT_EQ(cluster.at("source"), "configs/tiny.yaml");
  EXPECT_EQ(cluster.at("levels"), json::array({"rack", "node"}));
  EXPECT_EQ(cluster.at("devices_by_model"), json({{"A100", 32}, {"H100", 32}}));

  const json& workload = root.at("workload");
  EXPECT_EQ(workload.at("format"), "philly");
  EXPECT_EQ(workload.at("source"), "traces/philly_slice.csv");
  EXPECT_EQ(workload.at("jobs"), 120);
  EXPECT_DOUBLE_EQ(workload.at("offered_load").get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(workload.at("load_scale").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(workload.at("arrival_span_s").get<double>(), 86400);
  EXPECT_EQ(workload.at("elastic_jobs"), 0);
  EXPECT_EQ(workload.at("skipped_rows"), 3);
  EXPECT_EQ(workload.at("skipped_reasons"), json({{"bad duration", 2}, {"zero gpus", 1}}));

  EXPECT_EQ(root.at("seed"), 42);
  ASSERT_EQ(root.at("policies").size(), 2u);
  EXPECT_EQ(root["policies"][1].at("name"), "fgd");
  EXPECT_EQ(root["policies"][1].at("description"), "FIFO order, EASY backfill, FGD scorer");
  EXPECT_DOUBLE_EQ(root["policies"][1]["metrics"].at("allocation_rate").get<double>(), 0.375);
  EXPECT_DOUBLE_EQ(root["policies"][1]["metrics"]["wait_s"].at("mean").get<double>(), 62.5);

  const json& policy = root["policies"][0];
  EXPECT_EQ(policy.at("name"), "fifo");
  EXPECT_EQ(policy.at("description"), "FIFO order, no backfill, first fit");
  const json& m = policy.at("metrics");
  EXPECT_DOUBLE_EQ(m.at("allocation_rate").get<double>(), 0.75);
  EXPECT_EQ(
      m.at("wait_s"),
      json({{"mean", 125.0}, {"p50", 30.0}, {"p95", 900.0}, {"p99", 7200.0}, {"max", 9000.0}}));
  EXPECT_EQ(m.at("jct_s"), json({{"mean", 3600.0},
                                 {"p50", 1800.0},
                                 {"p95", 14400.0},
                                 {"p99", 36000.0},
                                 {"max", 40000.0}}));
  EXPECT_EQ(m.at("bounded_slowdown"),
            json({{"mean", 1.5}, {"p50", 1.0}, {"p95", 4.0}, {"p99", 12.25}}));
  EXPECT_DOUBLE_EQ(m.at("fragmentation_rate").get<double>(), 0.125);
  EXPECT_EQ(m.at("jobs_completed"), 118);
  EXPECT_EQ(m.at("jobs_unplaced"), 2);
  EXPECT_DOUBLE_EQ(m.at("makespan_s").get<double>(), 90000);
  EXPECT_DOUBLE_EQ(m.at("mean_slowdown_from_placement").get<double>(), 1.0625);
  EXPECT_EQ(m.at("engine_steps"), 4096);
  EXPECT_EQ(m.at("events"), 12345);

  const json& series = policy.at("series");
  EXPECT_EQ(series.at("time_s"), json::array({0.0, 3600.0, 7200.0, 10800.0, 14400.0}));
  EXPECT_EQ(series.at("allocation"), json::array({0.0, 0.25, 0.5, 0.75, 1.0}));
  EXPECT_EQ(series.at("fragmentation"), json::array({0.0, 0.0625, 0.125, 0.1875, 0.25}));
  EXPECT_EQ(series.at("pending_jobs"), json::array({10, 8, 6, 4, 2}));
  EXPECT_TRUE(series.at("pending_jobs")[0].is_number_integer());
}

TEST(JsonReportTest, KeysComeInContractOrder) {
  const auto root = nlohmann::ordered_json::parse(WriteJsonReport(testing::SampleRunReport()));
  EXPECT_EQ(Keys(root), (std::vector<std::string>{"cluster", "workload", "seed", "policies"}));
  EXPECT_EQ(Keys(root["cluster"]),
            (std::vector<std::string>{"devices", "nodes", "source", "levels", "devices_by_model"}));
  EXPECT_EQ(Keys(root["workload"]),
            (std::vector<std::string>{"format", "source", "jobs", "offered_load", "load_scale",
                                      "arrival_span_s", "elastic_jobs", "skipped_rows",
                                      "skipped_reasons"}));
  const auto& policy = root["policies"][0];
  EXPECT_EQ(Keys(policy),
            (std::vector<std::string>{"name", "description", "metrics", "facility", "series"}));
  EXPECT_EQ(Keys(policy["facility"]),
            (std::vector<std::string>{"throttled_device_h", "energy_kwh", "cooling_energy_kwh",
                                      "useful_device_h_per_kwh", "peak_power_kw",
                                      "power_violations", "power_violation_kw_s", "max_inlet_c",
                                      "inlet_over_limit_zone_s", "devices_per_feed_kw"}));
  EXPECT_EQ(Keys(policy["metrics"]),
            (std::vector<std::string>{"allocation_rate",
                                      "wait_s",
                                      "jct_s",
                                      "bounded_slowdown",
                                      "fragmentation_rate",
                                      "jobs_completed",
                                      "jobs_unplaced",
                                      "makespan_s",
                                      "mean_slowdown_from_placement",
                                      "engine_steps",
                                      "events",
                                      "multi_node_jobs",
                                      "multi_node_within_one_block",
                                      "multi_node_within_one_block_by_level",
                                      "migrations",
                                      "migration_cost_device_hours",
                                      "preemptions",
                                      "preemption_lost_device_hours",
                                      "elastic_resizes",
                                      "power_caps",
                                      "goodput_device_hours"}));
  EXPECT_EQ(Keys(policy["metrics"]["wait_s"]),
            (std::vector<std::string>{"mean", "p50", "p95", "p99", "max"}));
  EXPECT_EQ(Keys(policy["metrics"]["bounded_slowdown"]),
            (std::vector<std::string>{"mean", "p50", "p95", "p99"}));
  EXPECT_EQ(Keys(policy["series"]),
            (std::vector<std::string>{"time_s", "allocation", "fragmentation", "pending_jobs",
                                      "largest_free_block", "power_kw"}));
}

TEST(JsonReportTest, SameInputGivesSameBytesWithTwoSpaceIndentAndTrailingNewline) {
  const std::string first = WriteJsonReport(testing::SampleRunReport());
  const std::string second = WriteJsonReport(testing::SampleRunReport());
  EXPECT_EQ(first, second);
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first.back(), '\n');
  EXPECT_EQ(first.substr(0, 16), "{\n  \"cluster\": {");
}

TEST(JsonReportTest, NanAndInfinityBecomeNull) {
  RunReport report = testing::SampleRunReport();
  report.workload.offered_load = std::numeric_limits<double>::quiet_NaN();
  report.policies[0].metrics.wait_s.p99 = std::numeric_limits<double>::infinity();
  report.policies[0].metrics.makespan_s = -std::numeric_limits<double>::infinity();
  report.policies[0].series[2].allocation = std::numeric_limits<double>::quiet_NaN();
  const std::string text = WriteJsonReport(report);
  EXPECT_EQ(text.find("NaN"), std::string::npos);
  EXPECT_EQ(text.find("nan"), std::string::npos);
  EXPECT_EQ(text.find("inf"), std::string::npos);
  const json root = json::parse(text);  // Throws if the output is not valid JSON.
  EXPECT_TRUE(root["workload"]["offered_load"].is_null());
  EXPECT_TRUE(root["policies"][0]["metrics"]["wait_s"]["p99"].is_null());
  EXPECT_TRUE(root["policies"][0]["metrics"]["makespan_s"].is_null());
  EXPECT_TRUE(root["policies"][0]["series"]["allocation"][2].is_null());
  EXPECT_EQ(root["policies"][0]["series"]["allocation"].size(), 5u);
}

TEST(JsonReportTest, RoundsAwayFloatingPointNoise) {
  EXPECT_EQ(RoundForReport(0.1 + 0.2), 0.3);
  EXPECT_EQ(RoundForReport(0.123456789), 0.123457);
  EXPECT_EQ(RoundForReport(123.4567891), 123.457);
  EXPECT_EQ(RoundForReport(0.000123456789), 0.000123457);
  EXPECT_EQ(RoundForReport(2592000.4), 2592000);  // Large values keep whole seconds.
  EXPECT_EQ(RoundForReport(-1.0000004), -1);
  EXPECT_FALSE(std::signbit(RoundForReport(-0.0)));
  EXPECT_FALSE(std::signbit(RoundForReport(-1e-300 * 1e-300)));
  EXPECT_TRUE(std::isnan(RoundForReport(std::numeric_limits<double>::infinity())));

  RunReport report = testing::SampleRunReport();
  report.policies[0].metrics.allocation_rate = 0.1 + 0.2;
  report.policies[0].metrics.makespan_s = -0.0;
  const std::string text = WriteJsonReport(report);
  EXPECT_NE(text.find("\"allocation_rate\": 0.3,"), std::string::npos);
  EXPECT_NE(text.find("\"makespan_s\": 0.0,"), std::string::npos);
  EXPECT_EQ(text.find("0.30000000000000004"), std::string::npos);
}

TEST(JsonReportTest, EmptyReportAndOddStringsStayValid) {
  RunReport report;
  report.cluster.source = "quote\" backslash\\ newline\n bad utf8 \xFF";
  const json root = json::parse(WriteJsonReport(report));
  EXPECT_TRUE(root["policies"].is_array());
  EXPECT_TRUE(root["policies"].empty());
  EXPECT_TRUE(root["cluster"]["levels"].is_array());
  EXPECT_TRUE(root["cluster"]["devices_by_model"].is_object());
  EXPECT_EQ(root["cluster"]["source"], "quote\" backslash\\ newline\n bad utf8 \xEF\xBF\xBD");
}

}  // namespace
}  // namespace headroom::sim

namespace headroom::sim {
namespace {

TEST(JsonReportTest, WritesFabricBlockAndMigrationMetrics) {
  RunReport report = testing::SampleRunReport();  // Levels "rack", "node".
  PolicyMetrics& m = report.policies[0].metrics;
  m.multi_node_jobs = 8;
  m.multi_node_within_one_block = 0.75;
  m.multi_node_within_one_block_by_level = {1, 0.75};
  m.migrations = 3;
  m.migration_cost_device_hours = 2.2;
  m.preemptions = 4;
  m.preemption_lost_device_hours = 1.5;
  m.goodput_device_hours = 12.25;
  for (size_t i = 0; i < report.policies[0].series.size(); ++i) {
    report.policies[0].series[i].largest_free_block_by_level = {static_cast<uint32_t>(10 + i),
                                                                static_cast<uint32_t>(i)};
  }
  const nlohmann::json root = nlohmann::json::parse(WriteJsonReport(report));
  const nlohmann::json& metrics = root["policies"][0]["metrics"];
  EXPECT_EQ(metrics.at("multi_node_jobs"), 8);
  EXPECT_DOUBLE_EQ(metrics.at("multi_node_within_one_block").get<double>(), 0.75);
  EXPECT_EQ(metrics.at("multi_node_within_one_block_by_level"), nlohmann::json::array({1, 0.75}));
  EXPECT_EQ(metrics.at("migrations"), 3);
  EXPECT_DOUBLE_EQ(metrics.at("migration_cost_device_hours").get<double>(), 2.2);
  EXPECT_EQ(metrics.at("preemptions"), 4);
  EXPECT_DOUBLE_EQ(metrics.at("preemption_lost_device_hours").get<double>(), 1.5);
  EXPECT_DOUBLE_EQ(metrics.at("goodput_device_hours").get<double>(), 12.25);
  EXPECT_FALSE(root["policies"][0].contains("queues"));  // No queues, no key.
  const nlohmann::json& blocks = root["policies"][0]["series"].at("largest_free_block");
  EXPECT_EQ(blocks.at("rack"), nlohmann::json::array({10, 11, 12, 13, 14}));
  EXPECT_EQ(blocks.at("node"), nlohmann::json::array({0, 1, 2, 3, 4}));
  // A run without samples of blocks writes an empty object, and the output stays byte-stable.
  EXPECT_TRUE(root["policies"][1]["series"].at("largest_free_block").empty());
  EXPECT_EQ(WriteJsonReport(report), WriteJsonReport(report));
}

}  // namespace
}  // namespace headroom::sim
