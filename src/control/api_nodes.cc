// Routes: nodes, drain, cluster, floor, series and events (docs/api.md "Nodes, cluster,
// floor", "Events").
#include <algorithm>

#include "control/api_routes.h"

namespace headroom::control {
namespace {

const TopologyNode* FindTopologyNode(const Topology* topology, const std::string& name) {
  if (topology == nullptr || topology->cluster == nullptr) return nullptr;
  const model::Node* node = topology->cluster->FindNode(name);
  return node == nullptr ? nullptr : &topology->nodes[node->id.value()];
}

ApiResult<Reply> Nodes(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  std::lock_guard lock(context.state.mu);
  const auto allocated = context.state.AllocatedMilliByNode();
  Json out = Json::array();
  for (const auto& [name, node] : context.state.nodes) {
    auto it = allocated.find(name);
    out.push_back(NodeJson(node, FindTopologyNode(context.state.topology.get(), name),
                           it == allocated.end() ? 0 : it->second,
                           context.state.hot_spares.contains(name)));
  }
  return Reply{200, {{"nodes", std::move(out)}}};
}

ApiResult<Reply> Drain(ApiContext& context, const HttpRequest& request, bool drained) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  std::string reason;
  if (drained) {
    auto text = ReasonOf(request.body);
    if (!text) return tl::unexpected(text.error());
    reason = std::move(*text);
  }
  const std::string name = request.matches[1];
  auto node = context.loop.SetDrain(name, drained, reason);
  if (!node) return tl::unexpected(node.error());
  std::lock_guard lock(context.state.mu);
  const auto allocated = context.state.AllocatedMilliByNode();
  auto it = allocated.find(name);
  return Reply{
      200,
      NodeJson(context.state.nodes.at(name), FindTopologyNode(context.state.topology.get(), name),
               it == allocated.end() ? 0 : it->second, context.state.hot_spares.contains(name))};
}

// POST /v1/nodes/{name}/devices/{index}/{diagnose|repair|return}, body {"reason": ...} or none.
ApiResult<Reply> OperateDevice(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  const std::string& verb = request.matches[3];
  std::optional<OperatorAction> action;
  if (verb == "diagnose") action = OperatorAction::kDiagnose;
  if (verb == "repair") action = OperatorAction::kRepair;
  if (verb == "return") action = OperatorAction::kReturn;
  if (!action) {
    return Fail(404, "no device action {}: expected diagnose, repair or return",
                QuoteExcerpt(verb));
  }
  auto index = ParseId(request.matches[2], "device index");
  if (!index) return tl::unexpected(index.error());
  if (*index > static_cast<uint64_t>(model::kMaxDeviceIndex)) {
    return Fail(404, "device index {} is above {}", *index, model::kMaxDeviceIndex);
  }
  auto reason = ReasonOf(request.body);
  if (!reason) return tl::unexpected(reason.error());
  auto health = context.loop.OperateDevice(request.matches[1], static_cast<uint32_t>(*index),
                                           *action, std::move(*reason));
  if (!health) return tl::unexpected(health.error());
  Json out = DeviceHealthJson(*health);
  out["node"] = request.matches[1];
  out["index"] = *index;
  return Reply{200, std::move(out)};
}

ApiResult<Reply> ClusterSummary(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  const engine::PolicyConfig policy = context.loop.policy();
  std::lock_guard lock(context.state.mu);
  const Topology* topology = context.state.topology.get();
  uint64_t devices = 0;
  Json by_class = Json::object();
  std::map<std::string, std::string> model_of_node;
  if (topology != nullptr) {
    for (const TopologyNode& node : topology->nodes) {
      devices += node.devices;
      model_of_node[node.name] = node.device_model;
      Json& entry = by_class[node.device_model];
      if (entry.is_null()) entry = {{"devices", 0}, {"allocated_milli", 0}};
      entry["devices"] = entry["devices"].get<uint64_t>() + node.devices;
    }
  }
  uint64_t allocated = 0;
  uint64_t pending = 0;
  uint64_t running = 0;
  Json by_tenant = Json::object();
  for (const auto& [id, job] : context.state.jobs) {
    if (job.state == JobState::kPending) ++pending;
    if (job.state != JobState::kRunning) continue;
    ++running;
    for (const TaskPlacement& task : job.placement) {
      const uint64_t milli = uint64_t{task.milli_per_device} * task.device_indices.size();
      allocated += milli;
      by_tenant[job.spec.tenant] = by_tenant.value(job.spec.tenant, uint64_t{0}) + milli;
      auto model = model_of_node.find(task.node);
      if (model != model_of_node.end()) {
        Json& entry = by_class[model->second];
        entry["allocated_milli"] = entry["allocated_milli"].get<uint64_t>() + milli;
      }
    }
  }
  return Reply{200,
               {{"devices", devices},
                {"allocated_milli", allocated},
                {"pending", pending},
                {"running", running},
                {"by_tenant", std::move(by_tenant)},
                {"by_class", std::move(by_class)},
                {"policy", {{"name", policy.name}, {"description", policy.description}}},
                {"health_storm",
                 {{"tripped", context.state.health_storm.tripped},
                  {"since", context.state.health_storm.tripped
                                ? TimeJson(context.state.health_storm.since_us)
                                : Json(nullptr)},
                  {"message", context.state.health_storm.message}}},
                {"time", UsToSeconds(context.clock.NowUs())}}};
}

// POST /v1/health/resume: resets a tripped storm guard.
ApiResult<Reply> ResumeHealth(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateAdmin(context, request);
  if (!principal) return tl::unexpected(principal.error());
  if (!request.body.empty()) {
    auto body = ParseBody(request.body);
    if (!body) return tl::unexpected(body.error());
    if (auto ok = RejectUnknownFields(*body, "", {}); !ok) return tl::unexpected(ok.error());
  }
  return Reply{200, {{"was_tripped", context.loop.ResumeHealth()}}};
}

ApiResult<Reply> Floor(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  std::lock_guard lock(context.state.mu);
  const Topology* topology = context.state.topology.get();
  Json racks = Json::array();
  if (topology == nullptr || topology->cluster == nullptr) return Reply{200, {{"racks", racks}}};
  const model::Cluster& cluster = *topology->cluster;
  const auto allocated = context.state.AllocatedMilliByNode();
  for (DomainId rack_id : cluster.domains_at_level(cluster.deepest_level())) {
    const model::Domain& rack = cluster.domain(rack_id);
    Json nodes = Json::array();
    uint64_t devices = 0;
    uint64_t rack_allocated = 0;
    std::optional<double> power_w;
    std::optional<double> temp_c;
    uint64_t unhealthy = 0;
    for (uint32_t n = rack.node_begin; n < rack.node_end; ++n) {
      const TopologyNode& node = topology->nodes[n];
      auto status = context.state.nodes.find(node.name);
      auto held = allocated.find(node.name);
      const uint64_t milli = held == allocated.end() ? 0 : held->second;
      devices += node.devices;
      rack_allocated += milli;
      const bool known = status != context.state.nodes.end();
      nodes.push_back({{"name", node.name},
                       {"devices", node.devices},
                       {"allocated_milli", milli},
                       {"state", known ? NodeStateName(status->second) : "unknown"},
                       {"ready", known && status->second.ready},
                       {"unhealthy_devices", 0}});
      if (!known) continue;
      for (const model::LabelledTelemetry& labelled : status->second.telemetry) {
        const model::DeviceTelemetry& device = labelled.reading;
        if (device.power_w) power_w = power_w.value_or(0) + *device.power_w;
        if (device.temp_c) temp_c = std::max(temp_c.value_or(*device.temp_c), *device.temp_c);
      }
      uint64_t unhealthy_here = 0;
      for (const auto& [index, health] : status->second.health_book.devices()) {
        if (health.state != DeviceState::kHealthy) ++unhealthy_here;
      }
      nodes.back()["unhealthy_devices"] = unhealthy_here;
      unhealthy += unhealthy_here;
    }
    std::optional<int64_t> limit_w;
    for (const model::PowerDomain& power : cluster.facility().power_domains) {
      if (std::find(power.domains.begin(), power.domains.end(), rack_id) != power.domains.end()) {
        limit_w = power.limit_w;
      }
    }
    Json path = Json::array();
    for (DomainId d = rack_id; d.valid(); d = cluster.domain(d).parent) {
      path.insert(path.begin(), cluster.domain(d).name);
    }
    racks.push_back({{"name", rack.name},
                     {"path", std::move(path)},
                     {"nodes", std::move(nodes)},
                     {"devices", devices},
                     {"allocated_milli", rack_allocated},
                     {"power_w", power_w ? Json(*power_w) : Json(nullptr)},
                     {"power_limit_w", limit_w ? Json(*limit_w) : Json(nullptr)},
                     {"temp_c", temp_c ? Json(*temp_c) : Json(nullptr)},
                     {"unhealthy_devices", unhealthy}});
  }
  return Reply{200, {{"racks", std::move(racks)}}};
}

ApiResult<Reply> Series(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  double since_s = 0;
  if (request.has_param("since")) {
    const std::string text = request.get_param_value("since");
    char* end = nullptr;
    since_s = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size()) {
      return Fail(400, "since: expected Unix seconds, got {}", QuoteExcerpt(text));
    }
  }
  std::lock_guard lock(context.state.mu);
  Json points = Json::array();
  for (const SeriesPoint& point : context.state.series) {
    if (UsToSeconds(point.time_us) <= since_s) continue;
    points.push_back({{"time", UsToSeconds(point.time_us)},
                      {"allocated_milli", point.allocated_milli},
                      {"devices", point.devices},
                      {"pending", point.pending},
                      {"running", point.running}});
  }
  return Reply{200, {{"points", std::move(points)}}};
}

