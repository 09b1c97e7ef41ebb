#include "sim/report/text_table.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace headroom::sim {
namespace {

enum class Align { kLeft, kRight };

struct Column {
  std::string_view title;
  Align align;
};

constexpr std::array<Column, 15> kColumns = {{
    {"policy", Align::kLeft},
    {"alloc", Align::kRight},
    {"wait mean", Align::kRight},
    {"wait p50", Align::kRight},
    {"wait p95", Align::kRight},
    {"wait p99", Align::kRight},
    {"jct mean", Align::kRight},
    {"jct p95", Align::kRight},
    {"bsld mean", Align::kRight},
    {"frag", Align::kRight},
    {"completed", Align::kRight},
    {"unplaced", Align::kRight},
    {"makespan", Align::kRight},
    {"1-block", Align::kRight},
    {"migrations", Align::kRight},
}};

using Row = std::array<std::string, kColumns.size()>;

// Promise 3: a name with a newline or escape sequence must not break the table.
std::string Printable(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7F) c = '?';
  }
  return out;
}

size_t DisplayWidth(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

std::string Ratio(double value) {
  if (!std::isfinite(value)) return "-";
  return fmt::format("{:.2f}", value);
}

Row PolicyRow(const PolicyRun& run) {
  const PolicyMetrics& m = run.metrics;
  return Row{
      Printable(run.name),
      FormatPercent(m.allocation_rate),
      FormatDuration(m.wait_s.mean),
      FormatDuration(m.wait_s.p50),
      FormatDuration(m.wait_s.p95),
      FormatDuration(m.wait_s.p99),
      FormatDuration(m.jct_s.mean),
      FormatDuration(m.jct_s.p95),
      Ratio(m.bounded_slowdown.mean),
      FormatPercent(m.fragmentation_rate),
      fmt::format("{}", m.jobs_completed),
      fmt::format("{}", m.jobs_unplaced),
      FormatDuration(m.makespan_s),
      m.multi_node_jobs == 0 ? "-" : FormatPercent(m.multi_node_within_one_block),
      m.migrations == 0
          ? "0"
          : fmt::format("{} ({:.1f} dev-h)", m.migrations, m.migration_cost_device_hours),
  };
}

std::string HeaderLine(const RunReport& report) {
  const ClusterSummary& c = report.cluster;
  const WorkloadSummary& w = report.workload;
  std::string skipped;
  if (w.skipped_rows > 0) skipped = fmt::format(", {} rows skipped", w.skipped_rows);
  if (w.elastic_jobs > 0) skipped += fmt::format(", {} elastic", w.elastic_jobs);
  return Printable(fmt::format(
      "cluster {} ({} devices, {} nodes) | workload {} {} ({} jobs{}) | offered load {} "
      "(load scale {}) | seed {}",
      c.source, c.devices, c.nodes, w.format, w.source, w.jobs, skipped, Ratio(w.offered_load),
      Ratio(w.load_scale), report.seed));
}

void AppendRow(std::string& out, const Row& row,
               const std::array<size_t, kColumns.size()>& widths) {
  std::string line;
  for (size_t i = 0; i < row.size(); ++i) {
    if (i > 0) line += "  ";
    const std::string padding(widths[i] - DisplayWidth(row[i]), ' ');
    line += kColumns[i].align == Align::kLeft ? row[i] + padding : padding + row[i];
  }
  while (!line.empty() && line.back() == ' ') line.pop_back();
  out += line;
  out += '\n';
}

}  // namespace

std::string FormatDuration(double seconds) {
  if (!std::isfinite(seconds)) return "-";
  if (seconds < 0) return "-" + FormatDuration(-seconds);
  // Each unit is chosen by the value after rounding, so 59.7 s prints as "1.0m", not "60s".
  if (seconds < 0.05) return "0s";
  if (seconds < 9.95) return fmt::format("{:.1f}s", seconds);
  if (seconds < 59.5) return fmt::format("{:.0f}s", seconds);
  const double minutes = seconds / 60;
  if (minutes < 59.95) return fmt::format("{:.1f}m", minutes);
  const double hours = seconds / 3600;
  if (hours < 23.95) return fmt::format("{:.1f}h", hours);
  const double days = seconds / 86400;
  if (days < 99.95) return fmt::format("{:.1f}d", days);
  return fmt::format("{:.0f}d", days);
}

std::string FormatPercent(double fraction) {
  if (!std::isfinite(fraction)) return "-";
  std::string text = fmt::format("{:.1f}%", fraction * 100);
  if (text == "-0.0%") text = "0.0%";
  return text;
}

std::string WriteTextTable(const RunReport& report) {
  std::vector<Row> rows;
  Row titles;
  for (size_t i = 0; i < kColumns.size(); ++i) titles[i] = std::string(kColumns[i].title);
  rows.push_back(titles);
  for (const PolicyRun& run : report.policies) rows.push_back(PolicyRow(run));

  std::array<size_t, kColumns.size()> widths{};
  for (const Row& row : rows) {
    for (size_t i = 0; i < row.size(); ++i) widths[i] = std::max(widths[i], DisplayWidth(row[i]));
  }
  Row rule;
  for (size_t i = 0; i < kColumns.size(); ++i) rule[i] = std::string(widths[i], '-');

  std::string out = HeaderLine(report) + "\n";
  AppendRow(out, rows.front(), widths);
  AppendRow(out, rule, widths);
  for (size_t r = 1; r < rows.size(); ++r) AppendRow(out, rows[r], widths);
  if (report.policies.empty()) out += "(no policies were run)\n";
  for (const PolicyRun& run : report.policies) {
    if (!run.services) continue;
    const ServiceMetrics& s = *run.services;
    out += fmt::format(
        "services under {}: SLO attainment {:.3f}%, latency p50 {} p99 {}, scale-up to serving "
        "p95 {}, {} replica preemptions, training goodput {:.0f} device-h\n",
        run.name, s.requests.slo_attainment * 100, FormatDuration(s.requests.latency_s.p50),
        FormatDuration(s.requests.latency_s.p99), FormatDuration(s.scale_up_to_serving_s.p95),
        s.replica_preemptions, run.metrics.goodput_device_hours);
  }
  for (const PolicyRun& run : report.policies) {
    if (!run.failures) continue;
    const FailureMetrics& f = *run.failures;
    out += fmt::format(
        "faults under {}: {} node faults, {} interruptions, {} jobs started on faulty nodes, "
        "{:.1f} device-h lost, {:.1f} device-h of checks, mean time to recovery {}, effective "
        "training time {}\n",
        run.name, f.node_faults, f.interruptions, f.jobs_started_on_faulty, f.lost_device_hours,
        f.check_device_hours, FormatDuration(f.recovery_s.mean),
        f.effective_training_time < 0 ? std::string("-")
                                      : fmt::format("{:.2f}%", f.effective_training_time * 100));
    if (f.warnings + f.false_warnings > 0) {
      out += fmt::format(
          "warnings under {}: {} before faults, {} false; {} diagnoses found {} faults\n", run.name,
          f.warnings, f.false_warnings, f.diagnoses, f.diagnoses_found);
    }
  }
  return out;
}

}  // namespace headroom::sim
