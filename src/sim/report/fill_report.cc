#include "sim/report/fill_report.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sim/report/json_report.h"
#include "sim/report/svg_plot.h"

namespace headroom::sim {
namespace {

SeedSpread Spread(std::vector<double> values) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return std::isnan(v); }),
               values.end());
  if (values.empty()) return {nan, nan, nan};
  std::sort(values.begin(), values.end());
  const size_t n = values.size();
  const double median = n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
  return {median, values.front(), values.back()};
}

template <typename Field>
SeedSpread SpreadAt(const FillPolicyResult& result, int pct, Field field) {
  std::vector<double> values;
  for (const FillCurve& run : result.runs) values.push_back(field(run, static_cast<size_t>(pct)));
  return Spread(std::move(values));
}

nlohmann::json Json(double value) {
  if (std::isnan(value)) return nullptr;
  return RoundForReport(value);
}

nlohmann::json Json(const SeedSpread& spread) {
  return {{"median", Json(spread.median)}, {"min", Json(spread.min)}, {"max", Json(spread.max)}};
}

std::vector<svg::Line> MedianLines(const FillReport& report, int from_pct,
                                   SeedSpread (*at)(const FillPolicyResult&, int)) {
  std::vector<svg::Line> lines;
  for (const FillPolicyResult& result : report.policies) {
    svg::Line line{std::string(engine::SharePolicyName(result.policy)), {}};
    for (int p = from_pct; p <= kFillMaxArrivedPct; ++p) {
      const double median = at(result, p).median;
      if (!std::isnan(median)) line.points.push_back({static_cast<double>(p), median});
    }
    lines.push_back(std::move(line));
  }
  return lines;
}

}  // namespace

SeedSpread UnallocatedAt(const FillPolicyResult& result, int pct) {
  return SpreadAt(result, pct,
                  [](const FillCurve& c, size_t p) { return 100 - c.allocated_pct[p]; });
}

SeedSpread FragmentedAt(const FillPolicyResult& result, int pct) {
  return SpreadAt(result, pct, [](const FillCurve& c, size_t p) { return c.fragmented_pct[p]; });
}

SeedSpread FragmentationRatioAt(const FillPolicyResult& result, int pct) {
  return SpreadAt(result, pct,
                  [](const FillCurve& c, size_t p) { return c.fragmentation_ratio_pct[p]; });
}

std::string WriteFillJsonReport(const FillReport& report) {
  nlohmann::json policies = nlohmann::json::array();
  for (const FillPolicyResult& result : report.policies) {
    nlohmann::json points = nlohmann::json::array();
    for (int pct : kFillReportPoints) {
      points.push_back({{"arrived_pct", pct},
                        {"unallocated_gpu_pct", Json(UnallocatedAt(result, pct))},
                        {"fragmented_gpu_pct", Json(FragmentedAt(result, pct))},
                        {"fragmentation_ratio_pct", Json(FragmentationRatioAt(result, pct))}});
    }
    nlohmann::json unallocated = nlohmann::json::array(), fragmented = nlohmann::json::array();
    for (int p = 0; p <= kFillMaxArrivedPct; ++p) {
      unallocated.push_back(Json(UnallocatedAt(result, p).median));
      fragmented.push_back(Json(FragmentedAt(result, p).median));
    }
    std::vector<double> failed;
    // Each seed's allocation curve, in the unit of the artifact's analysis_allo_discrete.csv,
    // so a run can be held against the artifact's run of the same seed.
    nlohmann::json runs = nlohmann::json::array();
    for (size_t i = 0; i < result.runs.size(); ++i) {
      const FillCurve& run = result.runs[i];
      failed.push_back(static_cast<double>(run.failed));
      nlohmann::json allocated = nlohmann::json::array();
      for (const double value : run.allocated_pct) allocated.push_back(Json(value));
      runs.push_back({{"seed", result.seeds[i]},
                      {"failed_tasks", run.failed},
                      {"allocated_gpu_pct", std::move(allocated)}});
    }
    policies.push_back({{"name", engine::SharePolicyName(result.policy)},
                        {"artifact_policy", engine::SharePolicyArtifactName(result.policy)},
                        {"fill_curve", std::move(points)},
                        {"median_curve",
                         {{"arrived_pct_from", 0},
                          {"unallocated_gpu_pct", std::move(unallocated)},
                          {"fragmented_gpu_pct", std::move(fragmented)}}},
                        {"failed_tasks", Json(Spread(std::move(failed)))},
                        {"runs", std::move(runs)}});
  }
  nlohmann::json seeds = report.policies.empty() ? nlohmann::json::array()
                                                 : nlohmann::json(report.policies.front().seeds);
  const nlohmann::json root = {{"experiment", "fill"},
                               {"cluster", report.cluster_source},
                               {"workload", report.workload_source},
                               {"capacity_gpus", report.capacity_gpus},
                               {"workload_tasks", report.workload_tasks},
                               {"tune", report.tune},
                               {"seeds", std::move(seeds)},
                               {"policies", std::move(policies)}};
  return root.dump(2) + "\n";
}

