#include "sim/report/facility_section.h"

#include <cmath>
#include <iterator>
#include <limits>

#include <fmt/format.h>

#include "sim/report/html_parts.h"
#include "sim/report/svg_plot.h"

namespace headroom::sim {

void AppendFacilitySection(std::string& out, const RunReport& report) {
  out +=
      "<section class=\"card\">\n<h2>The building</h2>\n<div class=\"scroll\"><table>\n<thead>\n"
      "<tr><th "
      "class=\"name\">Policy</th><th>Throttled<br>(device-h)</th><th>Energy<br>(kWh)</"
      "th><th>Cooling<br>(kWh)</th>"
      "<th>Device-h<br>per kWh</th><th>Peak<br>(kW)</th><th>Limits<br>passed</th>"
      "<th>Over limits<br>(kW\xC2\xB7s)</th><th>Hottest<br>inlet (\xC2\xB0"
      "C)</th><th>Inlet over<br>32 \xC2\xB0"
      "C (zone-s)</th></tr>\n</thead>\n<tbody>\n";
  for (size_t i = 0; i < report.policies.size(); ++i) {
    const PolicyRun& run = report.policies[i];
    const FacilitySummary& f = run.facility;
    fmt::format_to(
        std::back_inserter(out),
        "<tr><td class=\"name\"><span class=\"swatch\" style=\"background:{}\">"
        "</span><strong>{}</strong></td><td>{:.1f}</td><td>{:.1f}</td><td>{:.1f}</td><td>{}</td>"
        "<td>{:.1f}</td><td>{}</td><td>{:.0f}</td><td>{}</td><td>{:.0f}</td></tr>\n",
        svg::PaletteColor(i), svg::EscapeXml(run.name), f.throttled_device_h, f.energy_kwh,
        f.cooling_energy_kwh, html::Fixed2(f.useful_device_h_per_kwh), f.peak_power_kw,
        html::Grouped(f.power_violations), f.power_violation_kw_s,
        std::isfinite(f.max_inlet_c) ? fmt::format("{:.1f}", f.max_inlet_c) : "-",
        f.inlet_over_limit_zone_s);
  }
  out +=
      "</tbody>\n</table></div>\n<p class=\"note\">Throttled: busy device-hours in thermal "
      "slowdown or shut down by heat. Energy: the devices' draw (idle, or training at the "
      "default cap, less what heat throttles), integrated. Cooling: its electrical energy at a "
      "chilled-water "
      "CRAC's coefficient of performance. Device-h per kWh: the completed jobs' full-speed "
      "device-hours per kWh of energy. Limits passed: times a power domain's load went past its "
      "limit (docs/facility.md).</p>\n</section>\n";
  svg::PlotSpec power = html::NewPlot("Power drawn by the devices");
  power.lines = html::SeriesLines(report, [](const SeriesPoint& p) { return p.power_kw; });
  power.x = html::HoursAxis(power.lines);
  power.y = html::ZeroBasedAxis(power.lines, "kW", 1, std::numeric_limits<double>::infinity());
  html::AppendFigure(out, power, "All devices' draw; report.json has each top power domain's.");
}

}  // namespace headroom::sim
