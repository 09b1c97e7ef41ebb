#include "control/api_json.h"

namespace headroom::control {

Json TimeJson(TimeUs time_us) {
  if (time_us == 0 || time_us == kNever) return nullptr;
  return UsToSeconds(time_us);
}

Json JobJson(const JobRecord& job, const PendingInfo* pending) {
  Json placement = Json::array();
  for (const TaskPlacement& task : job.placement) {
    placement.push_back(
        {{"rank", task.rank}, {"node", task.node}, {"devices", task.device_indices}});
  }
  Json out = {{"id", job.id},
              {"name", job.spec.name},
              {"kind", job.service_id != 0 ? "service" : "job"},
              {"tenant", job.spec.tenant},
              {"priority", job.spec.priority},
              {"state", JobStateName(job.state)},
              {"tasks", job.spec.tasks},
              {"devices_per_task", job.spec.devices},
              {"share_milli", job.spec.devices == 0 ? 0 : job.spec.share_milli},
              {"submit_time", TimeJson(job.submit_us)},
              {"start_time", TimeJson(job.start_us)},
              {"end_time", TimeJson(job.end_us)},
              {"pending_reason", nullptr},
              {"expected_start", nullptr},
              {"placement", std::move(placement)},
              {"exit_code", job.exit_code ? Json(*job.exit_code) : Json(nullptr)},
              {"requeues", job.requeues},
              {"service", job.service_id != 0 ? Json(job.service_id) : Json(nullptr)},
              {"message", job.message}};
  if (pending != nullptr && job.state == JobState::kPending) {
    out["pending_reason"] = {{"code", pending->code}, {"message", pending->message}};
    out["expected_start"] = TimeJson(pending->expected_start_us);
  }
  return out;
}

std::string NodeStateName(const NodeStatus& node) {
  if (node.health != NodeHealth::kUp) return std::string(NodeHealthName(node.health));
  return node.record.drained ? "drained" : "up";
}

Json NodeJson(const NodeStatus& node, const TopologyNode* topology, uint64_t allocated_milli) {
  Json out = {{"name", node.record.name},
              {"state", NodeStateName(node)},
              {"ready", node.ready},
              {"readiness_message", node.readiness_message},
              {"drain_reason", node.record.drain_reason},
              {"devices", topology != nullptr ? topology->devices : node.record.devices.size()},
              {"allocated_milli", allocated_milli},
              {"device_model", topology != nullptr ? topology->device_model : ""},
              {"path", topology != nullptr ? Json(topology->path) : Json::array()},
              {"last_heartbeat", TimeJson(node.last_heartbeat_us)}};
  return out;
}

Json EventJson(const LoggedEvent& event) {
  return {{"seq", event.seq},
          {"time", TimeJson(event.time_us)},
          {"type", event.type},
          {"job", event.job ? Json(*event.job) : Json(nullptr)},
          {"node", event.node ? Json(*event.node) : Json(nullptr)},
          {"message", event.message}};
}

ApiResult<Json> ParseBody(std::string_view body) {
  Json parsed = Json::parse(body, nullptr, false);
  if (parsed.is_discarded()) {
    return Fail(400, "the body is not valid JSON; send a JSON object");
  }
  if (!parsed.is_object()) return Fail(400, "the body must be a JSON object");
  return parsed;
}

ApiResult<std::string> StringField(const Json& object, std::string_view key, std::string_view path,
                                   bool required) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) return Fail(400, "{}: expected a string, got nothing", path);
    return std::string();
  }
  if (!it->is_string()) return Fail(400, "{}: expected a string, got {}", path, it->dump());
  return it->get<std::string>();
}

ApiResult<bool> BoolField(const Json& object, std::string_view key, std::string_view path,
                          bool fallback) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) return Fail(400, "{}: expected true or false, got {}", path, it->dump());
  return it->get<bool>();
}

ApiResult<int64_t> IntField(const Json& object, std::string_view key, std::string_view path,
                            int64_t min, int64_t max, std::optional<int64_t> fallback) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Fail(400, "{}: expected an integer in [{}, {}], got nothing", path, min, max);
  }
  if (!it->is_number_integer() || it->get<int64_t>() < min || it->get<int64_t>() > max) {
    return Fail(400, "{}: expected an integer in [{}, {}], got {}", path, min, max,
                it->dump(-1, ' ', false, Json::error_handler_t::replace));
  }
  return it->get<int64_t>();
}

ApiResult<std::optional<double>> NumberField(const Json& object, std::string_view key,
                                             std::string_view path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<double>();
  if (!it->is_number()) return Fail(400, "{}: expected a number, got {}", path, it->dump());
  return std::optional<double>(it->get<double>());
}

}  // namespace headroom::control
