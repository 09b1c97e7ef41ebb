// LiveLoop::Autoscale: headroomd's HPA loop. Every autoscale_interval_us of the loop's clock,
// each service with spec.autoscaling is given the replica count that its reported load asks for
// (engine/autoscaler.h computes it as Kubernetes' HorizontalPodAutoscaler does, with the
// spec's forecast where set), applied as any scale is: one journaled transaction (ApplyScale).
// A service whose last report is older than load_report_max_age_us keeps its count, as the HPA
// does without its metric. The autoscalers' history lives in memory: after a restart, and for a
// new service, a scale-down waits one scale-down window, so that no replica the window still
// wanted is dropped because the daemon forgot it.
#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "control/live_loop.h"
#include "control/logging.h"

namespace headroom::control {
namespace {

engine::AutoscalerConfig ConfigOf(const ServiceAutoscaling& autoscaling) {
  engine::AutoscalerConfig config;
  config.min_replicas = autoscaling.min_replicas;
  config.max_replicas = autoscaling.max_replicas;
  config.target_utilization = autoscaling.target_utilization_percent / 100.0;
  config.scale_down_window_us = autoscaling.scale_down_window_us;
  config.predict_us = autoscaling.forecast_us;
  return config;
}

}  // namespace

void LiveLoop::Autoscale(TimeUs now) {
  if (now < next_autoscale_us_) return;
  next_autoscale_us_ = now + options_.autoscale_interval_us;
  struct Due {
    uint64_t service;
    ServiceAutoscaling autoscaling;
    uint32_t replicas;
    std::optional<double> requests_per_s;  // Reported recently enough.
  };
  std::vector<Due> due;
  {
    std::lock_guard lock(state_.mu);
    for (const auto& [id, service] : state_.services) {
      if (!service.spec.autoscaling) continue;
      Due entry{id, *service.spec.autoscaling, service.spec.replicas, std::nullopt};
      if (auto load = state_.service_loads.find(id);
          load != state_.service_loads.end() && load->second.reported_us >= 0 &&
          now - load->second.reported_us <= options_.load_report_max_age_us) {
        entry.requests_per_s = load->second.requests_per_s;
      }
      due.push_back(entry);
    }
  }
  std::erase_if(autoscalers_, [&](const auto& entry) {
    return std::none_of(due.begin(), due.end(),
                        [&](const Due& service) { return service.service == entry.first; });
  });
  for (const Due& service : due) {
    auto [it, added] = autoscalers_.try_emplace(
        service.service, AutoscaledService{engine::Autoscaler(ConfigOf(service.autoscaling)), now});
    if (!service.requests_per_s) continue;
    const double capacity_per_s =
        static_cast<double>(service.autoscaling.capacity_milli_per_s) / 1000.0;
    uint32_t desired = it->second.autoscaler.Recommend(now, *service.requests_per_s, capacity_per_s,
                                                       service.replicas);
    if (desired < service.replicas &&
        now - it->second.since_us < service.autoscaling.scale_down_window_us) {
      desired = service.replicas;
    }
    {
      std::lock_guard lock(state_.mu);
      ServiceLoad& load = state_.service_loads[service.service];
      load.desired_replicas = desired;
      load.decided_us = now;
    }
    if (desired == service.replicas) continue;
    const std::string why = fmt::format("autoscaled from {} to {} replicas at {:.4g} requests/s",
                                        service.replicas, desired, *service.requests_per_s);
    if (auto scaled = ApplyScale(service.service, desired, now, why); !scaled) {
      LogWarn("autoscaler: service {} not {}: {}", service.service, why, scaled.error().message);
      continue;
    }
    Log("autoscaled", std::nullopt, std::nullopt,
        fmt::format("service {} {}", service.service, why), now);
  }
}

}  // namespace headroom::control
