// libFuzzer target for the Prometheus text parser and the DCGM reading built on it: any bytes
// must parse or fail with one "line N: ..." message, never crash; whatever parses holds only
// valid names, and the DCGM extraction either succeeds with devices in index order or fails
// with a line-numbered message.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "agent/dcgm_telemetry.h"
#include "agent/prometheus_text.h"
#include "base/check.h"

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
  auto samples = headroom::agent::ParsePrometheusText(text);
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
  auto telemetry = headroom::agent::DcgmTelemetryFromSamples(*samples);
  if (!telemetry) {
    HR_CHECK(telemetry.error().message.rfind("line ", 0) == 0);
    return 0;
  }
  for (size_t i = 1; i < telemetry->size(); ++i) {
    HR_CHECK((*telemetry)[i - 1].index < (*telemetry)[i].index);
  }
  for (const auto& device : *telemetry) {
    if (device.util) HR_CHECK(*device.util >= 0.0 && *device.util <= 1.0);
    if (device.xid_errors) HR_CHECK(*device.xid_errors >= 0);
  }
  return 0;
}
