// Routes: services, the desired-state half of the API (docs/api.md "Services"): list them,
// cancel one, set its replica count, and report its load for its autoscaler
// (live_loop_autoscale.cc).
#include <cmath>
#include <map>
#include <utility>

#include "control/api_routes.h"
#include "control/job_spec.h"

namespace headroom::control {
namespace {

// The largest rate a report may carry (requests/s): beyond any one service's, and far from
// where doubles lose the precision the autoscaler's arithmetic needs.
constexpr double kMaxReportedRatePerS = 1e9;

Json AutoscalingJson(const ServiceAutoscaling& autoscaling) {
  return {{"minReplicas", autoscaling.min_replicas},
          {"maxReplicas", autoscaling.max_replicas},
          {"requestsPerReplica", static_cast<double>(autoscaling.capacity_milli_per_s) / 1000.0},
          {"targetUtilization", autoscaling.target_utilization_percent},
          {"scaleDownWindowS", autoscaling.scale_down_window_us / kUsPerSecond},
          {"forecastS", autoscaling.forecast_us / kUsPerSecond},
          {"prometheusQuery", autoscaling.prometheus_query}};
}

// The last report, why the Prometheus query failed if it did, and, once the autoscaler ran on a
// report, what it decided.
Json LoadJson(const ServiceLoad& load, TimeUs now) {
  Json out = Json::object();
  if (load.reported_us >= 0) {
    out["requestsPerSecond"] = load.requests_per_s;
    out["reportedAgoS"] = UsToSeconds(std::max<TimeUs>(now - load.reported_us, 0));
  }
  if (!load.query_error.empty()) out["queryError"] = load.query_error;
  if (load.decided_us >= 0) {
    out["desiredReplicas"] = load.desired_replicas;
    out["decidedAgoS"] = UsToSeconds(std::max<TimeUs>(now - load.decided_us, 0));
  }
  return out;
}

// The service named in the path, if the caller may act on it (its tenant, or an admin).
ApiResult<ServiceRecord> FindService(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  auto id = ParseId(request.matches[1], "service id");
  if (!id) return tl::unexpected(id.error());
  std::lock_guard lock(context.state.mu);
  auto it = context.state.services.find(*id);
  if (it == context.state.services.end()) {
    return Fail(404, "service {} does not exist; list services with GET /v1/services", *id);
  }
  if (auto ok = CheckTenant(*principal, it->second.spec.tenant); !ok) {
    return tl::unexpected(ok.error());
  }
  return it->second;
}

ApiResult<Reply> CancelService(ApiContext& context, const HttpRequest& request) {
  auto service = FindService(context, request);
  if (!service) return tl::unexpected(service.error());
  auto cancelled = context.loop.CancelService(service->id);
  if (!cancelled) return tl::unexpected(cancelled.error());
  Json jobs = Json::array();
  for (const JobRecord& job : *cancelled) jobs.push_back(job.id);
  return Reply{
      200,
      {{"id", service->id}, {"name", service->spec.name}, {"state", "cancelled"}, {"jobs", jobs}}};
}

ApiResult<Reply> ScaleService(ApiContext& context, const HttpRequest& request) {
  auto service = FindService(context, request);
  if (!service) return tl::unexpected(service.error());
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  if (auto ok = RejectUnknownFields(*body, "", {"replicas"}); !ok) {
    return tl::unexpected(ok.error());
  }
  auto replicas = IntField(*body, "replicas", "replicas", 0, kMaxReplicas, std::nullopt);
  if (!replicas) return tl::unexpected(replicas.error());
  auto scaled = context.loop.ScaleService(service->id, static_cast<uint32_t>(*replicas));
  if (!scaled) return tl::unexpected(scaled.error());
  return Reply{200,
               {{"id", service->id},
                {"name", service->spec.name},
                {"replicas", scaled->service.spec.replicas},
                {"added", scaled->added},
                {"cancelled", scaled->cancelled}}};
}

ApiResult<Reply> Services(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  Json out = Json::array();
  std::lock_guard lock(context.state.mu);
  std::map<uint64_t, std::pair<uint64_t, Json>> by_service;  // running, live job ids
  for (const auto& [id, job] : context.state.jobs) {
    if (job.service_id == 0 || IsFinal(job.state)) continue;
    auto& [running, ids] = by_service[job.service_id];
    if (job.state == JobState::kRunning) ++running;
    ids.push_back(id);
  }
  const TimeUs now = context.clock.NowUs();
  for (const auto& [id, service] : context.state.services) {
    if (principal->role == Role::kUser && service.spec.tenant != principal->tenant) continue;
    auto it = by_service.find(id);
    Json entry = {{"id", id},
                  {"name", service.spec.name},
                  {"tenant", service.spec.tenant},
                  {"replicas", service.spec.replicas},
                  {"running", it == by_service.end() ? 0 : it->second.first},
                  {"jobs", it == by_service.end() ? Json::array() : it->second.second}};
    if (service.spec.autoscaling) entry["autoscaling"] = AutoscalingJson(*service.spec.autoscaling);
    if (auto load = context.state.service_loads.find(id);
        load != context.state.service_loads.end()) {
      entry["load"] = LoadJson(load->second, now);
    }
    out.push_back(std::move(entry));
  }
  return Reply{200, {{"services", std::move(out)}}};
}

// POST /v1/services/{id}/load {"requestsPerSecond": R}: the request rate the service served
// (or was offered) over the reporter's last interval, from its ingress or model server. Kept in
// memory; an autoscaled service's count follows it from the autoscaler's next sync.
ApiResult<Reply> ReportLoad(ApiContext& context, const HttpRequest& request) {
  auto service = FindService(context, request);
  if (!service) return tl::unexpected(service.error());
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  if (auto ok = RejectUnknownFields(*body, "", {"requestsPerSecond"}); !ok) {
    return tl::unexpected(ok.error());
  }
  auto rate = NumberField(*body, "requestsPerSecond", "requestsPerSecond");
  if (!rate) return tl::unexpected(rate.error());
  if (!*rate || !std::isfinite(**rate) || **rate < 0 || **rate > kMaxReportedRatePerS) {
    return Fail(400, "requestsPerSecond: expected a number of requests/s in [0, {:g}]{}",
                kMaxReportedRatePerS, *rate ? fmt::format(", got {}", **rate) : "");
  }
  const TimeUs now = context.clock.NowUs();
  std::lock_guard lock(context.state.mu);
  if (!context.state.services.contains(service->id)) {
    return Fail(404, "service {} does not exist; list services with GET /v1/services", service->id);
  }
  ServiceLoad& load = context.state.service_loads[service->id];
  load.requests_per_s = **rate;
  load.reported_us = now;
  Json out = {{"id", service->id},
              {"name", service->spec.name},
              {"replicas", context.state.services[service->id].spec.replicas},
              {"autoscaled", service->spec.autoscaling.has_value()},
              {"load", LoadJson(load, now)}};
  return Reply{200, std::move(out)};
}

}  // namespace

void RegisterServiceRoutes(Router& server, ApiContext& context) {
  server.Post("/v1/services/{}/cancel",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return CancelService(context, request); });
              });
  server.Post("/v1/services/{}/scale",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return ScaleService(context, request); });
              });
  server.Post("/v1/services/{}/load",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return ReportLoad(context, request); });
              });
  server.Get("/v1/services", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Services(context, request); });
  });
}

}  // namespace headroom::control
