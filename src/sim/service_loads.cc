#include "sim/service_loads.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/check.h"
#include "sim/traces/dlrm_trace.h"

namespace headroom::sim {
namespace {

// One service per app_name of a DLRM instance trace with GPU instances (role HN), its replica
// count following the trace: an instance is wanted from its creation (from the origin if it
// existed before the trace began) until its deletion (or the trace's end). Its replicas take
// the most devices, CPU and memory any of its instances asked for.
Result<std::vector<ServiceLoad>> DlrmServices(std::string_view path, const ServiceLoad& like) {
  auto trace = LoadDlrmTrace(std::string(path));
  if (!trace) return tl::unexpected(WithContext(trace.error(), "--services"));
  TimeUs end_us = 0;
  for (const ServiceInstance& instance : trace->instances) {
    for (const auto& time : {instance.created_us, instance.scheduled_us, instance.deleted_us}) {
      if (time) end_us = std::max(end_us, *time);
    }
  }
  struct Building {
    ServiceLoad load;
    std::vector<std::pair<TimeUs, int>> changes;
  };
  std::map<std::string, Building> by_app;  // Ordered: the services' order is the names'.
  for (const ServiceInstance& instance : trace->instances) {
    if (!instance.gpu_node || instance.gpus == 0) continue;
    Building& service = by_app.try_emplace(instance.service, Building{like, {}}).first->second;
    model::Service& declared = service.load.service;
    declared.devices_per_replica = std::max(declared.devices_per_replica, instance.gpus);
    service.load.replica_cpu_milli =
        std::max<int64_t>(service.load.replica_cpu_milli, std::llround(instance.cpus * 1000));
    service.load.replica_memory_mib = std::max<int64_t>(service.load.replica_memory_mib,
                                                        std::llround(instance.memory_gib * 1024));
    const TimeUs from_us = instance.created_us.value_or(0);
    const TimeUs until_us = instance.deleted_us.value_or(end_us);
    if (until_us <= from_us) continue;  // Deleted as it was made: never wanted for long.
    service.changes.push_back({from_us, +1});
    service.changes.push_back({until_us, -1});
  }
  if (end_us <= 0 || by_app.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--services: {} has no GPU instance (role HN) over a span of time", path);
  }
  std::vector<ServiceLoad> loads;
  for (auto& [app, service] : by_app) {
    std::sort(service.changes.begin(), service.changes.end());
    ServiceLoad& load = service.load;
    load.service.name = "dlrm-" + app;
    load.service.min_replicas = 0;
    load.replica_schedule = {{0, 0}};
    int64_t count = 0;
    uint32_t peak = 0;
    for (const auto& [time_us, delta] : service.changes) {
      count += delta;
      HR_CHECK(count >= 0);
      if (load.replica_schedule.back().first != time_us) {
        load.replica_schedule.push_back({time_us, 0});
      }
      load.replica_schedule.back().second = static_cast<uint32_t>(count);
      peak = std::max(peak, static_cast<uint32_t>(count));
    }
    if (load.replica_schedule.back().first < end_us) load.replica_schedule.push_back({end_us, 0});
    HR_CHECK(load.replica_schedule.back().second == 0);
    load.service.max_replicas = std::max<uint32_t>(peak, 1);
    loads.push_back(std::move(load));
  }
  return loads;
}

}  // namespace

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
    if (spec.starts_with(kDlrmPrefix)) {
      ServiceLoad like;
      like.service.model = *model;
      like.service.device_model = options.device_model;
      like.service.devices_per_replica = 0;
      like.service.startup_us = SecondsToUs(options.startup_s);
      auto dlrm = DlrmServices(spec.substr(kDlrmPrefix.size()), like);
      if (!dlrm) return tl::unexpected(dlrm.error());
      for (ServiceLoad& load : *dlrm) loads.push_back(std::move(load));
      continue;
    }
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
