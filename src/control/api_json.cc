#include "control/api_json.h"

#include <algorithm>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "control/names.h"
#include "model/yaml_field.h"

namespace headroom::control {

Json TimeJson(TimeUs time_us) {
  if (time_us == 0 || time_us == kNever) return nullptr;
  return UsToSeconds(time_us);
}

Json JobJson(const JobRecord& job, const PendingInfo* pending) {
  Json placement = Json::array();
  for (const TaskPlacement& task : job.placement) {
    Json entry = {{"rank", task.rank}, {"node", task.node}, {"devices", task.device_indices}};
    // Capped to keep the building within its limits (decision.h CapJob): each device's limit.
    if (task.power_cap_w != 0) entry["power_cap_w"] = task.power_cap_w;
    placement.push_back(std::move(entry));
  }
  // How often the running attempt was told to checkpoint (recovery.direct_checkpoints).
  const Json told_interval = job.state == JobState::kRunning && job.checkpoint_interval_us > 0
                                 ? Json(job.checkpoint_interval_us / kUsPerSecond)
                                 : Json(nullptr);
  Json out = {{"id", job.id},
              {"name", job.spec.name},
              {"kind", job.service_id != 0 ? "service" : "job"},
              {"tenant", job.spec.tenant},
              {"priority", job.spec.priority},
              {"state", JobStateName(job.state)},
              {"tasks", job.spec.tasks},
              {"devices_per_task", job.spec.devices},
              {"share_milli", job.spec.devices == 0 ? 0 : job.spec.share_milli},
              {"accept_degraded", job.spec.accept_degraded},
              {"submit_time", TimeJson(job.submit_us)},
              {"start_time", TimeJson(job.start_us)},
              {"end_time", TimeJson(job.end_us)},
              {"pending_reason", nullptr},
              {"expected_start", nullptr},
              {"placement", std::move(placement)},
              {"exit_code", job.exit_code ? Json(*job.exit_code) : Json(nullptr)},
              {"requeues", job.requeues},
              {"attempt", job.starts},
              {"checkpoint_interval_s", told_interval},
              {"service", job.service_id != 0 ? Json(job.service_id) : Json(nullptr)},
              {"message", job.message},
              {"hold_reason", job.hold_reason.empty() ? Json(nullptr) : Json(job.hold_reason)}};
  // An elastic job's range; `placement` has the tasks it runs with.
  out["elastic"] = nullptr;
  if (job.spec.min_tasks > 0) {
    out["elastic"] = {{"min_tasks", job.spec.min_tasks}, {"step", job.spec.task_step}};
  }
  out["topology"] = nullptr;
  if (!job.spec.required_topology_level.empty() || !job.spec.preferred_topology_level.empty()) {
    out["topology"] = {{"required", job.spec.required_topology_level.empty()
                                        ? Json(nullptr)
                                        : Json(job.spec.required_topology_level)},
                       {"preferred", job.spec.preferred_topology_level.empty()
                                         ? Json(nullptr)
                                         : Json(job.spec.preferred_topology_level)}};
  }
  if (pending != nullptr && job.state == JobState::kPending) {
    out["pending_reason"] = {
        {"code", pending->code}, {"reasons", pending->reasons}, {"message", pending->message}};
    if (pending->nodes) {
      Json tallies = Json::array();
      for (const auto& [constraint, nodes] : *pending->nodes) {
        tallies.push_back({{"constraint", constraint}, {"nodes", nodes}});
      }
      out["pending_reason"]["nodes"] = std::move(tallies);
      out["pending_reason"]["tasks_placeable"] = pending->tasks_placeable;
    }
    out["expected_start"] = TimeJson(pending->expected_start_us);
  }
  // A hold is the reason, whatever the engine's view (which may not have caught up with it,
  // or may not exist while no node is known).
  if (job.state == JobState::kPending && !job.hold_reason.empty()) {
    out["pending_reason"] = {
        {"code", "held"}, {"reasons", Json::array({"held"})}, {"message", job.hold_reason}};
    out["expected_start"] = nullptr;
  }
  return out;
}

std::string NodeStateName(const NodeStatus& node) {
  if (node.health != NodeHealth::kUp) return std::string(NodeHealthName(node.health));
  return node.record.drained ? "drained" : "up";
}

Json NodeJson(const NodeStatus& node, const TopologyNode* topology, uint64_t allocated_milli,
              bool hot_spare) {
  Json out = {{"name", node.record.name},
              {"state", NodeStateName(node)},
              {"ready", node.ready},
              {"readiness_message", node.readiness_message},
              {"drain_reason", node.record.drain_reason},
              {"hot_spare", hot_spare},
              {"devices", topology != nullptr ? topology->devices : node.record.devices.size()},
              {"allocated_milli", allocated_milli},
              {"device_model", topology != nullptr ? topology->device_model : ""},
              {"path", topology != nullptr ? Json(topology->path) : Json::array()},
              {"last_heartbeat", TimeJson(node.last_heartbeat_us)}};
  // Every device not healthy, with the evidence of its present state; counts by state.
  Json unhealthy = Json::array();
  Json counts = Json::object();
  for (const auto& [index, health] : node.health_book.devices()) {
    if (health.state == DeviceState::kHealthy) continue;
    Json entry = DeviceHealthJson(health);
    entry["index"] = index;
    unhealthy.push_back(std::move(entry));
    const std::string state(DeviceStateName(health.state));
    counts[state] = counts.value(state, 0) + 1;
  }
  out["device_health"] = std::move(counts);
  out["unhealthy_devices"] = std::move(unhealthy);
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

namespace {

// Deepest nesting of arrays and objects in `body`, counting only brackets outside strings, and
// stopping once past `limit`: a linear scan that allocates nothing, so a body of a million '['
// is refused before the parser builds any of it.
size_t NestingDepth(std::string_view body, size_t limit) {
  size_t depth = 0;
  size_t deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < body.size() && deepest <= limit; ++i) {
    const char c = body[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return deepest;
}

// Builds the DOM from the parser's events, as Json::parse does, and names the first key that
// an object repeats. Cheaper than Json::parse with a callback (which builds each value twice
// and calls through std::function per event): heartbeats, 1,250 a second from 12,500 nodes, are
// parsed on the server's event thread.
class UniqueKeyDomBuilder {
 public:
  explicit UniqueKeyDomBuilder(Json& root) : root_(root) {}

  bool null() { return Add(nullptr); }
  bool boolean(bool value) { return Add(value); }
  bool number_integer(Json::number_integer_t value) { return Add(value); }
  bool number_unsigned(Json::number_unsigned_t value) { return Add(value); }
  bool number_float(Json::number_float_t value, const std::string&) { return Add(value); }
  bool string(std::string& value) { return Add(std::move(value)); }
  bool binary(Json::binary_t&) { return false; }  // JSON text has no binary values.

  bool start_object(size_t) { return Open(Json::value_t::object); }
  bool start_array(size_t) { return Open(Json::value_t::array); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(std::string& key) {
    Frame& frame = frames_.back();
    // try_emplace moves the key only when it inserts it.
    auto [it, inserted] = frame.container->get_ref<Json::object_t&>().try_emplace(std::move(key));
    frame.key = &it->first;
    next_ = &it->second;
    if (!inserted && !duplicate_) duplicate_ = Path();
    return true;
  }

  bool parse_error(size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

  const std::optional<std::string>& duplicate() const { return duplicate_; }

 private:
  struct Frame {
    Json* container = nullptr;
    const std::string* key = nullptr;  // Objects: the key being read.
  };

  // Places `value` where the parser is: the root, the end of an array, or the key just read.
  Json* Place(Json&& value) {
    if (frames_.empty()) {
      root_ = std::move(value);
      return &root_;
    }
    Json& container = *frames_.back().container;
    if (container.is_array()) {
      auto& items = container.get_ref<Json::array_t&>();
      items.push_back(std::move(value));
      return &items.back();
    }
    *next_ = std::move(value);
    return next_;
  }

  bool Add(Json&& value) {
    Place(std::move(value));
    return true;
  }

  bool Open(Json::value_t type) {
    frames_.push_back(Frame{.container = Place(Json(type))});
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return true;
  }

  // The path of the key just read: keys of objects, indices of arrays (the item being read is
  // the array's last).
  std::string Path() const {
    std::string path;
    for (const Frame& frame : frames_) {
      if (frame.container->is_object()) {
        if (!path.empty()) path += '.';
        path += *frame.key;
      } else {
        path += fmt::format("[{}]", frame.container->size() - 1);
      }
    }
    return path;
  }

  Json& root_;
  std::vector<Frame> frames_;
  Json* next_ = nullptr;  // Where the value after the last key goes.
  std::optional<std::string> duplicate_;
};

}  // namespace

std::string PathForMessage(std::string_view path) {
  constexpr size_t kMaxPathBytes = 64;
  size_t cut = path.size();
  if (cut > kMaxPathBytes) {
    cut = kMaxPathBytes;
    while (cut > 0 && (static_cast<unsigned char>(path[cut]) & 0xc0) == 0x80) --cut;
  }
  std::string out = model::PrintableLine(path.substr(0, cut));
  if (cut < path.size()) out += "...";
  return out;
}

std::string DescribeJson(const Json& value) {
  if (value.is_string()) return QuoteExcerpt(value.get_ref<const std::string&>());
  if (value.is_array()) return fmt::format("a list of {} items", value.size());
  if (value.is_object()) return "an object";
  // Numbers, booleans, null: a short literal.
  return value.dump(-1, ' ', false, Json::error_handler_t::replace);
}

ApiResult<Json> ParseBody(std::string_view body) {
  if (NestingDepth(body, kMaxJsonDepth) > kMaxJsonDepth) {
    return Fail(400, "the body nests lists and objects more than {} deep; send a flatter object",
                kMaxJsonDepth);
  }
  Json parsed;
  UniqueKeyDomBuilder builder(parsed);
  if (!Json::sax_parse(body, &builder)) {
    return Fail(400, "the body is not valid JSON; send a JSON object");
  }
  if (!parsed.is_object()) return Fail(400, "the body must be a JSON object");
  if (builder.duplicate()) {
    return Fail(400, "{}: expected each key once, got it twice",
                PathForMessage(*builder.duplicate()));
  }
  return parsed;
}

ApiResult<std::string> ReasonOf(std::string_view text) {
  if (text.empty()) return std::string();
  auto body = ParseBody(text);
  if (!body) return tl::unexpected(body.error());
  if (auto ok = RejectUnknownFields(*body, "", {"reason"}); !ok) {
    return tl::unexpected(ok.error());
  }
  return NameField(*body, "reason", "reason", NameKind::kReason);
}

ApiResult<void> RejectUnknownFields(const Json& object, std::string_view path,
                                    std::initializer_list<std::string_view> known) {
  for (const auto& [key, value] : object.items()) {
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const std::string field = path.empty() ? key : fmt::format("{}.{}", path, key);
    return Fail(400, "{}: unknown field; the known fields are {}", PathForMessage(field),
                fmt::join(known, ", "));
  }
  return {};
}

ApiResult<std::string> StringField(const Json& object, std::string_view key, std::string_view path,
                                   bool required) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (required) return Fail(400, "{}: expected a string, got nothing", path);
    return std::string();
  }
  if (!it->is_string()) return Fail(400, "{}: expected a string, got {}", path, DescribeJson(*it));
  return it->get<std::string>();
}

ApiResult<std::string> NameField(const Json& object, std::string_view key, std::string_view path,
                                 NameKind kind) {
  const bool may_be_empty = IsValidName("", kind);
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (may_be_empty) return std::string();
    return Fail(400, "{}: expected {}, got nothing", path, NameExpectation(kind));
  }
  if (!it->is_string() || !IsValidName(it->get_ref<const std::string&>(), kind)) {
    return Fail(400, "{}: expected {}, got {}", path, NameExpectation(kind), DescribeJson(*it));
  }
  return it->get<std::string>();
}

ApiResult<bool> BoolField(const Json& object, std::string_view key, std::string_view path,
                          bool fallback) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) {
    return Fail(400, "{}: expected true or false, got {}", path, DescribeJson(*it));
  }
  return it->get<bool>();
}

ApiResult<int64_t> IntField(const Json& object, std::string_view key, std::string_view path,
                            int64_t min, int64_t max, std::optional<int64_t> fallback) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) {
    if (fallback) return *fallback;
    return Fail(400, "{}: expected an integer in [{}, {}], got nothing", path, min, max);
  }
  // An unsigned value past INT64_MAX reads as negative through get<int64_t>.
  const bool in_range = it->is_number_integer() &&
                        !(it->is_number_unsigned() && it->get<uint64_t>() > INT64_MAX) &&
                        it->get<int64_t>() >= min && it->get<int64_t>() <= max;
  if (!in_range) {
    return Fail(400, "{}: expected an integer in [{}, {}], got {}", path, min, max,
                DescribeJson(*it));
  }
  return it->get<int64_t>();
}

ApiResult<std::optional<double>> NumberField(const Json& object, std::string_view key,
                                             std::string_view path) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return std::optional<double>();
  if (!it->is_number()) return Fail(400, "{}: expected a number, got {}", path, DescribeJson(*it));
  return std::optional<double>(it->get<double>());
}

}  // namespace headroom::control
