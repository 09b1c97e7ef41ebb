#include "model/service.h"

#include <cmath>

namespace headroom::model {
namespace {

tl::unexpected<Error> Invalid(const Service& service, std::string_view field,
                              std::string_view expected) {
  return MakeError(ErrorCode::kInvalidArgument, "service {}: {}: expected {}", service.name, field,
                   expected);
}

}  // namespace

Result<void> ValidateService(const Service& service) {
  if (service.name.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "a service needs a name");
  }
  if (FindDeviceSpeed(service.device_model) == nullptr) {
    return Invalid(service, "device_model", "A100, A100-40GB, H100 or H200");
  }
  if (service.devices_per_replica == 0) {
    return Invalid(service, "devices_per_replica", "at least 1");
  }
  if (service.max_replicas == 0 || service.min_replicas > service.max_replicas) {
    return Invalid(service, "replicas", "0 <= min_replicas <= max_replicas, max_replicas >= 1");
  }
  if (service.startup_us < 0) return Invalid(service, "startup", "a duration >= 0");
  if (!(service.target_utilization > 0 && service.target_utilization <= 1)) {
    return Invalid(service, "target_utilization", "a share in (0, 1]");
  }
  if (service.slo.ttft_us <= 0 || !(service.slo.tbt_s > 0) || !std::isfinite(service.slo.tbt_s)) {
    return Invalid(service, "slo", "a positive time to first token and time between tokens");
  }
  auto capacity = ReplicaCapacity(service);
  if (!capacity) return tl::unexpected(WithContext(capacity.error(), "service " + service.name));
  if (capacity->weight_read_s > service.slo.tbt_s) {
    return Invalid(service, "slo.tbt",
                   fmt::format("at least {:.3f} s, one decode step of an empty replica",
                               capacity->weight_read_s));
  }
  return {};
}

Result<ServingCapacity> ReplicaCapacity(const Service& service) {
  const DeviceSpeed* device = FindDeviceSpeed(service.device_model);
  if (device == nullptr) {
    return MakeError(ErrorCode::kInvalidArgument, "unknown device model \"{}\"",
                     service.device_model);
  }
  return EstimateServingCapacity(service.model, *device, service.devices_per_replica);
}

}  // namespace headroom::model
