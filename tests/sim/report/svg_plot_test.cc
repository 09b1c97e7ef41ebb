#include "sim/report/svg_plot.h"

#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace headroom::sim::svg {
namespace {

size_t Count(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) {
    ++count;
  }
  return count;
}

Axis MakeAxis(double min, double max, Scale scale = Scale::kLinear) {
  Axis axis;
  axis.min = min;
  axis.max = max;
  axis.scale = scale;
  return axis;
}

TEST(SvgPlotTest, NiceStepPicksOneTwoOrFiveTimesAPowerOfTen) {
  EXPECT_DOUBLE_EQ(NiceStep(0, 100, 8), 20);
  EXPECT_DOUBLE_EQ(NiceStep(0, 100, 10), 10);
  EXPECT_DOUBLE_EQ(NiceStep(0, 1, 5), 0.2);
  EXPECT_DOUBLE_EQ(NiceStep(0, 7, 8), 1);
  EXPECT_DOUBLE_EQ(NiceStep(0, 30, 8), 5);
  EXPECT_DOUBLE_EQ(NiceStep(0, 0.03, 6), 0.005);
  EXPECT_DOUBLE_EQ(NiceStep(5, 5, 8), 1);  // Empty range.
}

TEST(SvgPlotTest, NiceTicksAreExactMultiplesInsideTheRange) {
  EXPECT_EQ(NiceTicks(0, 100, 8), (std::vector<double>{0, 20, 40, 60, 80, 100}));
  // Computed as 3 / 10 rather than 3 × 0.1, so they equal the literals exactly.
  EXPECT_EQ(NiceTicks(0, 1, 5), (std::vector<double>{0, 0.2, 0.4, 0.6, 0.8, 1.0}));
  EXPECT_EQ(NiceTicks(0.05, 0.35, 3), (std::vector<double>{0.1, 0.2, 0.3}));
  EXPECT_EQ(NiceTicks(-7, 13, 4), (std::vector<double>{-5, 0, 5, 10}));
  EXPECT_TRUE(NiceTicks(1, 1, 5).empty());
}

TEST(SvgPlotTest, DecadeTicksArePowersOfTenInRange) {
  EXPECT_EQ(DecadeTicks(1, 5000), (std::vector<double>{1, 10, 100, 1000}));
  EXPECT_EQ(DecadeTicks(0.5, 20), (std::vector<double>{1, 10}));
  EXPECT_EQ(DecadeTicks(0.01, 0.1), (std::vector<double>{0.01, 0.1}));
}

TEST(SvgPlotTest, TickLabelsUseTheDecimalsTheStepNeeds) {
  EXPECT_EQ(FormatTickLabel(40, 20), "40");
  EXPECT_EQ(FormatTickLabel(2.5, 0.5), "2.5");
  EXPECT_EQ(FormatTickLabel(0.6, 0.2), "0.6");
  EXPECT_EQ(FormatTickLabel(0.15, 0.05), "0.15");
  EXPECT_EQ(FormatTickLabel(-0.0, 1), "0");
  EXPECT_EQ(FormatTickLabel(-5, 5), "-5");

  std::vector<Tick> ticks = AxisTicks(MakeAxis(1, 100000, Scale::kLog10));
  ASSERT_EQ(ticks.size(), 6u);
  EXPECT_EQ(ticks[0].label, "1");
  EXPECT_EQ(ticks[3].label, "1k");
  EXPECT_EQ(ticks[5].label, "100k");

  Axis given = MakeAxis(0, 10);
  given.ticks = {{5, "five"}};
  ASSERT_EQ(AxisTicks(given).size(), 1u);
  EXPECT_EQ(AxisTicks(given)[0].label, "five");
}

TEST(SvgPlotTest, LinearAxisMapsDataToPixels) {
  const AxisMap x(MakeAxis(0, 10), 100, 200);
  EXPECT_DOUBLE_EQ(x.ToPixel(0), 100);
  EXPECT_DOUBLE_EQ(x.ToPixel(5), 150);
  EXPECT_DOUBLE_EQ(x.ToPixel(10), 200);
  EXPECT_DOUBLE_EQ(x.ToPixel(20), 200);  // Clamped.
  EXPECT_DOUBLE_EQ(x.ToPixel(-5), 100);

  const AxisMap y(MakeAxis(0, 1), 300, 50);  // SVG y grows downwards.
  EXPECT_DOUBLE_EQ(y.ToPixel(0), 300);
  EXPECT_DOUBLE_EQ(y.ToPixel(0.25), 237.5);
  EXPECT_DOUBLE_EQ(y.ToPixel(1), 50);

  const AxisMap flat(MakeAxis(3, 3), 0, 100);  // Degenerate range: still finite.
  EXPECT_DOUBLE_EQ(flat.ToPixel(3), 0);
}

