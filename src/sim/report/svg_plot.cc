#include "sim/report/svg_plot.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <optional>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "base/check.h"

namespace headroom::sim::svg {
namespace {

// Pixel layout around the plot area: room for the title above, tick labels and the axis
// label below and to the left, and the legend to the right.
constexpr double kMarginLeft = 68;
constexpr double kMarginTop = 40;
constexpr double kMarginBottom = 50;
constexpr double kLegendWidth = 210;
constexpr size_t kLegendMaxChars = 22;
constexpr int kMaxGeneratedTicks = 8;

constexpr std::array<std::string_view, 8> kPalette = {
    "#0072B2",  // Blue.
    "#D55E00",  // Vermillion.
    "#009E73",  // Bluish green.
    "#E69F00",  // Orange.
    "#CC79A7",  // Reddish purple.
    "#56B4E9",  // Sky blue.
    "#000000",  // Black.
    "#B59F00",  // Okabe-Ito yellow, darkened to stay readable on white.
};
constexpr std::array<std::string_view, 4> kDashes = {"", "7 4", "2 3", "9 3 2 3"};

// The step NiceStep picks, kept as mantissa × 10^exponent so multiples can be computed
// without accumulating error: i × m × 10^e is exact for the integers involved, and dividing
// by 10^-e (exact for the small exponents used) rounds once, correctly.
struct NiceStepParts {
  int64_t mantissa = 1;  // 1, 2 or 5.
  int exponent = 0;

