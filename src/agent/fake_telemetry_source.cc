#include "agent/fake_telemetry_source.h"

#include <utility>
#include <vector>

namespace headroom::agent {
namespace {

class FakeTelemetrySource final : public TelemetrySource {
 public:
  explicit FakeTelemetrySource(std::vector<DeviceTelemetry> readings)
      : readings_(std::move(readings)) {}
  std::string_view name() const override { return "fake"; }
  Result<std::vector<DeviceTelemetry>> Sample() override { return readings_; }

 private:
  std::vector<DeviceTelemetry> readings_;
};

}  // namespace

std::unique_ptr<TelemetrySource> MakeFakeTelemetrySource(const Inventory& inventory) {
  std::vector<DeviceTelemetry> readings;
  for (const InventoryDevice& device : inventory.devices) {
    DeviceTelemetry reading = device.fake_telemetry.value_or(DeviceTelemetry{});
    reading.index = device.index;
    readings.push_back(reading);
  }
  return std::make_unique<FakeTelemetrySource>(std::move(readings));
}

}  // namespace headroom::agent
