#include "agent/exporter_source.h"

#include <utility>

#include <httplib.h>

#include "agent/http_url.h"
#include "base/check.h"

namespace headroom::agent {
namespace {

Result<std::vector<DeviceTelemetry>> ReadingsFromText(std::string_view text,
                                                      const std::string& where) {
  auto devices = model::ParseExporterText(text);
  if (!devices) return tl::unexpected(WithContext(std::move(devices).error(), where));
  return ReadingsOf(std::move(*devices));
}

class ExporterUrlSource final : public TelemetrySource {
 public:
  ExporterUrlSource(ExporterUrlOptions options, HttpUrl url)
      : options_(std::move(options)), url_(std::move(url)) {}

  std::string_view name() const override { return "exporter"; }

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
      return MakeError(ErrorCode::kIo, "exporter {}: {} (is the exporter running?)", options_.url,
                       httplib::to_string(response.error()));
    }
    if (response->status != 200) {
      return MakeError(ErrorCode::kIo, "exporter {}: HTTP status {}", options_.url,
                       response->status);
    }
    return ReadingsFromText(response->body, options_.url);
  }

 private:
  ExporterUrlOptions options_;
  HttpUrl url_;
};

class ExporterFileSource final : public TelemetrySource {
 public:
  explicit ExporterFileSource(std::string path) : path_(std::move(path)) {}

  std::string_view name() const override { return "file"; }

  Result<std::vector<DeviceTelemetry>> Sample() override {
    auto devices = model::LoadExporterFile(path_);
    if (!devices) return tl::unexpected(std::move(devices).error());
    return ReadingsOf(std::move(*devices));
  }

 private:
  std::string path_;
};

}  // namespace

std::vector<DeviceTelemetry> ReadingsOf(std::vector<model::ExporterDevice> devices) {
  std::vector<DeviceTelemetry> out;
  out.reserve(devices.size());
  for (model::ExporterDevice& device : devices) out.push_back(std::move(device.reading));
  return out;
}

tl::expected<void, Error> ValidateExporterUrl(const std::string& url) {
  auto parsed = ParseHttpUrl(url);
  if (!parsed) return tl::unexpected(std::move(parsed).error());
  return {};
}

std::unique_ptr<TelemetrySource> MakeExporterUrlSource(ExporterUrlOptions options) {
  auto url = ParseHttpUrl(options.url);
  HR_CHECK(url.has_value());  // Callers validate the flag with ValidateExporterUrl first.
  return std::make_unique<ExporterUrlSource>(std::move(options), std::move(*url));
}

std::unique_ptr<TelemetrySource> MakeExporterFileSource(std::string path) {
  return std::make_unique<ExporterFileSource>(std::move(path));
}

}  // namespace headroom::agent
