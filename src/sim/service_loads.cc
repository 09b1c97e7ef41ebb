#include "sim/service_loads.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace headroom::sim {

Result<std::vector<ServiceLoad>> LoadServices(std::string_view specs, const ServiceOptions& options,
                                              const model::Cluster& cluster, TimeUs span_us) {
  auto model = model::FindServedModel(options.model);
  if (!model) return tl::unexpected(WithContext(model.error(), "--service-model"));
  if (!(options.rate_scale > 0) || !std::isfinite(options.rate_scale)) {
    return MakeError(ErrorCode::kInvalidArgument, "--service-rate: expected a positive factor");
  }
  if (!(options.startup_s >= 0) || !std::isfinite(options.startup_s)) {
    return MakeError(ErrorCode::kInvalidArgument, "--service-startup: expected seconds >= 0");
  }
  const auto& classes = cluster.device_classes();
  if (std::none_of(classes.begin(), classes.end(), [&](const model::DeviceClass& device_class) {
        return device_class.model == options.device_model;
      })) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--service-device-model: the cluster has no {} devices for the replicas",
                     options.device_model);
  }
  std::optional<LoadCurve> curve;
  if (!options.load_curve.empty()) {
    auto loaded = LoadLoadCurve(options.load_curve);
    if (!loaded) return tl::unexpected(WithContext(loaded.error(), "--service-curve"));
    curve = *std::move(loaded);
  }
  std::vector<ServiceLoad> loads;
  for (size_t begin = 0; begin <= specs.size();) {
    const size_t end = std::min(specs.find(',', begin), specs.size());
    const std::string_view spec = specs.substr(begin, end - begin);
    begin = end + 1;
    auto trace = LoadRequestTrace(spec);
    if (!trace) return tl::unexpected(WithContext(trace.error(), "--services"));
    if (trace->requests.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "--services: {} has no requests", spec);
    }
    ServiceLoad load;
    load.service.name = fmt::format("{}-{}", trace->format, loads.size() + 1);
    load.service.model = *model;
    load.service.device_model = options.device_model;
    load.service.devices_per_replica = options.devices_per_replica;
    load.service.min_replicas = options.min_replicas;
    load.service.max_replicas = options.max_replicas;
    load.service.startup_us = SecondsToUs(options.startup_s);
    load.service.slo = {SecondsToUs(options.ttft_slo_s), options.tbt_slo_s};
    if (auto valid = model::ValidateService(load.service); !valid) {
      return tl::unexpected(valid.error());
    }
    load.trace = options.rate_scale == 1
                     ? *std::move(trace)
                     : MultiplexRequests(*trace, options.rate_scale, options.seed + loads.size());
    if (curve) {
      load.curve = curve;
      load.span_us = std::max<TimeUs>(span_us, load.trace.span_us());
    }
    load.seed = options.seed + loads.size();
    loads.push_back(std::move(load));
  }
  return loads;
}

}  // namespace headroom::sim
