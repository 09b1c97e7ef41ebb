#include "control/metrics.h"

#include <cmath>

#include <fmt/format.h>

namespace headroom::control {
namespace {

std::string FormatValue(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  if (value == std::floor(value) && std::fabs(value) < 1e15) {
    return fmt::format("{}", static_cast<int64_t>(value));
  }
  return fmt::format("{}", value);
}

}  // namespace

std::string EscapeLabelValue(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void MetricsText::Family(std::string_view name, std::string_view type, std::string_view help) {
  text_ += fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, help, name, type);
}

void MetricsText::Sample(std::string_view name, const Labels& labels, double value) {
  text_ += name;
  if (!labels.empty()) {
    text_ += '{';
    bool first = true;
    for (const auto& [key, label_value] : labels) {
      if (!first) text_ += ',';
      first = false;
      text_ += fmt::format("{}=\"{}\"", key, EscapeLabelValue(label_value));
    }
    text_ += '}';
  }
  text_ += ' ';
  text_ += FormatValue(value);
  text_ += '\n';
}

Histogram::Histogram(std::vector<double> upper_bounds)
    : upper_bounds_(std::move(upper_bounds)), counts_(upper_bounds_.size() + 1, 0) {}

void Histogram::Observe(double value) {
  std::lock_guard lock(mu_);
  size_t bucket = 0;
  while (bucket < upper_bounds_.size() && value > upper_bounds_[bucket]) ++bucket;
  ++counts_[bucket];
  sum_ += value;
  ++count_;
}

void Histogram::Write(MetricsText& out, std::string_view name, std::string_view help) const {
  std::lock_guard lock(mu_);
  out.Family(name, "histogram", help);
  const std::string bucket_name = fmt::format("{}_bucket", name);
  uint64_t cumulative = 0;
  for (size_t i = 0; i < upper_bounds_.size(); ++i) {
    cumulative += counts_[i];
    out.Sample(bucket_name, {{"le", FormatValue(upper_bounds_[i])}},
               static_cast<double>(cumulative));
  }
  cumulative += counts_.back();
  out.Sample(bucket_name, {{"le", "+Inf"}}, static_cast<double>(cumulative));
  out.Sample(fmt::format("{}_sum", name), {}, sum_);
  out.Sample(fmt::format("{}_count", name), {}, static_cast<double>(count_));
}

}  // namespace headroom::control
