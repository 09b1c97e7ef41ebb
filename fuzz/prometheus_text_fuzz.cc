// libFuzzer target for the Prometheus text parser and the exporter readings built on it (DCGM's
// and AMD's names): any bytes must parse or fail with one "line N: ..." message, never crash;
// whatever parses holds only valid names, and the extraction either succeeds with devices in
// index order and readings in range or fails with a line-numbered message.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/check.h"
#include "model/exporter_readings.h"
#include "model/prometheus_text.h"

namespace {

bool ValidMetricName(const std::string& name) {
  if (name.empty()) return false;
  for (size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
    const bool digit = c >= '0' && c <= '9';
    if (!(letter || (digit && i > 0))) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto samples = headroom::model::ParsePrometheusText(text);
  if (!samples) {
    HR_CHECK(samples.error().message.rfind("line ", 0) == 0);
    HR_CHECK(samples.error().message.find('\n') == std::string::npos);
    return 0;
  }
  int last_line = 0;
  for (const auto& sample : *samples) {
    HR_CHECK(ValidMetricName(sample.name));
    HR_CHECK(sample.line > last_line);
    last_line = sample.line;
    for (const auto& label : sample.labels) {
      HR_CHECK(!label.name.empty() && label.name.find(':') == std::string::npos);
    }
  }
  auto devices = headroom::model::ExporterDevicesFromSamples(*samples);
  if (!devices) {
    HR_CHECK(devices.error().message.rfind("line ", 0) == 0);
    return 0;
  }
  for (size_t i = 1; i < devices->size(); ++i) {
    HR_CHECK((*devices)[i - 1].reading.index < (*devices)[i].reading.index);
  }
  for (const auto& device : *devices) {
    const auto& reading = device.reading;
    if (reading.util) HR_CHECK(*reading.util >= 0.0 && *reading.util <= 1.0);
    if (reading.xid_errors) HR_CHECK(*reading.xid_errors >= 0);
    if (reading.ecc_uncorrectable) HR_CHECK(*reading.ecc_uncorrectable >= 0);
    if (reading.remapped_rows) HR_CHECK(*reading.remapped_rows >= 0);
    if (reading.nvlink_errors) HR_CHECK(*reading.nvlink_errors >= 0);
    if (reading.temp_c) HR_CHECK(std::isfinite(*reading.temp_c));
    if (reading.power_w) HR_CHECK(std::isfinite(*reading.power_w));
  }
  return 0;
}
