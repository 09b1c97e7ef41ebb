#include "sim/traces/load_curve.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>

#include "base/check.h"
#include "base/csv.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

// A bin the trace covers for less than this has too few samples to stand for it (a minute's
// samples over a few seconds would read as a spike): it is interpolated instead.
constexpr TimeUs kMinCoveredUs = LoadCurve::kBinUs / 2;

bool IsMissing(std::string_view cell) { return cell.empty() || cell == "NULL" || cell == "None"; }

// The rates of the bins not measured, linear between the nearest measured bins on either side,
// around the day; at least one bin is measured.
std::vector<double> Interpolate(const std::vector<std::optional<double>>& measured) {
  const size_t bins = measured.size();
  std::vector<double> rate(bins);
  for (size_t bin = 0; bin < bins; ++bin) {
    if (measured[bin]) {
      rate[bin] = *measured[bin];
      continue;
    }
    size_t back = 1, ahead = 1;
    while (!measured[(bin + bins - back) % bins]) ++back;
    while (!measured[(bin + ahead) % bins]) ++ahead;
    const double before = *measured[(bin + bins - back) % bins];
    const double after = *measured[(bin + ahead) % bins];
    rate[bin] =
        before + (after - before) * static_cast<double>(back) / static_cast<double>(back + ahead);
  }
  return rate;
}

}  // namespace

double LoadCurve::RelativeRateAt(TimeUs offset_us) const {
  HR_CHECK(relative_rate.size() == kBins);
  TimeUs in_day = offset_us % kPeriodUs;
  if (in_day < 0) in_day += kPeriodUs;
  // Bin centres at (b + 1/2) bins; linear between them.
  const double position =
      static_cast<double>(in_day) / static_cast<double>(kBinUs) - 0.5 + static_cast<double>(kBins);
  const auto lower = static_cast<size_t>(std::floor(position));
  const double share = position - std::floor(position);
  const double a = relative_rate[lower % kBins], b = relative_rate[(lower + 1) % kBins];
  return a + (b - a) * share;
}

double LoadCurve::MeanRelativeRate() const {
  return std::accumulate(relative_rate.begin(), relative_rate.end(), 0.0) /
         static_cast<double>(std::max<size_t>(relative_rate.size(), 1));
}

Result<LoadCurve> LoadLoadCurve(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos || colon + 1 == spec.size()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "load curve: expected FORMAT:PATH (alibaba-genai), got \"{}\"", spec);
  }
  const std::string_view format = spec.substr(0, colon);
  if (format != "alibaba-genai") {
    return MakeError(ErrorCode::kInvalidArgument,
                     "load curve: expected a format of alibaba-genai, got \"{}\"", format);
  }
  const std::string path(spec.substr(colon + 1));
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseAlibabaGenaiQps(*text, path);
}

Result<LoadCurve> ParseAlibabaGenaiQps(std::string_view text, std::string source) {
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  auto timestamp = table->Column("timestamp_anon");
  if (!timestamp) return tl::unexpected(timestamp.error());
  auto value = table->Column("value");
  if (!value) return tl::unexpected(value.error());
  auto request_type = table->Column("request_type");
  if (!request_type) return tl::unexpected(request_type.error());

  struct Sample {
    TimeUs at_us;
    double qps;
  };
  std::vector<Sample> samples;
  for (size_t row = 0; row < table->row_count(); ++row) {
    if (table->Field(row, *request_type) != "Generative Requests") continue;
    if (IsMissing(table->Field(row, *value))) continue;
    auto seconds = table->Double(row, *timestamp);
    if (!seconds) return tl::unexpected(seconds.error());
    if (*seconds < 0 || *seconds > static_cast<double>(kMaxTraceSeconds)) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected seconds in [0, {}], got \"{}\"",
                       table->Where(row, *timestamp), kMaxTraceSeconds,
                       table->Field(row, *timestamp));
    }
    auto qps = table->Double(row, *value);
    if (!qps) return tl::unexpected(qps.error());
    if (*qps < 0) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected a rate >= 0, got \"{}\"",
                       table->Where(row, *value), table->Field(row, *value));
    }
    samples.push_back({static_cast<TimeUs>(std::llround(*seconds * kUsPerSecond)), *qps});
  }
  if (samples.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected rows of request_type \"Generative Requests\" with a value, got "
                     "none",
                     source);
  }
  const auto [first, last] =
      std::minmax_element(samples.begin(), samples.end(),
                          [](const Sample& a, const Sample& b) { return a.at_us < b.at_us; });
  const TimeUs origin_us = first->at_us;
  const TimeUs span_us = last->at_us - origin_us;
  if (span_us < LoadCurve::kBinUs) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected samples over at least 15 minutes, got {} s", source,
                     span_us / kUsPerSecond);
  }

  // Whole days cover every bin alike; the last, partial day bin by bin.
  const TimeUs whole_days = span_us / LoadCurve::kPeriodUs;
  std::vector<double> covered_us(LoadCurve::kBins,
                                 static_cast<double>(whole_days * LoadCurve::kBinUs));
  std::vector<double> sum(LoadCurve::kBins, 0);
  for (TimeUs start = whole_days * LoadCurve::kPeriodUs; start < span_us;
       start += LoadCurve::kBinUs) {
    const auto bin = static_cast<size_t>(start / LoadCurve::kBinUs) % LoadCurve::kBins;
    covered_us[bin] += static_cast<double>(std::min(start + LoadCurve::kBinUs, span_us) - start);
  }
  for (const Sample& sample : samples) {
    sum[static_cast<size_t>((sample.at_us - origin_us) / LoadCurve::kBinUs) % LoadCurve::kBins] +=
        sample.qps;
  }
  std::vector<std::optional<double>> rate(LoadCurve::kBins);
  double peak = 0;
  for (size_t bin = 0; bin < LoadCurve::kBins; ++bin) {
    if (covered_us[bin] < static_cast<double>(kMinCoveredUs)) continue;
    rate[bin] = sum[bin] / (covered_us[bin] / kUsPerSecond);
    peak = std::max(peak, *rate[bin]);
  }
  if (!std::isfinite(peak)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected rates whose sum over 15 minutes is finite", source);
  }
  if (!(peak > 0)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected a positive rate somewhere, got none", source);
  }
  LoadCurve curve{.format = "alibaba-genai", .source = std::move(source), .relative_rate = {}};
  for (const double bin_rate : Interpolate(rate)) {
    curve.relative_rate.push_back(std::min(bin_rate / peak, 1.0));
  }
  return curve;
}

}  // namespace headroom::sim
