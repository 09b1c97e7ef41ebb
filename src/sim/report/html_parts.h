// The pieces every section of the HTML report is built from (html_report.h): grouped counts,
// plot specs of the report's size, time-series lines bucketed per policy, axes, and a figure
// card. Pure functions; the report's promises (self-contained, deterministic, escaped) hold for
// what they write.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/report/svg_plot.h"
#include "sim/run_result.h"

namespace headroom::sim::html {

inline constexpr size_t kMaxSeriesPoints = 600;
inline constexpr double kSecondsPerHour = 3600;

// "1234567" → "1,234,567": counts read more easily grouped, and this needs no locale.
std::string Grouped(uint64_t value);
std::string Fixed2(double value);  // "-" when not finite.

svg::PlotSpec NewPlot(std::string title);
svg::Axis LinearAxis(std::string label, double min, double max);
// The lines of a time-series plot: `value` of each point against time in hours, bucketed.
std::vector<svg::Line> SeriesLines(const RunReport& report,
                                   const std::function<double(const SeriesPoint&)>& value);
// The x axis of time plots: hours, from the earliest to the latest sample rounded out to
// whole tick steps.
svg::Axis HoursAxis(const std::vector<svg::Line>& lines);
// A y axis from 0 to the largest value rounded up to a tick step, at least `floor`, at most
// `ceiling`.
svg::Axis ZeroBasedAxis(const std::vector<svg::Line>& lines, std::string label, double floor,
                        double ceiling);
void AppendFigure(std::string& out, const svg::PlotSpec& spec, std::string_view caption);

}  // namespace headroom::sim::html
