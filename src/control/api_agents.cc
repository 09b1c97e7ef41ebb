// Routes: agent registration, heartbeats and diagnostics (docs/api.md "Agents").
#include "control/api_routes.h"

#include <algorithm>
#include <optional>
#include <set>
#include <utility>

#include "model/diagnostics_protocol.h"
#include "model/heartbeat_reader.h"

namespace headroom::control {
namespace {

// Devices one node may register; their indices are in [0, kMaxDevicesPerNode).
constexpr int64_t kMaxDevicesPerNode = model::kMaxDeviceIndex + 1;

// 403 unless `principal` may act as `node`: an admin, or the agent token of that node.
ApiResult<void> CheckActsAs(const Principal& principal, const std::string& node) {
  if (principal.role == Role::kAdmin) return {};
  if (principal.role != Role::kAgent) {
    return Fail(403, "only agent tokens (or admin) register and heartbeat nodes");
  }
  if (principal.node != node) {
    return Fail(403, "this agent token is for node {}, not {}", QuoteExcerpt(principal.node),
                QuoteExcerpt(node));
  }
  return {};
}

ApiResult<Principal> AuthenticateAgent(ApiContext& context, const HttpRequest& request,
                                       const std::string& node) {
  auto principal = Authenticate(context, request);
  if (!principal) return principal;
  if (auto ok = CheckActsAs(*principal, node); !ok) return tl::unexpected(ok.error());
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

// What an agent's readiness check said: its own words (the CLI escapes control bytes when it
// prints them), bounded.
ApiResult<std::string> ReadinessMessage(const Json& body) {
  auto message = StringField(body, "readiness_message", "readiness_message", false);
  if (message && message->size() > model::kMaxReadinessMessageBytes) {
    return Fail(400, "readiness_message: expected at most {} bytes, got {}",
                model::kMaxReadinessMessageBytes, message->size());
  }
  return message;
}

// A string member that may be absent or empty, else a label (control/names.h).
ApiResult<std::string> OptionalLabel(const Json& object, std::string_view key,
                                     const std::string& path) {
  auto text = StringField(object, key, path, false);
  if (!text || text->empty()) return text;
  return NameField(object, key, path, NameKind::kLabel);
}

// The inventory, checked as a job spec is: known fields only, each device index and UUID once
// (two devices of one index would hand one GPU to two jobs), names and sizes bounded.
ApiResult<std::vector<model::RegisteredDevice>> ParseDevices(const Json& body) {
  std::vector<model::RegisteredDevice> devices;
  auto it = body.find("devices");
  if (it == body.end() || it->is_null()) return devices;
  if (!it->is_array() || it->size() > kMaxDevicesPerNode) {
    return Fail(400, "devices: expected a list of at most {} devices, got {}", kMaxDevicesPerNode,
                DescribeJson(*it));
  }
  std::map<uint32_t, size_t> item_of_index;
  std::map<std::string, size_t> item_of_uuid;
  for (size_t i = 0; i < it->size(); ++i) {
    const Json& item = (*it)[i];
    const std::string path = fmt::format("devices[{}]", i);
    if (!item.is_object())
      return Fail(400, "{}: expected an object, got {}", path, DescribeJson(item));
    if (auto ok =
            RejectUnknownFields(item, path, {"index", "uuid", "model", "memory_mib", "clique_id"});
        !ok) {
      return tl::unexpected(ok.error());
    }
    auto index = IntField(item, "index", path + ".index", 0, kMaxDevicesPerNode - 1, std::nullopt);
    if (!index) return tl::unexpected(index.error());
    if (auto [seen, added] = item_of_index.emplace(static_cast<uint32_t>(*index), i); !added) {
      return Fail(400, "{}.index: expected each device index once, got {} again (devices[{}])",
                  path, *index, seen->second);
    }
    auto uuid = OptionalLabel(item, "uuid", path + ".uuid");
    if (!uuid) return tl::unexpected(uuid.error());
    if (!uuid->empty()) {
      if (auto [seen, added] = item_of_uuid.emplace(*uuid, i); !added) {
        return Fail(400, "{}.uuid: expected each device UUID once, got {} again (devices[{}])",
                    path, QuoteExcerpt(*uuid), seen->second);
      }
    }
    auto device_model = NameField(item, "model", path + ".model", NameKind::kLabel);
    if (!device_model) return tl::unexpected(device_model.error());
    auto memory = IntField(item, "memory_mib", path + ".memory_mib", 0, int64_t{1} << 32, 0);
    if (!memory) return tl::unexpected(memory.error());
    auto clique = OptionalLabel(item, "clique_id", path + ".clique_id");
    if (!clique) return tl::unexpected(clique.error());
    devices.push_back(model::RegisteredDevice{static_cast<uint32_t>(*index), *uuid, *device_model,
                                              *memory, *clique});
  }
  return devices;
}

ApiResult<Reply> Register(ApiContext& context, const HttpRequest& request) {
  // The token first: a caller without one costs no parse. The node it may act as is in the body.
  auto principal = Authenticate(context, request);
  if (!principal) return tl::unexpected(principal.error());
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  if (auto ok = RejectUnknownFields(
          *body, "",
          {"node", "cpu_milli", "memory_mib", "ready", "readiness_message", "devices", "address"});
      !ok) {
    return tl::unexpected(ok.error());
  }
  auto name = NameField(*body, "node", "node", NameKind::kNode);
  if (!name) return tl::unexpected(name.error());
  if (auto ok = CheckActsAs(*principal, *name); !ok) return tl::unexpected(ok.error());
  if (auto ok = RequireAgentsBackend(context); !ok) return tl::unexpected(ok.error());
  auto cpu = IntField(*body, "cpu_milli", "cpu_milli", 0, int64_t{1} << 40, std::nullopt);
  if (!cpu) return tl::unexpected(cpu.error());
  auto memory = IntField(*body, "memory_mib", "memory_mib", 0, int64_t{1} << 40, std::nullopt);
  if (!memory) return tl::unexpected(memory.error());
  auto ready = BoolField(*body, "ready", "ready", true);
  if (!ready) return tl::unexpected(ready.error());
  auto message = ReadinessMessage(*body);
  if (!message) return tl::unexpected(message.error());
  auto address = NameField(*body, "address", "address", NameKind::kAddress);
  if (!address) return tl::unexpected(address.error());
  auto devices = ParseDevices(*body);
  if (!devices) return tl::unexpected(devices.error());

  const TimeUs now = context.clock.WallNowUs();
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
  bool abandoned = false;
  {
    std::lock_guard lock(context.state.mu);
    NodeStatus& status = context.state.nodes[*name];
    if (auto parked = context.state.parked_health_books.find(*name);
        parked != context.state.parked_health_books.end()) {
      status.health_book = std::move(parked->second);
      context.state.parked_health_books.erase(parked);
    }
    status.record = record;
    status.health = NodeHealth::kUp;
    status.ready = *ready;
    status.readiness_message = *message;
    status.last_heartbeat_us = now;
    ++context.state.node_gates_version;
    status.abandoned_attempts = RunningAttemptsOn(context.state, *name);
    abandoned = !status.abandoned_attempts.empty();
  }
  context.events.Append(LoggedEvent{
      .time_us = context.clock.NowUs(),
      .type = "node_registered",
      .node = *name,
      .message = fmt::format("node {} registered with {} devices", *name, devices->size())});
  if (changed) context.agents->Registered();
  if (abandoned) context.agents->Abandoned();
  context.loop.Wake();
  const AgentsOptions& options = context.agents->options();
  return Reply{200, model::RegisterReplyJson(
                        {.heartbeat_interval_s = UsToSeconds(options.heartbeat_interval_us),
                         .grace_s = UsToSeconds(options.grace_us)})};
}

// The device indices of `node` that its running tasks use. Caller holds state.mu.
std::set<uint32_t> DevicesInUse(const DaemonState& state, const std::string& node) {
  std::set<uint32_t> used;
  for (uint64_t id : state.jobs.RunningOn(node)) {
    for (const TaskPlacement& task : state.jobs.at(id).placement) {
      if (task.node == node) used.insert(task.device_indices.begin(), task.device_indices.end());
    }
  }
  return used;
}

// Suspect devices of `status` that no task uses go to diagnostics while fewer than the rules'
// share of all devices diagnose; returns whether any did. Caller holds state.mu.
bool StartDiagnoses(DaemonState& state, const std::string& node, NodeStatus& status) {
  const double share = state.health_rules.diagnose_share;
  if (!status.runs_diagnostics || share <= 0 ||
      status.health_book.count(DeviceState::kSuspect) == 0) {
    return false;
  }
  size_t devices = 0;
  size_t diagnosing = 0;
  for (const auto& [name, other] : state.nodes) {
    devices += other.record.devices.size();
    diagnosing += other.health_book.count(DeviceState::kDiagnosing);
  }
  const auto cap = std::max<size_t>(1, static_cast<size_t>(share * static_cast<double>(devices)));
  const std::set<uint32_t> used = DevicesInUse(state, node);
  bool started = false;
  for (const auto& [index, health] : status.health_book.devices()) {
    if (diagnosing >= cap) break;
    if (health.state != DeviceState::kSuspect || used.count(index) != 0) continue;
    if (status.health_book.StartDiagnosis(index, status.last_heartbeat_us)) {
      ++diagnosing;
      started = true;
    }
  }
  return started;
}

// GET /v1/agents/{node}/diagnostics: the node's diagnosing devices that no task uses.
ApiResult<Reply> DiagnosticsWanted(ApiContext& context, const HttpRequest& request) {
  const std::string name = request.matches[1];
  auto principal = AuthenticateAgent(context, request, name);
  if (!principal) return tl::unexpected(principal.error());
  if (auto ok = RequireAgentsBackend(context); !ok) return tl::unexpected(ok.error());
  std::vector<uint32_t> wanted;
  {
    std::lock_guard lock(context.state.mu);
    auto it = context.state.nodes.find(name);
    if (it == context.state.nodes.end() || !it->second.record.registered) {
      return Fail(404, "node {} is not registered; POST /v1/agents/register first",
                  QuoteExcerpt(name));
    }
    it->second.runs_diagnostics = true;
    const std::set<uint32_t> used = DevicesInUse(context.state, name);
    for (const auto& [index, health] : it->second.health_book.devices()) {
      if (health.state == DeviceState::kDiagnosing && used.count(index) == 0) {
        wanted.push_back(index);
      }
    }
  }
  return Reply{200, model::DiagnoseJson(wanted)};
}

// POST /v1/agents/{node}/diagnostics: results move diagnosing devices to healthy or failed.
ApiResult<Reply> DiagnosticsDone(ApiContext& context, const HttpRequest& request) {
  const std::string name = request.matches[1];
  auto principal = AuthenticateAgent(context, request, name);
  if (!principal) return tl::unexpected(principal.error());
  if (auto ok = RequireAgentsBackend(context); !ok) return tl::unexpected(ok.error());
  auto body = ParseBody(request.body);
  if (!body) return tl::unexpected(body.error());
  auto results = model::ParseDiagnosticsResults(*body);
  if (!results) return Fail(400, "{}", results.error().message);
  size_t accepted = 0;
  {
    std::lock_guard lock(context.state.mu);
    auto it = context.state.nodes.find(name);
    if (it == context.state.nodes.end() || !it->second.record.registered) {
      return Fail(404, "node {} is not registered; POST /v1/agents/register first",
                  QuoteExcerpt(name));
    }
    NodeStatus& status = it->second;
    for (const model::DiagnosticsResult& result : *results) {
      if (status.health_book.Diagnosed(result.index, result.passed, result.message,
                                       context.clock.WallNowUs())) {
        ++accepted;
      }
    }
    if (accepted > 0) {
      ++status.health_version;
      ++context.state.node_gates_version;
    }
  }
  if (accepted > 0) context.loop.Wake();
  return Reply{200, {{"accepted", accepted}}};
}

// Heartbeats are answered on the event thread (12,500 agents send 1,250 a second, and a hand-off
// to the pool and back cost more than the handler), unless the state's lock is held: the loop
// may hold it for a second while it rebuilds, and the event thread must keep serving /healthz.
ApiResult<Reply> Heartbeat(ApiContext& context, const HttpRequest& request, bool& run_on_pool) {
  const std::string name = request.matches[1];
  auto principal = AuthenticateAgent(context, request, name);
  if (!principal) return tl::unexpected(principal.error());
  if (auto ok = RequireAgentsBackend(context); !ok) return tl::unexpected(ok.error());
  // The fast reader takes what agents send; anything else is read the slow way, which says
  // what is wrong with it.
  std::optional<model::HeartbeatRequest> heartbeat = model::ReadPlainHeartbeat(request.body);
  if (!heartbeat) {
    auto body = ParseBody(request.body);
    if (!body) return tl::unexpected(body.error());
    auto parsed = model::ParseHeartbeatRequest(*body);
    if (!parsed) return Fail(400, "{}", parsed.error().message);
    heartbeat = std::move(*parsed);
  }
  for (size_t i = 0; i < heartbeat->telemetry.size(); ++i) {
    // A tenant label becomes a /metrics label value: absent, "" or a valid tenant name.
    const std::string& tenant = heartbeat->telemetry[i].tenant.value_or("");
    if (!tenant.empty() && !IsValidName(tenant, NameKind::kLabel)) {
      return Fail(400, "telemetry[{}].tenant: expected {}, got {}", i,
                  NameExpectation(NameKind::kLabel), QuoteExcerpt(tenant));
    }
  }
  std::vector<ReportedExit> exits;
  for (const model::TaskReport& task : heartbeat->tasks) {
    if (task.state != model::TaskState::kExited) continue;
    exits.push_back(ReportedExit{
        .job = static_cast<uint64_t>(task.key.job),
        .rank = static_cast<uint32_t>(task.key.rank),
        .exit_code = static_cast<int32_t>(*task.exit_code),
        .attempt = task.key.attempt == 0 ? std::nullopt
                                         : std::optional(static_cast<uint32_t>(task.key.attempt))});
  }
  const int64_t stop_grace_s = context.agents->options().stop_grace_s;
  std::vector<model::DesiredTask> tasks;
  bool ready_changed = false;
  bool unstarted = false;
  {
    std::unique_lock lock(context.state.mu, std::defer_lock);
    if (!request.on_event_thread) {
      lock.lock();
    } else if (!lock.try_lock()) {
      run_on_pool = true;
      return Reply{};
    }
    auto it = context.state.nodes.find(name);
    if (it == context.state.nodes.end() || !it->second.record.registered) {
      return Fail(404, "node {} is not registered; POST /v1/agents/register first",
                  QuoteExcerpt(name));
    }
    NodeStatus& status = it->second;
    if (status.health == NodeHealth::kDown) {
      // Its jobs were requeued: the agent must stop what it runs and register again.
      return Fail(404, "node {} was down and its jobs were requeued; register again",
                  QuoteExcerpt(name));
    }
    ready_changed = status.ready != heartbeat->ready || status.health != NodeHealth::kUp;
    if (ready_changed) ++context.state.node_gates_version;
    status.health = NodeHealth::kUp;
    status.ready = heartbeat->ready;
    status.readiness_message = std::move(heartbeat->readiness_message);
    status.last_heartbeat_us = context.clock.WallNowUs();
    status.telemetry = std::move(heartbeat->telemetry);
    const HealthRules& rules = context.state.health_rules;
    auto failing = status.health_book.Observe(status.telemetry, status.last_heartbeat_us, rules);
    auto cleared = status.health_book.Expire(status.last_heartbeat_us, rules);
    const bool diagnosing = StartDiagnoses(context.state, name, status);
    if (!failing.empty() || !cleared.empty() || diagnosing) {
      // The loop withdraws the devices from the engine, requeues what a failure ended, and
      // stores the book.
      ++status.health_version;
      ++context.state.node_gates_version;
      ready_changed = true;
    }
    exits = ExitsPlacedOn(context.state, name, std::move(exits));
    unstarted =
        NoteUnstartedAttempts(context.state, name, status, heartbeat->tasks, heartbeat->ready);
    tasks = DesiredTasks(context.state, name, stop_grace_s);
  }
  // The reply is built after the state's lock is let go: 1,250 heartbeats a second (12,500
  // nodes) would otherwise hold it from submissions and the loop.
  Json reply = model::HeartbeatReplyJson(tasks);
  const bool exited = !exits.empty();
  if (exited) context.agents->Reported(std::move(exits));
  if (unstarted) context.agents->Abandoned();
  if (exited || ready_changed || unstarted) context.loop.Wake();
  return Reply{200, std::move(reply)};
}

}  // namespace

void RegisterAgentRoutes(Router& server, ApiContext& context) {
  server.Get("/v1/agents/{}/diagnostics",
             [&context](const HttpRequest& request, HttpResponse& response) {
               Respond(response, [&] { return DiagnosticsWanted(context, request); });
             });
  server.Post("/v1/agents/{}/diagnostics",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return DiagnosticsDone(context, request); });
              });
  server.Post("/v1/agents/register",
              [&context](const HttpRequest& request, HttpResponse& response) {
                Respond(response, [&] { return Register(context, request); });
              });
  server.Post(
      "/v1/agents/{}/heartbeat",
      [&context](const HttpRequest& request, HttpResponse& response) {
        Respond(response, [&] { return Heartbeat(context, request, response.run_on_pool); });
      },
      RouteAccess::kToken, RouteRunner::kInline);
}

}  // namespace headroom::control
