#include "sim/report/html_report.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "sim/report/facility_section.h"
#include "sim/report/html_parts.h"
#include "sim/report/text_table.h"

namespace headroom::sim {
namespace {

using html::AppendFigure;
using html::Fixed2;
using html::Grouped;
using html::HoursAxis;
using html::kMaxSeriesPoints;
using html::kSecondsPerHour;
using html::LinearAxis;
using html::NewPlot;
using html::SeriesLines;
using html::ZeroBasedAxis;
using svg::EscapeXml;

constexpr size_t kMaxCdfPoints = 500;

constexpr std::string_view kStyle = R"css(
:root { color-scheme: light; }
body { margin: 0; background: #f3f4f6; color: #111827;
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif; }
main { max-width: 1240px; margin: 0 auto; padding: 28px 24px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 0 0 12px; }
.lead { color: #4b5563; margin: 0 0 16px; }
.card { background: #fff; border: 1px solid #e5e7eb; border-radius: 8px; padding: 18px 20px;
  margin: 18px 0; }
.facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr));
  gap: 14px 28px; margin: 0; }
.facts dt { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: #6b7280; }
.facts dd { margin: 2px 0 0; }
.src { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 12.5px;
  color: #374151; word-break: break-all; }
.muted { color: #6b7280; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 13px;
  font-variant-numeric: tabular-nums; }
th, td { padding: 6px 7px; border-bottom: 1px solid #e5e7eb; text-align: right;
  white-space: nowrap; }
thead th { font-size: 12px; color: #4b5563; font-weight: 600; vertical-align: bottom; }
thead th.group { text-align: center; border-bottom: 1px solid #d1d5db; }
th.name, td.name { text-align: left; white-space: normal; min-width: 150px; }
tbody tr:nth-child(even) { background: #f9fafb; }
.desc { display: block; color: #6b7280; font-size: 12px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px;
  margin-right: 6px; }
.note { color: #6b7280; font-size: 12.5px; margin: 10px 0 0; }
figure { margin: 0; }
figcaption { color: #6b7280; font-size: 12.5px; margin-top: 6px; }
svg { display: block; max-width: 100%; height: auto; }
footer { color: #9ca3af; font-size: 12px; text-align: center; }
)css";

std::string JoinCounts(const std::vector<std::pair<std::string, uint64_t>>& counts) {
  std::string out;
  for (const auto& [name, count] : counts) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} \xC3\x97 {}", EscapeXml(name), Grouped(count));  // U+00D7 ×.
  }
  return out;
}

void AppendHeader(std::string& out, const RunReport& report) {
  const ClusterSummary& c = report.cluster;
  const WorkloadSummary& w = report.workload;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "<header>\n<h1>headroom simulation report</h1>\n<p class=\"lead\">{} "
                 "{} compared on the same cluster and workload.</p>\n",
                 report.policies.size(), report.policies.size() == 1 ? "policy" : "policies");
  out += "<div class=\"card\"><dl class=\"facts\">\n";

  std::string levels;
  for (const std::string& level : c.levels) {
    if (!levels.empty()) levels += " \xE2\x86\x92 ";  // U+2192 →.
    levels += EscapeXml(level);
  }
  fmt::format_to(it,
                 "<div><dt>Cluster</dt><dd>{} devices on {} nodes<br><span class=\"src\">{}"
                 "</span>",
                 Grouped(c.devices), Grouped(c.nodes), EscapeXml(c.source));
  if (!levels.empty()) fmt::format_to(it, "<br><span class=\"muted\">levels: {}</span>", levels);
  if (!c.devices_by_model.empty()) {
    fmt::format_to(it, "<br><span class=\"muted\">models: {}</span>",
                   JoinCounts(c.devices_by_model));
  }
  out += "</dd></div>\n";

  fmt::format_to(it,
                 "<div><dt>Workload</dt><dd>{} jobs, format {}<br><span class=\"src\">{}"
                 "</span><br><span class=\"muted\">arrivals span {}</span>",
                 Grouped(w.jobs), EscapeXml(w.format), EscapeXml(w.source),
                 FormatDuration(w.arrival_span_s));
  if (w.skipped_rows > 0) {
    fmt::format_to(it, "<br><span class=\"muted\">{} rows skipped", Grouped(w.skipped_rows));
    if (!w.skipped_reasons.empty()) fmt::format_to(it, ": {}", JoinCounts(w.skipped_reasons));
    out += "</span>";
  }
  out += "</dd></div>\n";

  fmt::format_to(it,
                 "<div><dt>Load</dt><dd>offered load {}<br><span class=\"muted\">device-time "
                 "demanded \xC3\xB7 (capacity \xC3\x97 arrival span)</span><br>load scale {}"
                 "</dd></div>\n",
                 Fixed2(w.offered_load), Fixed2(w.load_scale));
  if (w.elastic_jobs > 0) {
    fmt::format_to(it, "<div><dt>Elastic</dt><dd>{} jobs may run with fewer tasks</dd></div>\n",
                   w.elastic_jobs);
  }
  fmt::format_to(it, "<div><dt>Seed</dt><dd>{}</dd></div>\n", report.seed);
  out += "</dl></div>\n</header>\n";
}

void AppendMetricsTable(std::string& out, const RunReport& report) {
  auto it = std::back_inserter(out);
  out +=
      "<section class=\"card\">\n<h2>Policies side by side</h2>\n<div class=\"scroll\">"
      "<table>\n<thead>\n<tr><th class=\"name\" rowspan=\"2\">Policy</th>"
      "<th rowspan=\"2\">Allocation</th><th class=\"group\" colspan=\"4\">Queue wait</th>"
      "<th class=\"group\" colspan=\"2\">Job completion time</th>"
      "<th rowspan=\"2\">Bounded<br>slowdown</th><th rowspan=\"2\">Fragmen&shy;tation</th>"
      "<th rowspan=\"2\">Completed</th><th rowspan=\"2\">Unplaced</th>"
      "<th rowspan=\"2\">Makespan</th><th rowspan=\"2\">Placement<br>slowdown</th>"
      "<th rowspan=\"2\">Multi-node<br>in one block</th>"
      "<th rowspan=\"2\">Migrations<br>(device-h)</th></tr>\n"
      "<tr><th>mean</th><th>p50</th><th>p95</th><th>p99</th><th>mean</th><th>p95</th></tr>\n"
      "</thead>\n<tbody>\n";
  for (size_t i = 0; i < report.policies.size(); ++i) {
    const PolicyRun& run = report.policies[i];
    const PolicyMetrics& m = run.metrics;
    fmt::format_to(it,
                   "<tr><td class=\"name\"><span class=\"swatch\" style=\"background:{}\">"
                   "</span><strong>{}</strong><span class=\"desc\">{}</span></td>",
                   svg::PaletteColor(i), EscapeXml(run.name), EscapeXml(run.description));
    fmt::format_to(
        it,
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{}</td><td>{}</td><td>{}</td></tr>\n",
        FormatPercent(m.allocation_rate), FormatDuration(m.wait_s.mean),
        FormatDuration(m.wait_s.p50), FormatDuration(m.wait_s.p95), FormatDuration(m.wait_s.p99),
        FormatDuration(m.jct_s.mean), FormatDuration(m.jct_s.p95), Fixed2(m.bounded_slowdown.mean),
        FormatPercent(m.fragmentation_rate), Grouped(m.jobs_completed), Grouped(m.jobs_unplaced),
        FormatDuration(m.makespan_s), Fixed2(m.mean_slowdown_from_placement),
        m.multi_node_jobs == 0 ? std::string("-") : FormatPercent(m.multi_node_within_one_block),
        fmt::format("{} ({:.1f})", Grouped(m.migrations), m.migration_cost_device_hours));
  }
  if (report.policies.empty()) {
    out += "<tr><td class=\"name\" colspan=\"16\">No policies were run.</td></tr>\n";
  }
  out +=
      "</tbody>\n</table></div>\n<p class=\"note\">Allocation: time-weighted mean of allocated "
      "\xC3\xB7 total devices over the arrival window (first to last arrival). Bounded slowdown: "
      "max(1, (wait + run) \xC3\xB7 max(run, 10 s)), mean over jobs; wait is all the time a "
      "job was pending, after each preemption too, run the time it held devices. Fragmentation: "
      "time-weighted mean of free devices the queue head cannot use \xC3\xB7 total devices. "
      "Unplaced: jobs never started by the end of the run. Placement slowdown: mean runtime "
      "stretch from placement (actual \xC3\xB7 compact runtime) over completed jobs. Multi-node "
      "in one block: share of jobs started on more than one node whose nodes share one domain "
      "of the deepest topology level. Migrations: jobs moved to defragment, and their "
      "checkpoint + restart cost in device-hours.</p>\n"
      "</section>\n";
}

void AppendAllocationPlot(std::string& out, const RunReport& report) {
  svg::PlotSpec spec = NewPlot("Allocation over time");
  spec.lines = SeriesLines(report, [](const SeriesPoint& p) { return p.allocation * 100; });
  spec.x = HoursAxis(spec.lines);
  spec.y = LinearAxis("allocated devices (%)", 0, 100);
  AppendFigure(out, spec,
               "Allocated \xC3\xB7 total devices on the sampling grid, averaged into at most "
               "600 points per policy.");
}

void AppendWaitCdfPlot(std::string& out, const RunReport& report) {
  svg::PlotSpec spec = NewPlot("CDF of queue wait");
  double max_wait_s = 1;
  for (const PolicyRun& run : report.policies) {
    spec.lines.push_back({run.name, WaitCdfPoints(run.sorted_wait_s, kMaxCdfPoints)});
    for (const svg::Point& p : spec.lines.back().points) max_wait_s = std::max(max_wait_s, p.x);
  }
  // Human tick marks on the log axis; the axis ends at the first mark past the longest wait.
  static constexpr std::array<std::pair<double, std::string_view>, 10> kMarks = {{
      {1, "1s"},
      {10, "10s"},
      {60, "1m"},
      {600, "10m"},
      {3600, "1h"},
      {36000, "10h"},
      {86400, "1d"},
      {864000, "10d"},
      {8640000, "100d"},
      {86400000, "1000d"},
  }};
  spec.x = LinearAxis("queue wait (log scale; waits under 1 s drawn at 1 s)", 1, 60);
  spec.x.scale = svg::Scale::kLog10;
  for (const auto& [seconds, label] : kMarks) {
    spec.x.ticks.push_back({seconds, std::string(label)});
    spec.x.max = seconds;
    if (seconds >= max_wait_s && seconds >= 60) break;
  }
  spec.y = LinearAxis("fraction of started jobs", 0, 1);
  spec.empty_message = "no job started";
  AppendFigure(out, spec,
               "Fraction of started jobs that waited at most x; jobs never started are not in "
               "the curve (see Unplaced).");
}

void AppendFragmentationPlot(std::string& out, const RunReport& report) {
  svg::PlotSpec spec = NewPlot("Fragmentation over time");
  spec.lines = SeriesLines(report, [](const SeriesPoint& p) { return p.fragmentation * 100; });
  spec.x = HoursAxis(spec.lines);
  spec.y = ZeroBasedAxis(spec.lines, "fragmented devices (%)", 1, 100);
  AppendFigure(out, spec,
               "Free devices the job at the head of the queue cannot use \xC3\xB7 total "
               "devices.");
}

// One plot per topology level below the root (the root alone when it is the only level).
void AppendLargestBlockPlots(std::string& out, const RunReport& report) {
  size_t level_count = 0;
  for (const PolicyRun& run : report.policies) {
    for (const SeriesPoint& p : run.series) {
      level_count = std::max(level_count, p.largest_free_block_by_level.size());
    }
  }
  for (size_t level = level_count > 1 ? 1 : 0; level < level_count; ++level) {
    const std::string name = level < report.cluster.levels.size() ? report.cluster.levels[level]
                                                                  : fmt::format("level {}", level);
    svg::PlotSpec spec = NewPlot(fmt::format("Largest free block per {} over time", name));
    spec.lines = SeriesLines(report, [level](const SeriesPoint& p) {
      const auto& blocks = p.largest_free_block_by_level;
      return level < blocks.size() ? static_cast<double>(blocks[level]) : 0.0;
    });
    spec.x = HoursAxis(spec.lines);
    spec.y =
        ZeroBasedAxis(spec.lines, "whole free devices", 1, std::numeric_limits<double>::infinity());
    AppendFigure(out, spec,
                 fmt::format("The most whole free devices in any one {} (level {} of the "
                             "topology), averaged like the allocation plot: the largest gang "
                             "that could start inside one {} now.",
                             EscapeXml(name), level, EscapeXml(name)));
  }
}

// Fair share in a run with queues: each queue's decayed usage over its parent's (U)
// over time, against the share S it is entitled to among its siblings.
void AppendFairSharePlot(std::string& out, const PolicyRun& run) {
  svg::PlotSpec spec = NewPlot(fmt::format("Queue usage against fair share ({})", run.name));
  std::string shares;
  for (size_t q = 0; q < run.queues.size(); ++q) {
    std::vector<svg::Point> points;
    for (const SeriesPoint& p : run.series) {
      points.push_back({p.time_s / kSecondsPerHour,
                        100 * (q < p.queue_usage_share.size() ? p.queue_usage_share[q] : 0)});
    }
    const QueueRun& queue = run.queues[q];
    spec.lines.push_back({queue.name, BucketMeans(points, kMaxSeriesPoints)});
    fmt::format_to(std::back_inserter(shares), "{}{} {:.1f}% ({:.0f} devices)",
                   shares.empty() ? "" : ", ", EscapeXml(queue.name), 100 * queue.fair_share,
                   queue.fair_share_devices);
  }
  spec.x = HoursAxis(spec.lines);
  spec.y = ZeroBasedAxis(spec.lines, "share of the parent's usage (%)", 1, 100);
  AppendFigure(out, spec,
               fmt::format("Each queue's decayed usage (half-life: the policy's "
                           "decay_half_life_s) as a share of its parent's: fair share favours a "
                           "queue above its siblings while this stays below its share S. "
                           "S: {}.",
                           shares));
}

// One plot per policy run with queues: the devices each queue holds over time.
void AppendQueueUsagePlots(std::string& out, const RunReport& report) {
  for (const PolicyRun& run : report.policies) {
    if (run.queues.empty()) continue;
    svg::PlotSpec spec = NewPlot(fmt::format("Queue usage over time ({})", run.name));
    std::string guarantees;
    for (size_t q = 0; q < run.queues.size(); ++q) {
      std::vector<svg::Point> points;
      for (const SeriesPoint& p : run.series) {
        points.push_back({p.time_s / kSecondsPerHour,
                          q < p.queue_usage_devices.size() ? p.queue_usage_devices[q] : 0});
      }
      const QueueRun& queue = run.queues[q];
      spec.lines.push_back({queue.name, BucketMeans(points, kMaxSeriesPoints)});
      fmt::format_to(std::back_inserter(guarantees), "{}{} {:g}", guarantees.empty() ? "" : ", ",
                     EscapeXml(queue.name), queue.guaranteed_devices);
      if (queue.limit_devices >= 0) {
        fmt::format_to(std::back_inserter(guarantees), " (limit {:g})", queue.limit_devices);
      }
    }
    spec.x = HoursAxis(spec.lines);
    spec.y = ZeroBasedAxis(spec.lines, "devices in use", 1, 1e12);
    AppendFigure(out, spec,
                 fmt::format("Devices the running jobs of each queue (and the queues below it) "
                             "hold, averaged like the allocation plot. Guaranteed: {}.",
                             guarantees));
    if (run.queues.front().fair_share >= 0) AppendFairSharePlot(out, run);
  }
}

void AppendPendingPlot(std::string& out, const RunReport& report) {
  svg::PlotSpec spec = NewPlot("Pending jobs over time");
  spec.lines =
      SeriesLines(report, [](const SeriesPoint& p) { return static_cast<double>(p.pending_jobs); });
  spec.x = HoursAxis(spec.lines);
  spec.y = ZeroBasedAxis(spec.lines, "pending jobs", 1, std::numeric_limits<double>::infinity());
  AppendFigure(out, spec, "Jobs queued and not yet started, averaged like the allocation plot.");
}

bool HasFacility(const RunReport& report) {
  return std::any_of(report.policies.begin(), report.policies.end(),
                     [](const PolicyRun& run) { return run.facility.energy_kwh > 0; });
}

bool HasServices(const RunReport& report) {
  return std::any_of(report.policies.begin(), report.policies.end(),
                     [](const PolicyRun& run) { return run.services.has_value(); });
}

// Issue 13's figures: the services' requests and replicas beside what training got.
void AppendServicesTable(std::string& out, const RunReport& report) {
  auto it = std::back_inserter(out);
  out +=
      "<section class=\"card\">\n<h2>Inference beside training</h2>\n<div class=\"scroll\">"
      "<table>\n<thead>\n<tr><th class=\"name\">Policy</th><th>SLO<br>attainment</th>"
      "<th>TTFT<br>p99</th><th>Latency<br>p50</th><th>Latency<br>p99</th>"
      "<th>Scale-up to<br>serving p95</th><th>Failed<br>requests</th><th>Replica<br>"
      "preemptions</th><th>Training goodput<br>(device-h)</th><th>Preemptions</th>"
      "<th>Lost to preemption<br>(device-h)</th><th>Allocation</th></tr>\n</thead>\n<tbody>\n";
  for (size_t i = 0; i < report.policies.size(); ++i) {
    const PolicyRun& run = report.policies[i];
    if (!run.services) continue;
    const ServiceMetrics& s = *run.services;
    const PolicyMetrics& m = run.metrics;
    fmt::format_to(it,
                   "<tr><td class=\"name\"><span class=\"swatch\" style=\"background:{}\"></span>"
                   "<strong>{}</strong></td><td>{:.3f}%</td><td>{}</td><td>{}</td><td>{}</td>"
                   "<td>{}</td><td>{}</td><td>{}</td><td>{:.1f}</td><td>{}</td><td>{:.1f}</td>"
                   "<td>{}</td></tr>\n",
                   svg::PaletteColor(i), EscapeXml(run.name), s.requests.slo_attainment * 100,
                   FormatDuration(s.requests.ttft_s.p99), FormatDuration(s.requests.latency_s.p50),
                   FormatDuration(s.requests.latency_s.p99),
                   FormatDuration(s.scale_up_to_serving_s.p95), Grouped(s.requests.failed),
                   Grouped(s.replica_preemptions), m.goodput_device_hours,
                   Grouped(m.preemptions + s.replica_preemptions), m.preemption_lost_device_hours,
                   FormatPercent(m.allocation_rate));
  }
  out +=
      "</tbody>\n</table></div>\n<p class=\"note\">SLO attainment: requests whose time to "
      "first token and time between tokens met the service's SLO \xC3\xB7 all requests (failed "
      "ones count as missed). Scale-up to serving: from the autoscaler's decision to the "
      "replica serving, its model load included. Training goodput: the work at full speed "
      "\xC3\x97 devices that training jobs had done and kept when the services' traces "
      "ended. Preemptions count training jobs and replicas.</p>\n"
      "</section>\n";
}

void AppendServicePlots(std::string& out, const RunReport& report) {
  svg::PlotSpec replicas = NewPlot("Devices held by service replicas");
  replicas.lines = SeriesLines(
      report, [](const SeriesPoint& p) { return static_cast<double>(p.service_devices); });
  replicas.x = HoursAxis(replicas.lines);
  replicas.y = ZeroBasedAxis(replicas.lines, "devices", 1, std::numeric_limits<double>::infinity());
  AppendFigure(out, replicas, "Devices the engine gave inference replicas, loading or serving.");
  const auto devices = static_cast<double>(report.cluster.devices);
  svg::PlotSpec training = NewPlot("Devices held by training");
  training.lines = SeriesLines(report, [devices](const SeriesPoint& p) {
    return std::max(p.allocation * devices - static_cast<double>(p.service_devices), 0.0);
  });
  training.x = HoursAxis(training.lines);
  training.y = LinearAxis("devices", 0, std::max(devices, 1.0));
  AppendFigure(out, training, "Allocated devices less the replicas' devices.");
}

// Issue 14's figures: what node faults cost each policy, and the devices out of service.
void AppendFailures(std::string& out, const RunReport& report) {
  out +=
      "<section class=\"card\">\n<h2>Node faults</h2>\n<div class=\"scroll\"><table>\n<thead>\n"
      "<tr><th class=\"name\">Policy</th><th>Faults</th><th>Interruptions</th><th>Started "
      "on<br>faulty nodes</th><th>Lost<br>(device-h)</th><th>Checks<br>(device-h)</th>"
      "<th>Mean time<br>to recovery</th><th>Effective<br>training time</th></tr>\n</thead>\n"
      "<tbody>\n";
  for (size_t i = 0; i < report.policies.size(); ++i) {
    const PolicyRun& run = report.policies[i];
    if (!run.failures) continue;
    const FailureMetrics& f = *run.failures;
    fmt::format_to(std::back_inserter(out),
                   "<tr><td class=\"name\"><span class=\"swatch\" style=\"background:{}\">"
                   "</span><strong>{}</strong></td><td>{}</td><td>{}</td><td>{}</td><td>{:.1f}</td>"
                   "<td>{:.1f}</td><td>{}</td><td>{}</td></tr>\n",
                   svg::PaletteColor(i), EscapeXml(run.name), Grouped(f.node_faults),
                   Grouped(f.interruptions), Grouped(f.jobs_started_on_faulty), f.lost_device_hours,
                   f.check_device_hours, FormatDuration(f.recovery_s.mean),
                   f.effective_training_time < 0 ? "-" : FormatPercent(f.effective_training_time));
  }
  out +=
      "</tbody>\n</table></div>\n<p class=\"note\">Lost: work since the interrupted jobs' last "
      "checkpoints plus their restart pauses, \xC3\x97 devices. Recovery: interruption to "
      "working again. Effective training time: the share of the large jobs' first start to "
      "completion spent making progress they kept.</p>\n</section>\n";
  svg::PlotSpec down = NewPlot("Devices out of service");
  down.lines =
      SeriesLines(report, [](const SeriesPoint& p) { return static_cast<double>(p.down_devices); });
  down.x = HoursAxis(down.lines);
  down.y = ZeroBasedAxis(down.lines, "devices", 1, std::numeric_limits<double>::infinity());
  AppendFigure(out, down, "Devices on nodes a fault took out of service, not yet repaired.");
}

}  // namespace

std::vector<svg::Point> WaitCdfPoints(const std::vector<double>& sorted_wait_s, size_t max_points) {
  std::vector<double> sorted_copy;
  const std::vector<double>* waits = &sorted_wait_s;
  const bool has_nan = std::any_of(sorted_wait_s.begin(), sorted_wait_s.end(),
                                   [](double w) { return std::isnan(w); });
  if (has_nan || !std::is_sorted(sorted_wait_s.begin(), sorted_wait_s.end())) {
    // NaN has no place on the curve and would break the sort's ordering.
    std::copy_if(sorted_wait_s.begin(), sorted_wait_s.end(), std::back_inserter(sorted_copy),
                 [](double w) { return !std::isnan(w); });
    std::sort(sorted_copy.begin(), sorted_copy.end());
    waits = &sorted_copy;
  }
  const size_t n = waits->size();
  if (n == 0) return {};
  max_points = std::max<size_t>(max_points, 2);
  auto at = [&](size_t rank) { return std::max(1.0, (*waits)[rank]); };

  // One point for where the curve leaves 0, then up to max_points - 1 ranks spread evenly
  // from the first to the last, each at its cumulative fraction (rank + 1) / n.
  std::vector<svg::Point> points{{at(0), 0.0}};
  const size_t samples = std::min(n, max_points - 1);
  for (size_t k = 0; k < samples; ++k) {
    const size_t rank = samples == 1 ? n - 1 : (k * (n - 1) + (samples - 1) / 2) / (samples - 1);
    points.push_back({at(rank), static_cast<double>(rank + 1) / static_cast<double>(n)});
  }
  return points;
}

std::vector<svg::Point> BucketMeans(const std::vector<svg::Point>& points, size_t max_buckets) {
  const size_t n = points.size();
  if (max_buckets == 0 || n <= max_buckets) return points;
  std::vector<svg::Point> out;
  out.reserve(max_buckets);
  for (size_t b = 0; b < max_buckets; ++b) {
    const size_t begin = b * n / max_buckets;
    const size_t end = (b + 1) * n / max_buckets;
    svg::Point sum;
    for (size_t i = begin; i < end; ++i) {
      sum.x += points[i].x;
      sum.y += points[i].y;
    }
    const auto count = static_cast<double>(end - begin);
    out.push_back({sum.x / count, sum.y / count});
  }
  return out;
}

std::string WriteHtmlReport(const RunReport& report) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it,
                 "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                 "<title>headroom simulation report: {} \xC3\x97 {}</title>\n<style>{}</style>\n"
                 "</head>\n<body>\n<main>\n",
                 EscapeXml(report.cluster.source), EscapeXml(report.workload.source), kStyle);
  AppendHeader(out, report);
  AppendMetricsTable(out, report);
  if (HasServices(report)) AppendServicesTable(out, report);
  AppendAllocationPlot(out, report);
  AppendWaitCdfPlot(out, report);
  AppendFragmentationPlot(out, report);
  AppendPendingPlot(out, report);
  if (HasServices(report)) AppendServicePlots(out, report);
  if (report.failures) AppendFailures(out, report);
  if (HasFacility(report)) AppendFacilitySection(out, report);
  AppendQueueUsagePlots(out, report);
  AppendLargestBlockPlots(out, report);
  fmt::format_to(it,
                 "<footer>Generated by headroom sim, seed {}. Same inputs, same report.</footer>\n"
                 "</main>\n</body>\n</html>\n",
                 report.seed);
  return out;
}

}  // namespace headroom::sim
