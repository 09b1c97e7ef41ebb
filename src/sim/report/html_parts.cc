#include "sim/report/html_parts.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "sim/report/html_report.h"

namespace headroom::sim::html {
namespace {

constexpr int kPlotWidthPx = 1100;
constexpr int kPlotHeightPx = 360;

}  // namespace

std::string Grouped(uint64_t value) {
  std::string digits = fmt::format("{}", value);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string Fixed2(double value) {
  if (!std::isfinite(value)) return "-";
  return fmt::format("{:.2f}", value);
}

svg::PlotSpec NewPlot(std::string title) {
  svg::PlotSpec spec;
  spec.title = std::move(title);
  spec.width_px = kPlotWidthPx;
  spec.height_px = kPlotHeightPx;
  return spec;
}

svg::Axis LinearAxis(std::string label, double min, double max) {
  svg::Axis axis;
  axis.label = std::move(label);
  axis.min = min;
  axis.max = max;
  return axis;
}

std::vector<svg::Line> SeriesLines(const RunReport& report,
                                   const std::function<double(const SeriesPoint&)>& value) {
  std::vector<svg::Line> lines;
  for (const PolicyRun& run : report.policies) {
    std::vector<svg::Point> points;
    points.reserve(run.series.size());
    for (const SeriesPoint& p : run.series) {
      points.push_back({p.time_s / kSecondsPerHour, value(p)});
    }
    lines.push_back({run.name, BucketMeans(points, kMaxSeriesPoints)});
  }
  return lines;
}

svg::Axis HoursAxis(const std::vector<svg::Line>& lines) {
  double min = std::numeric_limits<double>::infinity();
  double max = -std::numeric_limits<double>::infinity();
  for (const svg::Line& line : lines) {
    for (const svg::Point& p : line.points) {
      if (!std::isfinite(p.x)) continue;
      min = std::min(min, p.x);
      max = std::max(max, p.x);
    }
  }
  if (!(max > min)) {
    min = std::isfinite(min) ? min : 0;
    max = min + 1;
  }
  const double step = svg::NiceStep(min, max, 8);
  return LinearAxis("simulated time (hours)", std::floor(min / step + 1e-9) * step,
                    std::ceil(max / step - 1e-9) * step);
}

svg::Axis ZeroBasedAxis(const std::vector<svg::Line>& lines, std::string label, double floor,
                        double ceiling) {
  double max = floor;
  for (const svg::Line& line : lines) {
    for (const svg::Point& p : line.points) {
      if (std::isfinite(p.y)) max = std::max(max, p.y);
    }
  }
  const double step = svg::NiceStep(0, max, 6);
  max = std::min(ceiling, std::ceil(max / step - 1e-9) * step);
  return LinearAxis(std::move(label), 0, max);
}

void AppendFigure(std::string& out, const svg::PlotSpec& spec, std::string_view caption) {
  out += "<section class=\"card\">\n<figure>\n";
  out += svg::RenderLinePlot(spec);
  fmt::format_to(std::back_inserter(out), "<figcaption>{}</figcaption>\n", caption);
  out += "</figure>\n</section>\n";
}

}  // namespace headroom::sim::html