ApiResult<Reply> Events(ApiContext& context, const HttpRequest& request) {
  auto principal = AuthenticateReader(context, request);
  if (!principal) return tl::unexpected(principal.error());
  uint64_t after = 0;
  if (request.has_param("after")) {
    auto parsed = ParseId(request.get_param_value("after"), "after");
    if (!parsed) return tl::unexpected(parsed.error());
    after = *parsed;
  }
  uint64_t wait_s = 0;
  if (request.has_param("wait_s")) {
    auto parsed = ParseId(request.get_param_value("wait_s"), "wait_s");
    if (!parsed) return tl::unexpected(parsed.error());
    if (*parsed > 30) return Fail(400, "wait_s: expected at most 30 seconds, got {}", *parsed);
    wait_s = *parsed;
  }
  // Read before looking, so that an event appended in between is newer than `seen`.
  const uint64_t seen = context.events.next_seq() - 1;
  const auto events = context.events.After(after, std::chrono::milliseconds(0), 1000);
  if (events.empty() && wait_s > 0 && !request.long_poll_final) {
    // Nothing yet: park the request (no thread waits) until an event arrives or wait_s ends.
    return Reply{.long_poll = LongPoll{std::max(after, seen), std::chrono::seconds(wait_s)}};
  }
  Json out = Json::array();
  for (const LoggedEvent& event : events) {
    if (principal->role == Role::kUser && event.job) {
      // Users see their own tenant's job events (and every node event).
      std::lock_guard lock(context.state.mu);
      auto it = context.state.jobs.find(*event.job);
      if (it != context.state.jobs.end() && it->second.spec.tenant != principal->tenant) continue;
    }
    out.push_back(EventJson(event));
  }
  const uint64_t next = events.empty() ? after : events.back().seq;
  return Reply{200, {{"events", std::move(out)}, {"next", next}}};
}

}  // namespace

void RegisterNodeRoutes(Router& server, ApiContext& context) {
  server.Get("/v1/nodes", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Nodes(context, request); });
  });
  server.Post("/v1/nodes/{}/drain", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Drain(context, request, true); });
  });
  server.Post("/v1/nodes/{}/undrain",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return Drain(context, request, false); });
              });
  server.Post("/v1/nodes/{}/devices/{}/{}",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return OperateDevice(context, request); });
              });
  server.Post("/v1/health/resume", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return ResumeHealth(context, request); });
  });
  server.Get("/v1/cluster", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return ClusterSummary(context, request); });
  });
  server.Get("/v1/floor", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Floor(context, request); });
  });
  server.Get("/v1/series", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Series(context, request); });
  });
  server.Get("/v1/events", [&context](const HttpRequest& request, HttpResponse& response) {
    Respond(response, [&] { return Events(context, request); });
  });
}

}  // namespace headroom::control
