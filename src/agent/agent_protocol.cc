#include "agent/agent_protocol.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "model/yaml_field.h"

namespace headroom::agent {
namespace {

using nlohmann::json;

json Optional(const std::optional<double>& value) { return value ? json(*value) : json(nullptr); }

// What a JSON value is, for "got ..." in messages.
std::string Describe(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  return model::QuoteForMessage(value.dump());
}

Error Invalid(std::string_view path, std::string_view expected, const json& got) {
  return Error{ErrorCode::kInvalidArgument,
               fmt::format("{}: expected {}, got {}", path, expected, Describe(got))};
}

Error Missing(std::string_view path, std::string_view expected) {
  return Error{ErrorCode::kInvalidArgument,
               fmt::format("{}: expected {}, got nothing", path, expected)};
}

Result<int64_t> Integer(const json& value, std::string_view path, int64_t min, int64_t max,
                        std::string_view expected) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned()) {
      const auto u = value.get<uint64_t>();
      if (u <= static_cast<uint64_t>(max) && static_cast<int64_t>(u) >= min) {
        return static_cast<int64_t>(u);
      }
    } else {
      const auto i = value.get<int64_t>();
      if (i >= min && i <= max) return i;
    }
  }
  return tl::unexpected(Invalid(path, expected, value));
}

Result<double> PositiveSeconds(const json& value, std::string_view path) {
  if (value.is_number()) {
    const double seconds = value.get<double>();
    if (std::isfinite(seconds) && seconds > 0.0 && seconds <= 86400.0) return seconds;
  }
  return tl::unexpected(Invalid(path, "seconds in (0, 86400]", value));
}

Result<json> ParseObject(std::string_view body, std::string_view what) {
  json document = json::parse(body.begin(), body.end(), nullptr, false);
  if (document.is_discarded()) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected a JSON object, got {}", what,
                     model::QuoteForMessage(body));
  }
  if (!document.is_object()) return tl::unexpected(Invalid(what, "a JSON object", document));
  return document;
}

Result<DesiredTask> ParseDesired(const json& item, const std::string& path) {
  if (!item.is_object()) return tl::unexpected(Invalid(path, "a task object", item));
  DesiredTask task;
  const auto field = [&](const char* name) { return fmt::format("{}.{}", path, name); };
  if (!item.contains("job")) return tl::unexpected(Missing(field("job"), "a job id"));
  YAML_FIELD_TRY(job, Integer(item["job"], field("job"), 0, std::numeric_limits<int64_t>::max(),
                              "a job id >= 0"));
  task.key.job = *job;
  if (!item.contains("world_size")) {
    return tl::unexpected(Missing(field("world_size"), "the gang size"));
  }
  YAML_FIELD_TRY(
      world, Integer(item["world_size"], field("world_size"), 1, 1'000'000, "a gang size >= 1"));
  task.world_size = static_cast<int>(*world);
  if (!item.contains("rank")) return tl::unexpected(Missing(field("rank"), "the task's rank"));
  YAML_FIELD_TRY(rank, Integer(item["rank"], field("rank"), 0, task.world_size - 1,
                               fmt::format("a rank in 0..{}", task.world_size - 1)));
  task.key.rank = static_cast<int>(*rank);
  if (item.contains("attempt")) {
    YAML_FIELD_TRY(attempt, Integer(item["attempt"], field("attempt"), 1,
                                    std::numeric_limits<uint32_t>::max(), "an attempt >= 1"));
    task.key.attempt = *attempt;
  }
  if (!item.contains("devices") || !item["devices"].is_array()) {
    return tl::unexpected(Invalid(field("devices"), "a list of device indices",
                                  item.contains("devices") ? item["devices"] : json(nullptr)));
  }
  std::set<int> seen;
  for (size_t i = 0; i < item["devices"].size(); ++i) {
    const std::string device_path = fmt::format("{}.devices[{}]", path, i);
    YAML_FIELD_TRY(index, Integer(item["devices"][i], device_path, 0, kMaxDeviceIndex,
                                  "a device index 0..1023"));
    if (!seen.insert(static_cast<int>(*index)).second) {
      return tl::unexpected(Invalid(device_path, "a device not listed before", item["devices"][i]));
    }
    task.devices.push_back(static_cast<int>(*index));
  }
  if (!item.contains("command") || !item["command"].is_array() || item["command"].empty()) {
    return tl::unexpected(Invalid(field("command"), "a non-empty list of strings",
                                  item.contains("command") ? item["command"] : json(nullptr)));
  }
  for (size_t i = 0; i < item["command"].size(); ++i) {
    const json& word = item["command"][i];
    if (!word.is_string() || word.get_ref<const std::string&>().find('\0') != std::string::npos) {
      return tl::unexpected(
          Invalid(fmt::format("{}.command[{}]", path, i), "a string without NUL bytes", word));
    }
    task.command.push_back(word.get<std::string>());
  }
  if (task.command[0].empty()) {
    return tl::unexpected(Invalid(field("command[0]"), "a program name", item["command"][0]));
  }
  if (item.contains("env") && !item["env"].is_null()) {
    if (!item["env"].is_object()) {
      return tl::unexpected(Invalid(field("env"), "an object of strings", item["env"]));
    }
    for (const auto& [name, value] : item["env"].items()) {
      const std::string env_path = fmt::format("{}.env.{}", path, name);
      if (name.empty() || name.find_first_of("=") != std::string::npos ||
          name.find('\0') != std::string::npos) {
        return tl::unexpected(Invalid(env_path, "a variable name without '=' or NUL", name));
      }
      if (!value.is_string() ||
          value.get_ref<const std::string&>().find('\0') != std::string::npos) {
        return tl::unexpected(Invalid(env_path, "a string without NUL bytes", value));
      }
      task.env[name] = value.get<std::string>();
    }
  }
  if (item.contains("rendezvous") && !item["rendezvous"].is_null()) {
    if (!item["rendezvous"].is_string()) {
      return tl::unexpected(Invalid(field("rendezvous"), "\"host:port\"", item["rendezvous"]));
    }
    task.rendezvous = item["rendezvous"].get<std::string>();
    if (task.rendezvous.find('\0') != std::string::npos) {
      return tl::unexpected(Invalid(field("rendezvous"), "\"host:port\"", item["rendezvous"]));
    }
  }
  if (item.contains("stop_grace_s") && !item["stop_grace_s"].is_null()) {
    YAML_FIELD_TRY(grace, Integer(item["stop_grace_s"], field("stop_grace_s"), 0, 86400,
                                  "seconds in 0..86400"));
    task.stop_grace_s = *grace;
  }
  if (item.contains("tenant") && !item["tenant"].is_null()) {
    if (!item["tenant"].is_string()) {
      return tl::unexpected(Invalid(field("tenant"), "a tenant name", item["tenant"]));
    }
    task.tenant = item["tenant"].get<std::string>();
  }
  return task;
}

}  // namespace

