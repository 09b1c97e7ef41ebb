// Routes: agent registration and heartbeats (docs/api.md "Agents").
#include "control/api_routes.h"

namespace headroom::control {
namespace {

ApiResult<Principal> AuthenticateAgent(ApiContext& context, const httplib::Request& request,
                                       const std::string& node) {
  auto principal = Authenticate(context, request);
  if (!principal) return principal;
  if (principal->role == Role::kAdmin) return principal;
  if (principal->role != Role::kAgent) {
    return Fail(403, "only agent tokens (or admin) register and heartbeat nodes");
  }
  if (principal->node != node) {
    return Fail(403, "this agent token is for node '{}', not '{}'", principal->node, node);
  }
  return principal;
}

ApiResult<void> RequireAgentsBackend(const ApiContext& context) {
  if (context.agents == nullptr) {
    return Fail(409,
                "this headroomd runs the simulated backend; start it with --backend agents "
                "to accept agents");
  }
  return {};
}

ApiResult<std::vector<DeviceInventory>> ParseDevices(const Json& body) {
  std::vector<DeviceInventory> devices;
  auto it = body.find("devices");
  if (it == body.end() || it->is_null()) return devices;
  if (!it->is_array() || it->size() > 1024) {
    return Fail(400, "devices: expected a list of at most 1024 devices");
  }
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& item = (*it)[i];
    const std::string path = fmt::format("devices[{}]", i);
    if (!item.is_object()) return Fail(400, "{}: expected an object", path);
    auto index = IntField(item, "index", path + ".index", 0, 1023, std::nullopt);
    if (!index) return tl::unexpected(index.error());
    auto uuid = StringField(item, "uuid", path + ".uuid", false);
    if (!uuid) return tl::unexpected(uuid.error());
    auto model = StringField(item, "model", path + ".model", true);
    if (!model) return tl::unexpected(model.error());
    auto memory = IntField(item, "memory_mib", path + ".memory_mib", 0, int64_t{1} << 32, 0);
    if (!memory) return tl::unexpected(memory.error());
    auto clique = StringField(item, "clique_id", path + ".clique_id", false);
    if (!clique) return tl::unexpected(clique.error());
    devices.push_back(
        DeviceInventory{static_cast<uint32_t>(*index), *uuid, *model, *memory, *clique});
  }
  return devices;
}

ApiResult<Reply> Register(ApiContext& context, const httplib::Request& request) {
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  auto name = StringField(*body, "node", "node", true);
  if (!name) return tl::unexpected(name.error());
  if (name->empty() || name->size() > 253) return Fail(400, "node: expected a node name");
  auto principal = AuthenticateAgent(context, request, *name);
  if (!principal) return tl::unexpected(principal.error());
  if (auto ok = RequireAgentsBackend(context); !ok) return tl::unexpected(ok.error());
  auto cpu = IntField(*body, "cpu_milli", "cpu_milli", 0, int64_t{1} << 40, std::nullopt);
  if (!cpu) return tl::unexpected(cpu.error());
  auto memory = IntField(*body, "memory_mib", "memory_mib", 0, int64_t{1} << 40, std::nullopt);
  if (!memory) return tl::unexpected(memory.error());
  auto ready = BoolField(*body, "ready", "ready", true);
  if (!ready) return tl::unexpected(ready.error());
  auto message = StringField(*body, "readiness_message", "readiness_message", false);
  if (!message) return tl::unexpected(message.error());
  auto address = StringField(*body, "address", "address", false);
  if (!address) return tl::unexpected(address.error());
  auto devices = ParseDevices(*body);
  if (!devices) return tl::unexpected(devices.error());

  const TimeUs now = WallNowUs();
  NodeRecord record;
  bool changed = true;
  {
    std::lock_guard lock(context.state.mu);
    auto it = context.state.nodes.find(*name);
    if (it != context.state.nodes.end()) {
      record = it->second.record;
      changed = !record.registered || record.cpu_milli != *cpu || record.memory_mib != *memory ||
                record.devices != *devices || record.address != *address;
    }
  }
  record.name = *name;
  record.registered = true;
  record.cpu_milli = *cpu;
  record.memory_mib = *memory;
  record.devices = *devices;
  record.address = *address;
  if (changed) {
    if (auto ok = context.journal.Commit({record}); !ok) return StoreFailure(ok.error());
  }
  {
    std::lock_guard lock(context.state.mu);
    NodeStatus& status = context.state.nodes[*name];
    status.record = record;
    status.health = NodeHealth::kUp;
    status.ready = *ready;
    status.readiness_message = *message;
    status.last_heartbeat_us = now;
  }
  context.events.Append(LoggedEvent{
      .time_us = context.clock.NowUs(),
      .type = "node_registered",
      .node = *name,
      .message = fmt::format("node {} registered with {} devices", *name, devices->size())});
  if (changed) context.agents->Registered();
  context.loop.Wake();
  const AgentsOptions& options = context.agents->options();
  return Reply{200,
               {{"heartbeat_interval_s", UsToSeconds(options.heartbeat_interval_us)},
                {"grace_s", UsToSeconds(options.grace_us)}}};
}

ApiResult<std::vector<DeviceTelemetry>> ParseTelemetry(const Json& body) {
  std::vector<DeviceTelemetry> telemetry;
  auto it = body.find("telemetry");
  if (it == body.end() || it->is_null()) return telemetry;
  if (!it->is_array() || it->size() > 1024) return Fail(400, "telemetry: expected a list");
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& item = (*it)[i];
    const std::string path = fmt::format("telemetry[{}]", i);
    if (!item.is_object()) return Fail(400, "{}: expected an object", path);
    DeviceTelemetry device;
    auto index = IntField(item, "index", path + ".index", 0, 1023, std::nullopt);
    if (!index) return tl::unexpected(index.error());
    device.index = static_cast<uint32_t>(*index);
    auto temp = NumberField(item, "temp_c", path + ".temp_c");
    auto power = NumberField(item, "power_w", path + ".power_w");
    auto util = NumberField(item, "util", path + ".util");
    if (!temp) return tl::unexpected(temp.error());
    if (!power) return tl::unexpected(power.error());
    if (!util) return tl::unexpected(util.error());
    device.temp_c = *temp;
    device.power_w = *power;
    device.util = *util;
    auto xid = IntField(item, "xid_errors", path + ".xid_errors", 0, INT64_MAX, 0);
    if (!xid) return tl::unexpected(xid.error());
    device.xid_errors = *xid;
    if (auto job = item.find("job"); job != item.end() && job->is_number_unsigned()) {
      device.job = job->get<uint64_t>();
    }
    auto tenant = StringField(item, "tenant", path + ".tenant", false);
    if (!tenant) return tl::unexpected(tenant.error());
    device.tenant = *tenant;
    telemetry.push_back(std::move(device));
  }
  return telemetry;
}