  double Value() const { return Multiple(1); }
  double Multiple(int64_t i) const {
    const double scaled = static_cast<double>(i * mantissa);
    if (exponent >= 0) return scaled * std::pow(10.0, exponent);
    return scaled / std::pow(10.0, -exponent);
  }
};

std::optional<NiceStepParts> ComputeNiceStep(double min, double max, int max_count) {
  const double range = max - min;
  if (!std::isfinite(range) || range <= 0 || max_count <= 0) return std::nullopt;
  const double raw = range / max_count;
  const int exponent = static_cast<int>(std::floor(std::log10(raw)));
  for (int64_t mantissa : {1, 2, 5}) {
    const NiceStepParts parts{.mantissa = mantissa, .exponent = exponent};
    if (parts.Value() >= raw * (1 - 1e-9)) return parts;
  }
  return NiceStepParts{.mantissa = 1, .exponent = exponent + 1};
}

// A usable range: max > min, and min > 0 on a log axis (promise: degenerate data still
// renders, centred on a unit-wide or decade-wide range).
std::pair<double, double> UsableRange(const Axis& axis) {
  double min = axis.min;
  double max = axis.max;
  if (!std::isfinite(min)) min = axis.scale == Scale::kLog10 ? 1 : 0;
  if (!std::isfinite(max)) max = min;
  if (axis.scale == Scale::kLog10) {
    HR_CHECK(min > 0);
    if (max <= min) max = min * 10;
  } else if (max <= min) {
    max = min + 1;
  }
  return {min, max};
}

std::string Coord(double value) {
  std::string text = fmt::format("{:.1f}", value);
  if (text == "-0.0") text = "0.0";
  return text;
}

// Number of UTF-8 code points: bytes that are not continuation bytes.
size_t CodePoints(std::string_view text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

// The first `limit` code points of `text`, with an ellipsis when something was cut.
std::string Abbreviate(std::string_view text, size_t limit) {
  if (CodePoints(text) <= limit) return std::string(text);
  size_t points = 0;
  size_t end = 0;
  for (; end < text.size(); ++end) {
    if ((static_cast<unsigned char>(text[end]) & 0xC0) != 0x80) {
      if (points == limit - 1) break;
      ++points;
    }
  }
  return std::string(text.substr(0, end)) + "\xE2\x80\xA6";  // U+2026 HORIZONTAL ELLIPSIS.
}

std::string SiLabel(double value) {
  static constexpr std::array<std::pair<double, std::string_view>, 3> kUnits = {
      {{1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  for (const auto& [scale, suffix] : kUnits) {
    if (value >= scale) return fmt::format("{:g}{}", value / scale, suffix);
  }
  return fmt::format("{:g}", value);
}

void AppendLine(std::string& out, size_t index, const Line& line, const AxisMap& x_map,
                const AxisMap& y_map) {
  std::string points;
  std::string last;
  size_t count = 0;
  for (const Point& point : line.points) {
    if (!std::isfinite(point.x) || !std::isfinite(point.y)) continue;
    std::string pair = Coord(x_map.ToPixel(point.x)) + "," + Coord(y_map.ToPixel(point.y));
    if (pair == last) continue;  // Same pixel as before: adds bytes, not ink.
    if (!points.empty()) points += ' ';
    points += pair;
    last = std::move(pair);
    ++count;
  }
  if (count == 0) return;
  auto out_it = std::back_inserter(out);
  const std::string_view dash = PaletteDash(index);
  const std::string dash_attr =
      dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", dash);
  fmt::format_to(out_it,
                 "<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.8\" "
                 "stroke-linejoin=\"round\" stroke-linecap=\"round\"{} points=\"{}\">"
                 "<title>{}</title></polyline>\n",
                 PaletteColor(index), dash_attr, points, EscapeXml(line.name));
  if (count == 1) {
    const size_t comma = last.find(',');
    fmt::format_to(out_it, "<circle cx=\"{}\" cy=\"{}\" r=\"2.5\" fill=\"{}\"/>\n",
                   last.substr(0, comma), last.substr(comma + 1), PaletteColor(index));
  }
}

}  // namespace

AxisMap::AxisMap(const Axis& axis, double pixel_from, double pixel_to)
    : scale_(axis.scale), pixel_from_(pixel_from), pixel_to_(pixel_to) {
  std::tie(min_, max_) = UsableRange(axis);
}

double AxisMap::Transform(double value) const {
  return scale_ == Scale::kLog10 ? std::log10(value) : value;
}

double AxisMap::ToPixel(double value) const {
  if (std::isnan(value) || (scale_ == Scale::kLog10 && value <= min_)) value = min_;
  value = std::clamp(value, min_, max_);
  const double fraction =
      (Transform(value) - Transform(min_)) / (Transform(max_) - Transform(min_));
  return pixel_from_ + fraction * (pixel_to_ - pixel_from_);
}

double NiceStep(double min, double max, int max_count) {
  const auto parts = ComputeNiceStep(min, max, max_count);
  return parts ? parts->Value() : 1.0;
}

std::vector<double> NiceTicks(double min, double max, int max_count) {
  const auto parts = ComputeNiceStep(min, max, max_count);
  if (!parts) return {};
  const double step = parts->Value();
  const auto first = static_cast<int64_t>(std::ceil(min / step - 1e-6));
  const auto last = static_cast<int64_t>(std::floor(max / step + 1e-6));
  std::vector<double> ticks;
  for (int64_t i = first; i <= last; ++i) ticks.push_back(parts->Multiple(i));
  return ticks;
}

std::vector<double> DecadeTicks(double min, double max) {
  HR_CHECK(min > 0);
  std::vector<double> ticks;
  if (!(max >= min) || !std::isfinite(max)) return ticks;
  const int first = static_cast<int>(std::ceil(std::log10(min) - 1e-9));
  const int last = static_cast<int>(std::floor(std::log10(max) + 1e-9));
  for (int k = first; k <= last; ++k) ticks.push_back(std::pow(10.0, k));
  return ticks;
}

std::string FormatTickLabel(double value, double step) {
  int decimals = 0;
  if (step > 0 && step < 1) decimals = static_cast<int>(std::ceil(-std::log10(step) - 1e-9));
  std::string text = fmt::format("{:.{}f}", value, decimals);
  if (text.front() == '-' && text.find_first_not_of("-0.") == std::string::npos) {
    text.erase(0, 1);
  }
  return text;
}

std::vector<Tick> AxisTicks(const Axis& axis) {
  if (!axis.ticks.empty()) return axis.ticks;
  const auto [min, max] = UsableRange(axis);
  std::vector<Tick> ticks;
  if (axis.scale == Scale::kLog10) {
    for (double value : DecadeTicks(min, max)) ticks.push_back({value, SiLabel(value)});
    return ticks;
  }
  const double step = NiceStep(min, max, kMaxGeneratedTicks);
  for (double value : NiceTicks(min, max, kMaxGeneratedTicks)) {
    ticks.push_back({value, FormatTickLabel(value, step)});
  }
  return ticks;
}

std::string EscapeXml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\t' && c != '\n') {
          out += '?';
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string_view PaletteColor(size_t index) { return kPalette[index % kPalette.size()]; }

std::string_view PaletteDash(size_t index) {
  return kDashes[(index / kPalette.size()) % kDashes.size()];
}

PlotArea PlotAreaOf(const PlotSpec& spec) {
  return PlotArea{.left = kMarginLeft,
                  .top = kMarginTop,
                  .right = std::max(kMarginLeft + 1, spec.width_px - kLegendWidth),
                  .bottom = std::max(kMarginTop + 1, spec.height_px - kMarginBottom)};
}

std::string RenderLinePlot(const PlotSpec& spec) {
  const PlotArea area = PlotAreaOf(spec);
  const AxisMap x_map(spec.x, area.left, area.right);
  const AxisMap y_map(spec.y, area.bottom, area.top);
  std::string out;
  auto it = std::back_inserter(out);

  fmt::format_to(it,
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {0} {1}\" "
                 "width=\"{0}\" height=\"{1}\" role=\"img\" font-family=\"system-ui, "
                 "-apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif\" "
                 "font-size=\"12\">\n",
                 spec.width_px, spec.height_px);
  const std::string title = EscapeXml(spec.title);
  fmt::format_to(it, "<title>{}</title>\n", title);
  fmt::format_to(it, "<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"#ffffff\"/>\n",
                 spec.width_px, spec.height_px);
  fmt::format_to(it,
                 "<text x=\"{}\" y=\"22\" font-size=\"15\" font-weight=\"600\" "
                 "fill=\"#111827\">{}</text>\n",
                 Coord(area.left), title);

  // Grid and tick labels. The grid is drawn first so the data lines sit on top of it.
  out += "<g stroke=\"#e5e7eb\" stroke-width=\"1\">\n";
  const std::vector<Tick> x_ticks = AxisTicks(spec.x);
  const std::vector<Tick> y_ticks = AxisTicks(spec.y);
  for (const Tick& tick : x_ticks) {
    const std::string x = Coord(x_map.ToPixel(tick.value));
    fmt::format_to(it, "<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\"/>\n", x, Coord(area.top),
                   Coord(area.bottom));
  }
  for (const Tick& tick : y_ticks) {
    const std::string y = Coord(y_map.ToPixel(tick.value));
    fmt::format_to(it, "<line x1=\"{1}\" y1=\"{0}\" x2=\"{2}\" y2=\"{0}\"/>\n", y, Coord(area.left),
                   Coord(area.right));
  }
  out += "</g>\n<g fill=\"#374151\">\n";
  for (const Tick& tick : x_ticks) {
    fmt::format_to(it, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                   Coord(x_map.ToPixel(tick.value)), Coord(area.bottom + 17),
                   EscapeXml(tick.label));
  }
  for (const Tick& tick : y_ticks) {
    fmt::format_to(it, "<text x=\"{}\" y=\"{}\" text-anchor=\"end\" dy=\"0.32em\">{}</text>\n",
                   Coord(area.left - 7), Coord(y_map.ToPixel(tick.value)), EscapeXml(tick.label));
  }
  fmt::format_to(it, "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n",
                 Coord((area.left + area.right) / 2), Coord(area.bottom + 40),
                 EscapeXml(spec.x.label));
  const std::string y_label_y = Coord((area.top + area.bottom) / 2);
  fmt::format_to(it,
                 "<text x=\"16\" y=\"{0}\" text-anchor=\"middle\" "
                 "transform=\"rotate(-90 16 {0})\">{1}</text>\n",
                 y_label_y, EscapeXml(spec.y.label));
  out += "</g>\n";

  // Axes: the bottom and left edges of the plot area.
  fmt::format_to(it,
                 "<polyline fill=\"none\" stroke=\"#6b7280\" stroke-width=\"1\" "
                 "points=\"{0},{1} {0},{2} {3},{2}\"/>\n",
                 Coord(area.left), Coord(area.top), Coord(area.bottom), Coord(area.right));

  bool any_point = false;
  for (size_t i = 0; i < spec.lines.size(); ++i) {
    const size_t before = out.size();
    AppendLine(out, i, spec.lines[i], x_map, y_map);
    any_point = any_point || out.size() != before;
  }
  if (!any_point) {
    fmt::format_to(it,
                   "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\" fill=\"#6b7280\">{}</text>\n",
                   Coord((area.left + area.right) / 2), Coord((area.top + area.bottom) / 2),
                   EscapeXml(spec.empty_message));
  }

  // Legend: one swatch and name per line, to the right of the plot area; long names are
  // abbreviated and kept whole in a tooltip.
  for (size_t i = 0; i < spec.lines.size(); ++i) {
    const double y = area.top + 8 + 20 * static_cast<double>(i);
    const std::string_view dash = PaletteDash(i);
    const std::string dash_attr =
        dash.empty() ? std::string() : fmt::format(" stroke-dasharray=\"{}\"", dash);
    fmt::format_to(it,
                   "<g><title>{0}</title><line x1=\"{1}\" y1=\"{2}\" x2=\"{3}\" y2=\"{2}\" "
                   "stroke=\"{4}\" stroke-width=\"3\"{5}/><text x=\"{6}\" y=\"{2}\" "
                   "dy=\"0.32em\" fill=\"#111827\">{7}</text></g>\n",
                   EscapeXml(spec.lines[i].name), Coord(area.right + 16), Coord(y),
                   Coord(area.right + 40), PaletteColor(i), dash_attr, Coord(area.right + 46),
                   EscapeXml(Abbreviate(spec.lines[i].name, kLegendMaxChars)));
  }
  out += "</svg>\n";
  return out;
}

}  // namespace headroom::sim::svg