json DeviceJson(const InventoryDevice& device) {
  return {{"index", device.index},
          {"uuid", device.uuid},
          {"model", device.model},
          {"memory_mib", device.memory_mib},
          {"clique_id", device.clique_id ? json(*device.clique_id) : json(nullptr)}};
}

json TelemetryJson(const LabelledTelemetry& telemetry) {
  const DeviceTelemetry& r = telemetry.reading;
  return {{"index", r.index},
          {"temp_c", Optional(r.temp_c)},
          {"power_w", Optional(r.power_w)},
          {"util", Optional(r.util)},
          {"xid_errors", r.xid_errors ? json(*r.xid_errors) : json(nullptr)},
          {"job", telemetry.job ? json(*telemetry.job) : json(nullptr)},
          {"tenant", telemetry.tenant ? json(*telemetry.tenant) : json(nullptr)}};
}

json RegisterJson(const RegisterRequest& request) {
  json devices = json::array();
  for (const InventoryDevice& device : request.inventory.devices) {
    devices.push_back(DeviceJson(device));
  }
  return {{"node", request.node},
          {"cpu_milli", request.inventory.cpu_milli},
          {"memory_mib", request.inventory.memory_mib},
          {"ready", request.ready},
          {"readiness_message", request.readiness_message},
          {"devices", std::move(devices)},
          {"address", request.address}};
}

json HeartbeatJson(const HeartbeatRequest& request) {
  json tasks = json::array();
  for (const TaskReport& task : request.tasks) {
    json entry = {{"job", task.key.job},
                  {"rank", task.key.rank},
                  {"attempt", task.key.attempt},
                  {"state", task.state == TaskState::kRunning ? "running" : "exited"},
                  {"exit_code", task.exit_code ? json(*task.exit_code) : json(nullptr)},
                  {"pid", task.pid}};
    if (!task.message.empty()) entry["message"] = task.message;
    tasks.push_back(std::move(entry));
  }
  json telemetry = json::array();
  for (const LabelledTelemetry& entry : request.telemetry) {
    telemetry.push_back(TelemetryJson(entry));
  }
  return {{"ready", request.ready},
          {"readiness_message", request.readiness_message},
          {"tasks", std::move(tasks)},
          {"telemetry", std::move(telemetry)}};
}

Result<RegisterReply> ParseRegisterReply(std::string_view body) {
  YAML_FIELD_TRY(document, ParseObject(body, "register reply"));
  RegisterReply reply;
  if (!document->contains("heartbeat_interval_s")) {
    return tl::unexpected(Missing("heartbeat_interval_s", "seconds between heartbeats"));
  }
  YAML_FIELD_TRY(interval,
                 PositiveSeconds((*document)["heartbeat_interval_s"], "heartbeat_interval_s"));
  reply.heartbeat_interval_s = *interval;
  if (document->contains("grace_s")) {
    YAML_FIELD_TRY(grace, PositiveSeconds((*document)["grace_s"], "grace_s"));
    reply.grace_s = *grace;
  }
  return reply;
}

Result<std::vector<DesiredTask>> ParseHeartbeatReply(std::string_view body) {
  YAML_FIELD_TRY(document, ParseObject(body, "heartbeat reply"));
  if (!document->contains("tasks") || !(*document)["tasks"].is_array()) {
    return tl::unexpected(Invalid("tasks", "a list of tasks",
                                  document->contains("tasks") ? (*document)["tasks"] : json()));
  }
  std::vector<DesiredTask> tasks;
  std::set<std::pair<int64_t, int>> ranks;
  const json& list = (*document)["tasks"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("tasks[{}]", i);
    YAML_FIELD_TRY(task, ParseDesired(list[i], path));
    if (!ranks.insert({task->key.job, task->key.rank}).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected each (job, rank) once, got job {} rank {} again", path,
                       task->key.job, task->key.rank);
    }
    tasks.push_back(std::move(*task));
  }
  return tasks;
}

}  // namespace headroom::agent
