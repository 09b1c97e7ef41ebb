#include "model/agent_protocol.h"

#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "model/yaml_field.h"

namespace headroom::model {
namespace {

using nlohmann::json;

template <typename T>
json Optional(const std::optional<T>& value) {
  return value ? json(*value) : json(nullptr);
}

// What a JSON value is, for "got ..." in messages.
std::string Describe(const json& value) {
  if (value.is_null()) return "null";
  if (value.is_object()) return "an object";
  if (value.is_array()) return "a list";
  return model::QuoteForMessage(value.is_string() ? value.get<std::string>() : value.dump());
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
  YAML_FIELD_TRY(world, Integer(item["world_size"], field("world_size"), 1, kMaxWorldSize,
                                "a gang size >= 1"));
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
    YAML_FIELD_TRY(grace, Integer(item["stop_grace_s"], field("stop_grace_s"), 0, kMaxStopGraceS,
                                  fmt::format("seconds in 0..{}", kMaxStopGraceS)));
    task.stop_grace_s = *grace;
  }
  if (item.contains("checkpoint_interval_s") && !item["checkpoint_interval_s"].is_null()) {
    YAML_FIELD_TRY(interval, Integer(item["checkpoint_interval_s"], field("checkpoint_interval_s"),
                                     1, kMaxCheckpointIntervalS,
                                     fmt::format("seconds in 1..{}", kMaxCheckpointIntervalS)));
    task.checkpoint_interval_s = *interval;
  }
  if (item.contains("power_cap_w") && !item["power_cap_w"].is_null()) {
    YAML_FIELD_TRY(cap, Integer(item["power_cap_w"], field("power_cap_w"), 1, kMaxPowerCapW,
                                fmt::format("watts in 1..{}", kMaxPowerCapW)));
    task.power_cap_w = *cap;
  }
  if (item.contains("tenant") && !item["tenant"].is_null()) {
    if (!item["tenant"].is_string()) {
      return tl::unexpected(Invalid(field("tenant"), "a tenant name", item["tenant"]));
    }
    task.tenant = item["tenant"].get<std::string>();
  }
  return task;
}

// A member that is present and not null, else nullptr.
const json* Present(const json& object, const char* key) {
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

Result<std::optional<double>> OptionalNumber(const json& object, const char* key,
                                             const std::string& path) {
  const json* value = Present(object, key);
  if (value == nullptr) return std::optional<double>();
  if (!value->is_number() || !std::isfinite(value->get<double>())) {
    return tl::unexpected(Invalid(fmt::format("{}.{}", path, key), "a number or null", *value));
  }
  return std::optional<double>(value->get<double>());
}

Result<std::optional<std::string>> OptionalString(const json& object, const char* key,
                                                  const std::string& path, size_t max_bytes) {
  const json* value = Present(object, key);
  if (value == nullptr) return std::optional<std::string>();
  if (!value->is_string() || value->get_ref<const std::string&>().size() > max_bytes) {
    return tl::unexpected(Invalid(fmt::format("{}{}{}", path, path.empty() ? "" : ".", key),
                                  fmt::format("a string of at most {} bytes", max_bytes), *value));
  }
  return std::optional<std::string>(value->get<std::string>());
}

Result<TaskReport> ParseReport(const json& item, const std::string& path) {
  if (!item.is_object()) return tl::unexpected(Invalid(path, "a task object", item));
  TaskReport report;
  const auto field = [&](const char* name) { return fmt::format("{}.{}", path, name); };
  const json* job = Present(item, "job");
  if (job == nullptr) return tl::unexpected(Missing(field("job"), "a job id"));
  YAML_FIELD_TRY(
      id, Integer(*job, field("job"), 0, std::numeric_limits<int64_t>::max(), "a job id >= 0"));
  report.key.job = *id;
  const json* rank = Present(item, "rank");
  if (rank == nullptr) return tl::unexpected(Missing(field("rank"), "the task's rank"));
  YAML_FIELD_TRY(r, Integer(*rank, field("rank"), 0, kMaxWorldSize,
                            fmt::format("a rank in 0..{}", kMaxWorldSize)));
  report.key.rank = static_cast<int>(*r);
  report.key.attempt = 0;
  if (const json* attempt = Present(item, "attempt")) {
    YAML_FIELD_TRY(a, Integer(*attempt, field("attempt"), 1, std::numeric_limits<uint32_t>::max(),
                              "an attempt >= 1"));
    report.key.attempt = *a;
  }
  const json* state = Present(item, "state");
  if (state == nullptr || !state->is_string() || (*state != "running" && *state != "exited")) {
    return tl::unexpected(
        Invalid(field("state"), "running or exited", state == nullptr ? json(nullptr) : *state));
  }
  report.state = *state == "running" ? TaskState::kRunning : TaskState::kExited;
  const json* code = Present(item, "exit_code");
  if (report.state == TaskState::kExited && code == nullptr) {
    return tl::unexpected(Missing(field("exit_code"), "the exit status of an exited task"));
  }
  if (code != nullptr) {
    YAML_FIELD_TRY(c, Integer(*code, field("exit_code"), std::numeric_limits<int32_t>::min(),
                              std::numeric_limits<int32_t>::max(), "an exit status"));
    report.exit_code = static_cast<int>(*c);
  }
  if (const json* pid = Present(item, "pid")) {
    YAML_FIELD_TRY(
        p, Integer(*pid, field("pid"), 0, std::numeric_limits<pid_t>::max(), "a process id >= 0"));
    report.pid = static_cast<pid_t>(*p);
  }
  YAML_FIELD_TRY(message, OptionalString(item, "message", path, kMaxReadinessMessageBytes));
  report.message = message->value_or("");
  return report;
}

Result<LabelledTelemetry> ParseTelemetry(const json& item, const std::string& path) {
  if (!item.is_object()) return tl::unexpected(Invalid(path, "a device's readings", item));
  LabelledTelemetry telemetry;
  DeviceTelemetry& reading = telemetry.reading;
  const json* index = Present(item, "index");
  if (index == nullptr) return tl::unexpected(Missing(path + ".index", "a device index"));
  YAML_FIELD_TRY(i, Integer(*index, path + ".index", 0, kMaxDeviceIndex, "a device index 0..1023"));
  reading.index = static_cast<int>(*i);
  YAML_FIELD_TRY(temp, OptionalNumber(item, "temp_c", path));
  YAML_FIELD_TRY(power, OptionalNumber(item, "power_w", path));
  YAML_FIELD_TRY(util, OptionalNumber(item, "util", path));
  reading.temp_c = *temp;
  reading.power_w = *power;
  reading.util = *util;
  if (const json* xid = Present(item, "xid_errors")) {
    YAML_FIELD_TRY(x, Integer(*xid, path + ".xid_errors", 0, std::numeric_limits<int64_t>::max(),
                              "an XID >= 0"));
    reading.xid_errors = *x;
  }
  for (auto [key, counter] : {std::pair{"ecc_uncorrectable", &reading.ecc_uncorrectable},
                              std::pair{"remapped_rows", &reading.remapped_rows},
                              std::pair{"nvlink_errors", &reading.nvlink_errors}}) {
    if (const json* value = Present(item, key)) {
      YAML_FIELD_TRY(count, Integer(*value, fmt::format("{}.{}", path, key), 0,
                                    std::numeric_limits<int64_t>::max(), "a count >= 0"));
      *counter = *count;
    }
  }
  if (const json* failed = Present(item, "row_remap_failure")) {
    if (!failed->is_boolean()) {
      return tl::unexpected(Invalid(path + ".row_remap_failure", "true or false", *failed));
    }
    reading.row_remap_failure = failed->get<bool>();
  }
  if (const json* job = Present(item, "job")) {
    YAML_FIELD_TRY(
        j, Integer(*job, path + ".job", 0, std::numeric_limits<int64_t>::max(), "a job id >= 0"));
    telemetry.job = *j;
  }
  YAML_FIELD_TRY(tenant, OptionalString(item, "tenant", path, kMaxTenantLabelBytes));
  telemetry.tenant = std::move(*tenant);
  return telemetry;
}

// A list member: absent or null is empty; more than `max_items` is an error.
Result<const json*> List(const json& object, const char* key, size_t max_items) {
  const json* list = Present(object, key);
  if (list != nullptr && (!list->is_array() || list->size() > max_items)) {
    return tl::unexpected(Invalid(key, fmt::format("a list of at most {}", max_items), *list));
  }
  return list;
}

}  // namespace

// The heartbeat and its reply fill their objects key by key: a braced list of pairs copies each
// value once more, and 12,500 nodes send 1,250 heartbeats a second.
json TelemetryJson(const LabelledTelemetry& telemetry) {
  const DeviceTelemetry& r = telemetry.reading;
  json out(json::value_t::object);
  out["index"] = r.index;
  out["temp_c"] = Optional(r.temp_c);
  out["power_w"] = Optional(r.power_w);
  out["util"] = Optional(r.util);
  out["xid_errors"] = Optional(r.xid_errors);
  out["ecc_uncorrectable"] = Optional(r.ecc_uncorrectable);
  out["remapped_rows"] = Optional(r.remapped_rows);
  out["row_remap_failure"] = Optional(r.row_remap_failure);
  out["nvlink_errors"] = Optional(r.nvlink_errors);
  out["job"] = Optional(telemetry.job);
  out["tenant"] = Optional(telemetry.tenant);
  return out;
}

json HeartbeatJson(const HeartbeatRequest& request) {
  json out(json::value_t::object);
  out["ready"] = request.ready;
  out["readiness_message"] = request.readiness_message;
  auto& tasks = (out["tasks"] = json::array()).get_ref<json::array_t&>();
  tasks.reserve(request.tasks.size());
  for (const TaskReport& task : request.tasks) {
    json& entry = tasks.emplace_back(json::value_t::object);
    entry["job"] = task.key.job;
    entry["rank"] = task.key.rank;
    entry["attempt"] = task.key.attempt;
    entry["state"] = task.state == TaskState::kRunning ? "running" : "exited";
    entry["exit_code"] = Optional(task.exit_code);
    entry["pid"] = task.pid;
    if (!task.message.empty()) entry["message"] = task.message;
  }
  auto& telemetry = (out["telemetry"] = json::array()).get_ref<json::array_t&>();
  telemetry.reserve(request.telemetry.size());
  for (const LabelledTelemetry& entry : request.telemetry) {
    telemetry.push_back(TelemetryJson(entry));
  }
  return out;
}

Result<HeartbeatRequest> ParseHeartbeatRequest(const json& body) {
  if (!body.is_object()) return tl::unexpected(Invalid("heartbeat", "a JSON object", body));
  HeartbeatRequest request;
  if (const json* ready = Present(body, "ready")) {
    if (!ready->is_boolean()) return tl::unexpected(Invalid("ready", "true or false", *ready));
    request.ready = ready->get<bool>();
  }
  YAML_FIELD_TRY(message, OptionalString(body, "readiness_message", "", kMaxReadinessMessageBytes));
  request.readiness_message = message->value_or("");
  YAML_FIELD_TRY(tasks, List(body, "tasks", kMaxReportedTasks));
  if (*tasks != nullptr) {
    for (size_t i = 0; i < (*tasks)->size(); ++i) {
      YAML_FIELD_TRY(report, ParseReport((**tasks)[i], fmt::format("tasks[{}]", i)));
      request.tasks.push_back(std::move(*report));
    }
  }
  YAML_FIELD_TRY(telemetry, List(body, "telemetry", kMaxDeviceIndex + 1));
  if (*telemetry != nullptr) {
    for (size_t i = 0; i < (*telemetry)->size(); ++i) {
      YAML_FIELD_TRY(device, ParseTelemetry((**telemetry)[i], fmt::format("telemetry[{}]", i)));
      request.telemetry.push_back(std::move(*device));
    }
  }
  return request;
}

json HeartbeatReplyJson(const std::vector<DesiredTask>& tasks) {
  json out(json::value_t::object);
  auto& list = (out["tasks"] = json::array()).get_ref<json::array_t&>();
  list.reserve(tasks.size());
  for (const DesiredTask& task : tasks) {
    json& entry = list.emplace_back(json::value_t::object);
    entry["job"] = task.key.job;
    entry["rank"] = task.key.rank;
    entry["attempt"] = task.key.attempt;
    entry["world_size"] = task.world_size;
    entry["devices"] = task.devices;
    entry["command"] = task.command;
    entry["env"] = task.env;
    entry["rendezvous"] = task.rendezvous;
    entry["tenant"] = Optional(task.tenant);
    entry["stop_grace_s"] = task.stop_grace_s;
    if (task.checkpoint_interval_s > 0) entry["checkpoint_interval_s"] = task.checkpoint_interval_s;
    if (task.power_cap_w > 0) entry["power_cap_w"] = task.power_cap_w;
  }
  return out;
}

json RegisteredDeviceJson(const RegisteredDevice& device) {
  return {{"index", device.index},
          {"uuid", device.uuid},
          {"model", device.model},
          {"memory_mib", device.memory_mib},
          {"clique_id", device.clique_id.empty() ? json(nullptr) : json(device.clique_id)}};
}

json RegistrationJson(const Registration& registration) {
  json devices = json::array();
  for (const RegisteredDevice& device : registration.devices) {
    devices.push_back(RegisteredDeviceJson(device));
  }
  return {{"node", registration.node},
          {"cpu_milli", registration.cpu_milli},
          {"memory_mib", registration.memory_mib},
          {"ready", registration.ready},
          {"readiness_message", registration.readiness_message},
          {"devices", std::move(devices)},
          {"address", registration.address}};
}

json RegisterReplyJson(const RegisterReply& reply) {
  return {{"heartbeat_interval_s", reply.heartbeat_interval_s}, {"grace_s", reply.grace_s}};
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

}  // namespace headroom::model
