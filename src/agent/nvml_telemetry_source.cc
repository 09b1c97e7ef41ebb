#include "agent/nvml_telemetry_source.h"

#include <utility>

#include "base/check.h"

namespace headroom::agent {
namespace {

class NvmlTelemetrySource final : public TelemetrySource {
 public:
  explicit NvmlTelemetrySource(std::shared_ptr<NvmlLibrary> library)
      : library_(std::move(library)) {
    HR_CHECK(library_ != nullptr);
  }
  std::string_view name() const override { return "nvml"; }
  Result<std::vector<DeviceTelemetry>> Sample() override { return library_->Sample(); }

 private:
  std::shared_ptr<NvmlLibrary> library_;
};

}  // namespace

std::unique_ptr<TelemetrySource> MakeNvmlTelemetrySource(std::shared_ptr<NvmlLibrary> library) {
  return std::make_unique<NvmlTelemetrySource>(std::move(library));
}

}  // namespace headroom::agent
