#include "agent/dcgm_telemetry.h"

#include <charconv>
#include <cmath>
#include <map>
#include <utility>

#include <httplib.h>

#include "agent/http_url.h"
#include "base/check.h"
#include "model/yaml_field.h"

namespace headroom::agent {
namespace {

enum class Field { kTemp, kPower, kUtil, kXid };

std::optional<Field> FieldOf(std::string_view name) {
  if (name == "DCGM_FI_DEV_GPU_TEMP") return Field::kTemp;
  if (name == "DCGM_FI_DEV_POWER_USAGE") return Field::kPower;
  if (name == "DCGM_FI_DEV_GPU_UTIL") return Field::kUtil;
  if (name == "DCGM_FI_DEV_XID_ERRORS") return Field::kXid;
  return std::nullopt;
}

// The largest device index accepted from a `gpu` label; far above any real node.
constexpr int kMaxDeviceIndex = 1023;

std::optional<int> DeviceIndex(const std::string& text) {
  int index = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (error != std::errc() || end != text.data() + text.size() || index < 0 ||
      index > kMaxDeviceIndex || (text.size() > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  return index;
}

class DcgmExporterSource final : public TelemetrySource {
 public:
  DcgmExporterSource(DcgmExporterOptions options, HttpUrl url)
      : options_(std::move(options)), url_(std::move(url)) {}

  std::string_view name() const override { return "dcgm"; }

  Result<std::vector<DeviceTelemetry>> Sample() override {
    httplib::Client client(url_.Origin());
    const auto seconds = static_cast<time_t>(options_.timeout_s);
    const auto micros =
        static_cast<time_t>((options_.timeout_s - static_cast<double>(seconds)) * 1e6);
    client.set_connection_timeout(seconds, micros);
    client.set_read_timeout(seconds, micros);
    client.set_write_timeout(seconds, micros);
    const httplib::Result response = client.Get(url_.path.c_str());
    if (!response) {
      return MakeError(ErrorCode::kIo, "dcgm-exporter {}: {} (is the exporter running?)",
                       options_.url, httplib::to_string(response.error()));
    }
    if (response->status != 200) {
      return MakeError(ErrorCode::kIo, "dcgm-exporter {}: HTTP status {}", options_.url,
                       response->status);
    }
    auto samples = ParsePrometheusText(response->body);
    if (!samples) return tl::unexpected(WithContext(std::move(samples).error(), options_.url));
    auto telemetry = DcgmTelemetryFromSamples(*samples);
    if (!telemetry) return tl::unexpected(WithContext(std::move(telemetry).error(), options_.url));
    return telemetry;
  }

 private:
  DcgmExporterOptions options_;
  HttpUrl url_;
};

}  // namespace

Result<std::vector<DeviceTelemetry>> DcgmTelemetryFromSamples(
    const std::vector<PrometheusSample>& samples) {
  std::map<int, DeviceTelemetry> by_index;
  for (const PrometheusSample& sample : samples) {
    const std::optional<Field> field = FieldOf(sample.name);
    if (!field) continue;
    const std::string* gpu = sample.Label("gpu");
    if (gpu == nullptr) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "line {}: {}: expected a 'gpu' label holding the device index, got none",
                       sample.line, sample.name);
    }
    const std::optional<int> index = DeviceIndex(*gpu);
    if (!index) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "line {}: {}: expected label 'gpu' to hold a device index 0..{}, got {}",
                       sample.line, sample.name, kMaxDeviceIndex, model::QuoteForMessage(*gpu));
    }
    DeviceTelemetry& device = by_index[*index];
    device.index = *index;
    if (std::isnan(sample.value)) continue;  // DCGM's "blank" reading: absent.
    const double value = sample.value;
    switch (*field) {
      case Field::kTemp:
        if (!device.temp_c) device.temp_c = value;
        break;
      case Field::kPower:
        if (!device.power_w) device.power_w = value;
        break;
      case Field::kUtil:
        if (!(value >= 0.0 && value <= 100.0)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "line {}: {}: expected a percentage in 0..100, got {}", sample.line,
                           sample.name, value);
        }
        if (!device.util) device.util = value / 100.0;
        break;
      case Field::kXid:
        if (!(value >= 0.0 && value <= 1e9 && std::floor(value) == value)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "line {}: {}: expected a non-negative integer XID, got {}", sample.line,
                           sample.name, value);
        }
        if (!device.xid_errors) device.xid_errors = static_cast<int64_t>(value);
        break;
    }
  }
  std::vector<DeviceTelemetry> out;
  out.reserve(by_index.size());
  for (auto& [index, device] : by_index) out.push_back(std::move(device));
  return out;
}

tl::expected<void, Error> ValidateDcgmUrl(const std::string& url) {
  auto parsed = ParseHttpUrl(url);
  if (!parsed) return tl::unexpected(std::move(parsed).error());
  return {};
}

std::unique_ptr<TelemetrySource> MakeDcgmExporterSource(DcgmExporterOptions options) {
  auto url = ParseHttpUrl(options.url);
  HR_CHECK(url.has_value());  // Callers validate the flag with ValidateDcgmUrl first.
  return std::make_unique<DcgmExporterSource>(std::move(options), std::move(*url));
}

}  // namespace headroom::agent
