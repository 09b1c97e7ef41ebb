// Metrics: the Prometheus text exposition format 0.0.4, written by hand (it is a simple line
// format): "# HELP", "# TYPE", then `name{label="value",...} number` lines; label values
// escape backslash, double quote and newline. A Histogram counts observations into fixed
// cumulative buckets (`_bucket{le=...}`, `_sum`, `_count`).
// Threading: MetricsText is single-threaded (built per scrape); Histogram is thread-safe.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace headroom::control {

using Labels = std::vector<std::pair<std::string_view, std::string>>;

class MetricsText {
 public:
  // Starts a metric family; `type` is "gauge", "counter" or "histogram".
  void Family(std::string_view name, std::string_view type, std::string_view help);
  void Sample(std::string_view name, const Labels& labels, double value);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

std::string EscapeLabelValue(std::string_view value);

class Histogram {
 public:
  explicit Histogram(std::vector<double> upper_bounds);
  void Observe(double value);
  // Appends the family (HELP, TYPE and samples) to `out`.
  void Write(MetricsText& out, std::string_view name, std::string_view help) const;

 private:
  mutable std::mutex mu_;
  std::vector<double> upper_bounds_;
  std::vector<uint64_t> counts_;  // Per bucket, not cumulative; the last is +Inf.
  double sum_ = 0;
  uint64_t count_ = 0;
};

}  // namespace headroom::control
