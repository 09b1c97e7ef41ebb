// Prometheus text exposition format 0.0.4: a strict parser for the samples a dcgm-exporter (or
// any exporter) serves on /metrics. It follows the format as Prometheus documents it
// (https://prometheus.io/docs/instrumenting/exposition_formats/#text-based-format):
//   metric_name [ "{" label_name "=" '"' label_value '"' { "," ... } [ "," ] "}" ] value [
//   timestamp ]
// with `# HELP name text` and `# TYPE name counter|gauge|histogram|summary|untyped` lines,
// other `#` lines as comments, blank lines ignored, label values escaped with \\ \" \n, values
// as Go's floats (including NaN, +Inf, -Inf) and an optional integer timestamp in milliseconds.
//
// Promises:
//  1. Any byte string either parses or yields one error "line N: expected <what>, got <what>";
//     nothing crashes, nothing recurses, work is linear in the input.
//  2. Names are validated ([a-zA-Z_:][a-zA-Z0-9_:]* for metrics, [a-zA-Z_][a-zA-Z0-9_]* for
//     labels); a label name repeated within one sample, a carriage return, an unknown escape or
//     a second TYPE line for one metric is an error, not silently accepted.
//  3. Samples come back in input order with their 1-based line.
// Threading: pure functions; safe to call concurrently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom::model {

struct PrometheusLabel {
  std::string name;
  std::string value;  // Unescaped.
};

struct PrometheusSample {
  std::string name;
  std::vector<PrometheusLabel> labels;  // In input order.
  double value = 0.0;
  std::optional<int64_t> timestamp_ms;
  int line = 0;

  // The value of label `name`, or nullptr when the sample has no such label.
  const std::string* Label(std::string_view label_name) const;
};

// Parses a whole exposition. Errors read "line N: expected ..., got ..." (kInvalidArgument).
Result<std::vector<PrometheusSample>> ParsePrometheusText(std::string_view text);

}  // namespace headroom::model