ApiResult<Reply> Heartbeat(ApiContext& context, const httplib::Request& request) {
  const std::string name = request.matches[1];
  auto principal = AuthenticateAgent(context, request, name);
  if (!principal) return tl::unexpected(principal.error());
  if (auto ok = RequireAgentsBackend(context); !ok) return tl::unexpected(ok.error());
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  auto ready = BoolField(*body, "ready", "ready", true);
  if (!ready) return tl::unexpected(ready.error());
  auto message = StringField(*body, "readiness_message", "readiness_message", false);
  if (!message) return tl::unexpected(message.error());
  std::vector<ReportedExit> exits;
  if (auto tasks = body->find("tasks"); tasks != body->end() && !tasks->is_null()) {
    if (!tasks->is_array()) return Fail(400, "tasks: expected a list");
    for (size_t i = 0; i < tasks->size(); ++i) {
      const Json& task = (*tasks)[i];
      const std::string path = fmt::format("tasks[{}]", i);
      if (!task.is_object()) return Fail(400, "{}: expected an object", path);
      auto job = IntField(task, "job", path + ".job", 0, INT64_MAX, std::nullopt);
      if (!job) return tl::unexpected(job.error());
      auto rank = IntField(task, "rank", path + ".rank", 0, 1'000'000, std::nullopt);
      if (!rank) return tl::unexpected(rank.error());
      auto state = StringField(task, "state", path + ".state", true);
      if (!state) return tl::unexpected(state.error());
      if (*state != "running" && *state != "exited") {
        return Fail(400, "{}.state: expected running or exited, got \"{}\"", path,
                    state->substr(0, 40));
      }
      if (*state == "exited") {
        auto code =
            IntField(task, "exit_code", path + ".exit_code", INT32_MIN, INT32_MAX, std::nullopt);
        if (!code) return tl::unexpected(code.error());
        std::optional<uint32_t> attempt;
        if (task.contains("attempt") && !task["attempt"].is_null()) {
          auto value = IntField(task, "attempt", path + ".attempt", 1, UINT32_MAX, std::nullopt);
          if (!value) return tl::unexpected(value.error());
          attempt = static_cast<uint32_t>(*value);
        }
        exits.push_back(ReportedExit{static_cast<uint64_t>(*job), static_cast<uint32_t>(*rank),
                                     static_cast<int32_t>(*code), attempt});
      }
    }
  }
  auto telemetry = ParseTelemetry(*body);
  if (!telemetry) return tl::unexpected(telemetry.error());
  Json desired = Json::array();
  bool ready_changed = false;
  {
    std::lock_guard lock(context.state.mu);
    auto it = context.state.nodes.find(name);
    if (it == context.state.nodes.end() || !it->second.record.registered) {
      return Fail(404, "node '{}' is not registered; POST /v1/agents/register first", name);
    }
    NodeStatus& status = it->second;
    if (status.health != NodeHealth::kDown) {
      ready_changed = status.ready != *ready || status.health != NodeHealth::kUp;
      status.health = NodeHealth::kUp;
      status.ready = *ready;
      status.readiness_message = *message;
      status.last_heartbeat_us = WallNowUs();
      status.telemetry = std::move(*telemetry);
    }
    for (const DesiredTask& task : DesiredTasks(context.state, name)) {
      Json env = Json::object();
      for (const auto& [key, value] : task.env) env[key] = value;
      desired.push_back({{"job", task.job},
                         {"rank", task.rank},
                         {"attempt", task.attempt},
                         {"world_size", task.world_size},
                         {"devices", task.devices},
                         {"command", task.command},
                         {"env", std::move(env)},
                         {"rendezvous", task.rendezvous},
                         {"tenant", task.tenant},
                         {"stop_grace_s", 30}});
    }
  }
  const bool exited = !exits.empty();
  if (exited) context.agents->Reported(std::move(exits));
  if (exited || ready_changed) context.loop.Wake();
  return Reply{200, {{"tasks", std::move(desired)}}};
}

}  // namespace

void RegisterAgentRoutes(httplib::Server& server, ApiContext& context) {
  server.Post("/v1/agents/register",
              [&context](const httplib::Request& request, httplib::Response& response) {
                Respond(response, [&] { return Register(context, request); });
              });
  server.Post(R"(/v1/agents/([^/]+)/heartbeat)",
              [&context](const httplib::Request& request, httplib::Response& response) {
                Respond(response, [&] { return Heartbeat(context, request); });
              });
}

}  // namespace headroom::control
