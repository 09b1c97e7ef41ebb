// A small SVG line-plot renderer for the HTML report: axes with ticks and labels, one polyline
// per series, a legend, and a linear or base-10 logarithmic x or y axis. It draws exactly what
// it is given — callers convert data to display units (hours, percent) and downsample first.
//
// Promises:
//   1. Output is a single well-formed <svg>…</svg> element with no scripts, no external
//      references and no styles that depend on the surrounding page.
//   2. Output is a pure function of the PlotSpec: coordinates are printed with one decimal,
//      labels are escaped, and nothing reads a clock or a locale.
//   3. Values outside an axis range are clamped to the plot area; NaN and infinite points are
//      skipped, and a log axis maps values <= 0 to its minimum.
//   4. Generated linear ticks are "nice" (1, 2 or 5 × 10^k) and computed as integer multiples
//      of the step, so labels carry no floating-point noise.
// Threading: stateless functions, safe to call from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace headroom::sim::svg {

enum class Scale {
  kLinear,
  kLog10,  // Requires 0 < min < max.
};

struct Tick {
  double value = 0;
  std::string label;
};

struct Axis {
  std::string label;
  double min = 0;
  double max = 1;
  Scale scale = Scale::kLinear;
  // Empty: generated — NiceTicks for a linear axis, powers of ten for a log axis.
  std::vector<Tick> ticks;
};

// Maps data values on `axis` to pixel coordinates: axis.min goes to `pixel_from`, axis.max
// to `pixel_to` (for a y axis pixel_to is usually smaller, as SVG y grows downwards).
class AxisMap {
 public:
  AxisMap(const Axis& axis, double pixel_from, double pixel_to);

  // Clamps `value` into [min, max] first (promise 3).
  double ToPixel(double value) const;

 private:
  double Transform(double value) const;

  Scale scale_;
  double min_;
  double max_;
  double pixel_from_;
  double pixel_to_;
};

// The step for about `max_count` ticks over [min, max]: the smallest of 1, 2 and 5 × 10^k that
// gives no more than `max_count` intervals. Returns 1 for an empty or invalid range.
double NiceStep(double min, double max, int max_count);

// Every multiple of NiceStep(min, max, max_count) inside [min, max] (with a tolerance of a
// millionth of the step at both ends), ascending.
std::vector<double> NiceTicks(double min, double max, int max_count);

// Powers of ten inside [min, max], ascending; requires min > 0.
std::vector<double> DecadeTicks(double min, double max);

// A tick label: `value` with as many decimals as `step` needs (step 0.5 → "2.5", step 20 →
// "40"), without a negative zero.
std::string FormatTickLabel(double value, double step);

// The generated or given ticks of `axis`, labelled.
std::vector<Tick> AxisTicks(const Axis& axis);

// Escapes &, <, >, " and ' for XML and HTML text and attributes; control characters other
// than tab and newline become '?', since XML 1.0 forbids them.
std::string EscapeXml(std::string_view text);

// A fixed, colour-blind-safe palette (Okabe & Ito); index wraps around.
std::string_view PaletteColor(size_t index);
// Lines beyond the palette get a dash pattern so that wrapped colours stay distinguishable.
std::string_view PaletteDash(size_t index);

struct Point {
  double x = 0;
  double y = 0;
};

struct Line {
  std::string name;
  std::vector<Point> points;
};

struct PlotSpec {
  std::string title;  // Drawn above the plot and used as the accessible name.
  int width_px = 960;
  int height_px = 360;
  Axis x;
  Axis y;
  // Line i is drawn in PaletteColor(i) with PaletteDash(i).
  std::vector<Line> lines;
  // Shown in the middle of the plot area when no line has a point.
  std::string empty_message = "no data";
};

// The plot area inside the SVG, in pixels. The legend sits to the right of it.
struct PlotArea {
  double left = 0;
  double top = 0;
  double right = 0;
  double bottom = 0;
};
PlotArea PlotAreaOf(const PlotSpec& spec);

// Renders `spec` as one <svg> element (promise 1) followed by a newline.
std::string RenderLinePlot(const PlotSpec& spec);

}  // namespace headroom::sim::svg