TEST(SvgPlotTest, LogAxisMapsDecadesToEqualDistances) {
  const AxisMap x(MakeAxis(1, 1000, Scale::kLog10), 0, 300);
  EXPECT_DOUBLE_EQ(x.ToPixel(1), 0);
  EXPECT_NEAR(x.ToPixel(10), 100, 1e-9);
  EXPECT_NEAR(x.ToPixel(100), 200, 1e-9);
  EXPECT_NEAR(x.ToPixel(1000), 300, 1e-9);
  EXPECT_DOUBLE_EQ(x.ToPixel(0), 0);  // Non-positive values sit at the minimum.
  EXPECT_DOUBLE_EQ(x.ToPixel(0.5), 0);
  EXPECT_DOUBLE_EQ(x.ToPixel(-3), 0);
}

TEST(SvgPlotTest, EscapesMarkupCharacters) {
  EXPECT_EQ(EscapeXml("a<b>&\"c'"), "a&lt;b&gt;&amp;&quot;c&#39;");
  EXPECT_EQ(EscapeXml(std::string("x\x01y\tz", 5)), "x?y\tz");
  EXPECT_EQ(EscapeXml("gr\xC3\xBC\xC3\x9F"), "gr\xC3\xBC\xC3\x9F");
}

TEST(SvgPlotTest, RendersPolylineAtMappedCoordinates) {
  PlotSpec spec;
  spec.title = "Fish & <chips>";
  spec.width_px = 600;
  spec.height_px = 300;
  spec.x = MakeAxis(0, 10);
  spec.y = MakeAxis(0, 100);
  spec.lines = {Line{.name = "first", .points = {{0, 0}, {5, 50}, {10, 100}}},
                Line{.name = "second", .points = {{0, 100}, {10, 0}}}};
  const std::string svg = RenderLinePlot(spec);

  const PlotArea area = PlotAreaOf(spec);
  EXPECT_LT(area.left, area.right);
  EXPECT_LT(area.top, area.bottom);
  const std::string expected_points =
      fmt::format("points=\"{:.1f},{:.1f} {:.1f},{:.1f} {:.1f},{:.1f}\"", area.left, area.bottom,
                  (area.left + area.right) / 2, (area.top + area.bottom) / 2, area.right, area.top);
  EXPECT_NE(svg.find(expected_points), std::string::npos) << svg;
  EXPECT_NE(svg.find(std::string("stroke=\"") + std::string(PaletteColor(0)) + "\""),
            std::string::npos);
  EXPECT_NE(svg.find(std::string("stroke=\"") + std::string(PaletteColor(1)) + "\""),
            std::string::npos);
  EXPECT_NE(svg.find("Fish &amp; &lt;chips&gt;"), std::string::npos);
  EXPECT_EQ(svg.find("<chips>"), std::string::npos);
  EXPECT_EQ(Count(svg, "<svg"), 1u);
  EXPECT_EQ(Count(svg, "</svg>"), 1u);
  EXPECT_EQ(Count(svg, "<polyline"), 3u);                    // Two lines and the axes.
  EXPECT_NE(svg.find(">second</text>"), std::string::npos);  // Legend.
  EXPECT_NE(svg.find(">100</text>"), std::string::npos);     // A y tick label.
  EXPECT_EQ(svg, RenderLinePlot(spec));
}

TEST(SvgPlotTest, SkipsNonFinitePointsAndSaysWhenEmpty) {
  PlotSpec spec;
  spec.lines = {Line{.name = "nan", .points = {{std::numeric_limits<double>::quiet_NaN(), 1}}}};
  spec.empty_message = "nothing to see";
  const std::string svg = RenderLinePlot(spec);
  EXPECT_EQ(Count(svg, "<polyline"), 1u);  // Axes only.
  EXPECT_NE(svg.find("nothing to see"), std::string::npos);
}

TEST(SvgPlotTest, PaletteColoursAreDistinctAndWrapWithDashes) {
  for (size_t i = 0; i < 8; ++i) {
    for (size_t j = i + 1; j < 8; ++j) EXPECT_NE(PaletteColor(i), PaletteColor(j));
    EXPECT_TRUE(PaletteDash(i).empty());
  }
  EXPECT_EQ(PaletteColor(8), PaletteColor(0));
  EXPECT_FALSE(PaletteDash(8).empty());
}

}  // namespace
}  // namespace headroom::sim::svg