std::string WriteFillTextTable(const FillReport& report) {
  std::string out = fmt::format("{:<12}", "policy");
  for (int pct : kFillReportPoints) out += fmt::format(" {:>13}", fmt::format("unalloc@{}%", pct));
  out += fmt::format(" {:>13}\n", "fragratio@90%");
  for (const FillPolicyResult& result : report.policies) {
    out += fmt::format("{:<12}", engine::SharePolicyName(result.policy));
    for (int pct : kFillReportPoints)
      out += fmt::format(" {:>13.2f}", UnallocatedAt(result, pct).median);
    out += fmt::format(" {:>13.2f}\n", FragmentationRatioAt(result, 90).median);
  }
  return out;
}

std::string WriteFillHtmlReport(const FillReport& report) {
  svg::PlotSpec unallocated;
  unallocated.title = "Unallocated GPUs (median over seeds) as the workload arrives";
  unallocated.x = {"arrived workload, % of GPU capacity", 80, kFillMaxArrivedPct};
  unallocated.y = {"unallocated GPUs, % of capacity", 0, 25};
  unallocated.lines = MedianLines(report, 80, UnallocatedAt);
  svg::PlotSpec fragmented = unallocated;
  fragmented.title = "Fragmented GPUs (median over seeds), FGD's definition";
  fragmented.y = {"fragmented GPUs, % of capacity", 0, 25};
  fragmented.lines = MedianLines(report, 80, FragmentedAt);

  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>headroom fill "
      "experiment</title><style>body{font-family:sans-serif;margin:2em;max-width:1100px}"
      "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:"
      "right}th:first-child,td:first-child{text-align:left}</style></head><body>\n";
  html += "<h1>Fill experiment</h1>\n<p>";
  html += svg::EscapeXml(fmt::format(
      "Cluster {} ({} GPUs); workload {} ({} tasks) tuned to {}× capacity; {} seeds.",
      report.cluster_source, report.capacity_gpus, report.workload_source, report.workload_tasks,
      report.tune, report.policies.empty() ? 0 : report.policies.front().seeds.size()));
  html += "</p>\n<table><tr><th>policy</th>";
  for (int pct : kFillReportPoints) html += fmt::format("<th>unallocated at {}%</th>", pct);
  html += "<th>frag. ratio at 90%</th></tr>\n";
  for (const FillPolicyResult& result : report.policies) {
    html += "<tr><td>" + svg::EscapeXml(engine::SharePolicyName(result.policy)) + "</td>";
    for (int pct : kFillReportPoints) {
      const SeedSpread s = UnallocatedAt(result, pct);
      html += fmt::format("<td>{:.2f} ({:.2f}–{:.2f})</td>", s.median, s.min, s.max);
    }
    html += fmt::format("<td>{:.1f}%</td></tr>\n", FragmentationRatioAt(result, 90).median);
  }
  html += "</table>\n";
  html += svg::RenderLinePlot(unallocated);
  html += svg::RenderLinePlot(fragmented);
  html += "</body></html>\n";
  return html;
}

}  // namespace headroom::sim
