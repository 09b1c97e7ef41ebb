// ReadCanonicalJobSpec: the store's fast path (job_spec.h). A restart reads every stored spec
// back, and yaml-cpp takes ~80 µs for one: 200,000 pending jobs with their own names took 16 s
// before the daemon listened (issue 10). The store writes specs in one canonical JSON form
// (JobSpecToJson), so this reader takes only that form — straight from the parser's events into
// the spec, no document built — checks it with the rules ParseJobSpec applies, and leaves
// anything else to ParseJobSpec, whose messages name line and field.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "control/job_spec.h"
#include "control/names.h"

namespace headroom::control {
namespace {

using Json = nlohmann::json;

// Where the parser is: each object or list of the canonical form, outermost first.
enum class Where : uint8_t {
  kRoot,
  kMetadata,
  kSpec,
  kCommand,
  kEnv,
  kResources,
  kDevices,
  kRequests,
  kRequest,
  kSelectors,
  kSelector,
  kCel,
  kTopology,
  kElastic,
  kAutoscaling,
};

// The members the canonical form has, over all objects; a member belongs to one object.
enum class Field : uint8_t {
  kApiVersion,
  kKind,
  kMetadata,
  kSpec,
  kName,  // metadata.name
  kTenant,
  kPriority,
  kTasks,
  kReplicas,
  kTimeLimit,
  kRuntime,
  kCheckpointInterval,
  kCheckpointCost,
  kCommand,
  kEnv,
  kResources,
  kDevices,
  kCpu,
  kMemory,
  kRequests,
  kRequestName,
  kDeviceClassName,
  kCount,
  kShare,
  kSelectors,
  kAcceptDegraded,
  kCel,
  kExpression,
  kTopology,
  kRequired,
  kPreferred,
  kElastic,
  kMinTasks,
  kStep,
  kAutoscaling,
  kMinReplicas,
  kMaxReplicas,
  kRequestsPerReplica,
  kTargetUtilization,
  kScaleDownWindow,
  kForecast,
  kPrometheusQuery,
  kEnvValue,  // Any key of env.
  kNone,
};
static_assert(static_cast<uint32_t>(Field::kNone) < 64, "Read::present has a bit per Field");

struct Member {
  Where where;
  std::string_view key;
  Field field;
};

constexpr std::array kMembers = {
    Member{Where::kRoot, "apiVersion", Field::kApiVersion},
    Member{Where::kRoot, "kind", Field::kKind},
    Member{Where::kRoot, "metadata", Field::kMetadata},
    Member{Where::kRoot, "spec", Field::kSpec},
    Member{Where::kMetadata, "name", Field::kName},
    Member{Where::kSpec, "tenant", Field::kTenant},
    Member{Where::kSpec, "priority", Field::kPriority},
    Member{Where::kSpec, "tasks", Field::kTasks},
    Member{Where::kSpec, "elastic", Field::kElastic},
    Member{Where::kElastic, "minTasks", Field::kMinTasks},
    Member{Where::kElastic, "step", Field::kStep},
    Member{Where::kSpec, "replicas", Field::kReplicas},
    Member{Where::kSpec, "autoscaling", Field::kAutoscaling},
    Member{Where::kAutoscaling, "minReplicas", Field::kMinReplicas},
    Member{Where::kAutoscaling, "maxReplicas", Field::kMaxReplicas},
    Member{Where::kAutoscaling, "requestsPerReplica", Field::kRequestsPerReplica},
    Member{Where::kAutoscaling, "targetUtilization", Field::kTargetUtilization},
    Member{Where::kAutoscaling, "scaleDownWindow", Field::kScaleDownWindow},
    Member{Where::kAutoscaling, "forecast", Field::kForecast},
    Member{Where::kAutoscaling, "prometheusQuery", Field::kPrometheusQuery},
    Member{Where::kSpec, "timeLimit", Field::kTimeLimit},
    Member{Where::kSpec, "runtime", Field::kRuntime},
    Member{Where::kSpec, "checkpointInterval", Field::kCheckpointInterval},
    Member{Where::kSpec, "checkpointCost", Field::kCheckpointCost},
    Member{Where::kSpec, "command", Field::kCommand},
    Member{Where::kSpec, "env", Field::kEnv},
    Member{Where::kSpec, "resources", Field::kResources},
    Member{Where::kSpec, "devices", Field::kDevices},
    Member{Where::kSpec, "topology", Field::kTopology},
    Member{Where::kTopology, "required", Field::kRequired},
    Member{Where::kTopology, "preferred", Field::kPreferred},
    Member{Where::kResources, "cpu", Field::kCpu},
    Member{Where::kResources, "memory", Field::kMemory},
    Member{Where::kDevices, "requests", Field::kRequests},
    Member{Where::kRequest, "name", Field::kRequestName},
    Member{Where::kRequest, "deviceClassName", Field::kDeviceClassName},
    Member{Where::kRequest, "count", Field::kCount},
    Member{Where::kRequest, "share", Field::kShare},
    Member{Where::kRequest, "selectors", Field::kSelectors},
    Member{Where::kRequest, "acceptDegraded", Field::kAcceptDegraded},
    Member{Where::kSelector, "cel", Field::kCel},
    Member{Where::kCel, "expression", Field::kExpression},
};

// The object or list a member opens, if it is one.
std::optional<Where> Opens(Field field) {
  switch (field) {
    case Field::kMetadata:
      return Where::kMetadata;
    case Field::kSpec:
      return Where::kSpec;
    case Field::kCommand:
      return Where::kCommand;
    case Field::kEnv:
      return Where::kEnv;
    case Field::kResources:
      return Where::kResources;
    case Field::kDevices:
      return Where::kDevices;
    case Field::kRequests:
      return Where::kRequests;
    case Field::kSelectors:
      return Where::kSelectors;
    case Field::kCel:
      return Where::kCel;
    case Field::kTopology:
      return Where::kTopology;
    case Field::kElastic:
      return Where::kElastic;
    case Field::kAutoscaling:
      return Where::kAutoscaling;
    default:
      return std::nullopt;
  }
}

bool IsList(Where where) {
  return where == Where::kCommand || where == Where::kRequests || where == Where::kSelectors;
}

// What the canonical form holds, as read; checked once the document is complete.
struct Read {
  std::string api_version, kind, name, tenant, cpu, memory, request_name, device_class, expression,
      required_level, preferred_level, requests_per_replica, prometheus_query;
  std::optional<int64_t> priority, tasks, min_tasks, task_step, replicas, time_limit_s, runtime_s,
      checkpoint_interval_s, checkpoint_cost_s, count, share, min_replicas, max_replicas,
      target_utilization, scale_down_window_s, forecast_s;
  bool accept_degraded = false;
  uint64_t present = 0;  // Bit per Field.
  int requests = 0;
  int selectors = 0;
};

// nlohmann's SAX interface (nlohmann::json::sax_parse); returning false stops the parse, and
// every false here means "not canonical".
class CanonicalReader {
 public:
  explicit CanonicalReader(JobSpec& spec) : spec_(spec) {}

  const Read& read() const { return read_; }
  bool complete() const { return complete_; }

  bool start_object(size_t /*size*/) {
    if (depth_ == 0) return complete_ ? false : Push(Where::kRoot);
    const Where top = stack_[depth_ - 1].where;
    if (top == Where::kRequests) return ++read_.requests == 1 && Push(Where::kRequest);
    if (top == Where::kSelectors) return ++read_.selectors == 1 && Push(Where::kSelector);
    return Open(false);
  }
  bool start_array(size_t /*size*/) { return depth_ > 0 && Open(true); }
  bool end_object() { return Pop(); }
  bool end_array() { return Pop(); }

  bool key(std::string& key) {
    Frame& frame = stack_[depth_ - 1];
    if (frame.where == Where::kEnv) {
      if (!IsEnvName(key) || spec_.env.size() >= kMaxListItems) return false;
      for (const auto& [seen, value] : spec_.env) {
        if (seen == key) return false;
      }
      spec_.env.emplace_back(key, std::string());
      field_ = Field::kEnvValue;
      return true;
    }
    for (const Member& member : kMembers) {
      if (member.where != frame.where || member.key != key) continue;
      const uint64_t bit = uint64_t{1} << static_cast<uint32_t>(member.field);
      if ((read_.present & bit) != 0) return false;  // A key twice: not canonical.
      read_.present |= bit;
      field_ = member.field;
      return true;
    }
    return false;
  }

  bool string(std::string& value) {
    if (depth_ == 0) return false;
    const Where top = stack_[depth_ - 1].where;
    if (top == Where::kCommand) {
      if (spec_.command.size() >= kMaxListItems) return false;
      spec_.command.push_back(std::move(value));
      return true;
    }
    if (IsList(top)) return false;
    std::string* target = StringTarget();
    if (target == nullptr) return false;
    *target = std::move(value);
    field_ = Field::kNone;
    return true;
  }
  bool number_unsigned(uint64_t value) {
    if (value > static_cast<uint64_t>(INT64_MAX)) return false;
    return number_integer(static_cast<int64_t>(value));
  }
  bool number_integer(int64_t value) {
    if (depth_ == 0 || IsList(stack_[depth_ - 1].where)) return false;
    std::optional<int64_t>* target = IntegerTarget();
    if (target == nullptr) return false;
    *target = value;
    field_ = Field::kNone;
    return true;
  }
  bool null() { return false; }
  bool boolean(bool value) {
    if (field_ != Field::kAcceptDegraded) return false;
    read_.accept_degraded = value;
    field_ = Field::kNone;
    return true;
  }
  bool number_float(double /*value*/, const std::string& /*text*/) { return false; }
  bool binary(Json::binary_t& /*value*/) { return false; }
  bool parse_error(size_t /*position*/, const std::string& /*token*/,
                   const nlohmann::detail::exception& /*error*/) {
    return false;
  }

 private:
  struct Frame {
    Where where;
  };
  // The canonical form nests 8 deep (spec.devices.requests[0].selectors[0].cel.expression).
  static constexpr size_t kMaxDepth = 8;

  bool Push(Where where) {
    if (depth_ == kMaxDepth) return false;
    stack_[depth_++] = Frame{where};
    field_ = Field::kNone;
    return true;
  }
  bool Pop() {
    if (depth_ == 0) return false;
    --depth_;
    complete_ = depth_ == 0;
    return true;
  }
  // A member's value that is an object or a list.
  bool Open(bool list) {
    const std::optional<Where> where = Opens(field_);
    if (!where || IsList(*where) != list) return false;
    return Push(*where);
  }

  std::string* StringTarget() {
    switch (field_) {
      case Field::kApiVersion:
        return &read_.api_version;
      case Field::kKind:
        return &read_.kind;
      case Field::kName:
        return &read_.name;
      case Field::kTenant:
        return &read_.tenant;
      case Field::kCpu:
        return &read_.cpu;
      case Field::kMemory:
        return &read_.memory;
      case Field::kRequestName:
        return &read_.request_name;
      case Field::kDeviceClassName:
        return &read_.device_class;
      case Field::kExpression:
        return &read_.expression;
      case Field::kRequired:
        return &read_.required_level;
      case Field::kPreferred:
        return &read_.preferred_level;
      case Field::kRequestsPerReplica:
        return &read_.requests_per_replica;
      case Field::kPrometheusQuery:
        return &read_.prometheus_query;
      case Field::kEnvValue:
        return &spec_.env.back().second;
      default:
        return nullptr;
    }
  }
  std::optional<int64_t>* IntegerTarget() {
    switch (field_) {
      case Field::kPriority:
        return &read_.priority;
      case Field::kTasks:
        return &read_.tasks;
      case Field::kMinTasks:
        return &read_.min_tasks;
      case Field::kStep:
        return &read_.task_step;
      case Field::kReplicas:
        return &read_.replicas;
      case Field::kTimeLimit:
        return &read_.time_limit_s;
      case Field::kRuntime:
        return &read_.runtime_s;
      case Field::kCheckpointInterval:
        return &read_.checkpoint_interval_s;
      case Field::kCheckpointCost:
        return &read_.checkpoint_cost_s;
      case Field::kCount:
        return &read_.count;
      case Field::kShare:
        return &read_.share;
      case Field::kMinReplicas:
        return &read_.min_replicas;
      case Field::kMaxReplicas:
        return &read_.max_replicas;
      case Field::kTargetUtilization:
        return &read_.target_utilization;
      case Field::kScaleDownWindow:
        return &read_.scale_down_window_s;
      case Field::kForecast:
        return &read_.forecast_s;
      default:
        return nullptr;
    }
  }

  JobSpec& spec_;
  Read read_;
  std::array<Frame, kMaxDepth> stack_{};
  size_t depth_ = 0;
  Field field_ = Field::kNone;
  bool complete_ = false;
};

bool Has(const Read& read, Field field) {
  return (read.present & (uint64_t{1} << static_cast<uint32_t>(field))) != 0;
}

bool InRange(const std::optional<int64_t>& value, int64_t min, int64_t max) {
  return value && *value >= min && *value <= max;
}

// The same durations ParseJobSpec reads from "3600" (the writer's whole seconds).
std::optional<TimeUs> Duration(const std::optional<int64_t>& seconds) {
  if (!seconds) return std::nullopt;
  auto duration = ParseDuration(std::to_string(*seconds));
  return duration ? std::optional<TimeUs>(*duration) : std::nullopt;
}

// spec.autoscaling as the writer writes it: every member but forecast and prometheusQuery.
bool CheckAutoscaling(const Read& read, JobSpec& spec) {
  ServiceAutoscaling autoscaling;
  if (!InRange(read.min_replicas, 0, kMaxReplicas) ||
      !InRange(read.max_replicas, std::max<int64_t>(*read.min_replicas, 1), kMaxReplicas) ||
      !InRange(read.target_utilization, 1, 100) || !Has(read, Field::kRequestsPerReplica)) {
    return false;
  }
  autoscaling.min_replicas = static_cast<uint32_t>(*read.min_replicas);
  autoscaling.max_replicas = static_cast<uint32_t>(*read.max_replicas);
  autoscaling.target_utilization_percent = static_cast<uint32_t>(*read.target_utilization);
  auto milli = ScaledDecimal(read.requests_per_replica, 1000);
  if (!milli || *milli <= 0 || *milli > kMaxCapacityMilliPerS) return false;
  autoscaling.capacity_milli_per_s = *milli;
  const std::optional<TimeUs> window_us = Duration(read.scale_down_window_s);
  if (!window_us) return false;
  autoscaling.scale_down_window_us = *window_us;
  if (Has(read, Field::kForecast)) {
    const std::optional<TimeUs> forecast_us = Duration(read.forecast_s);
    if (!forecast_us) return false;
    autoscaling.forecast_us = *forecast_us;
  }
  if (Has(read, Field::kPrometheusQuery)) {
    if (!IsPlainText(read.prometheus_query, false)) return false;
    autoscaling.prometheus_query = read.prometheus_query;
  }
  spec.autoscaling = std::move(autoscaling);
  return true;
}

// The checks ParseJobSpec makes, on what the reader took in.
bool Check(const Read& read, JobSpec& spec) {
  if (read.api_version != "headroom/v1" || !Has(read, Field::kSpec)) return false;
  if (read.kind == "Service") {
    spec.kind = JobKind::kService;
  } else if (read.kind != "Job") {
    return false;
  }
  const bool is_job = spec.kind == JobKind::kJob;
  if (Has(read, Field::kMetadata) && !Has(read, Field::kName)) return false;
  if (Has(read, Field::kName) && !IsValidName(read.name, NameKind::kLabel)) return false;
  spec.name = read.name;
  if (Has(read, Field::kTenant) && !IsValidName(read.tenant, NameKind::kLabel)) return false;
  spec.tenant = read.tenant;
  if (!InRange(read.priority, -1'000'000, 1'000'000)) return false;
  spec.priority = static_cast<int32_t>(*read.priority);
  if (is_job) {
    if (Has(read, Field::kReplicas) || Has(read, Field::kAutoscaling) ||
        !InRange(read.tasks, 1, kMaxTasks)) {
      return false;
    }
    spec.tasks = static_cast<uint32_t>(*read.tasks);
    // The writer writes an elastic range only below the full width, with its step.
    if (Has(read, Field::kElastic)) {
      if (!InRange(read.min_tasks, 1, *read.tasks - 1) || !InRange(read.task_step, 1, kMaxTasks) ||
          (*read.tasks - *read.min_tasks) % *read.task_step != 0) {
        return false;
      }
      spec.min_tasks = static_cast<uint32_t>(*read.min_tasks);
      spec.task_step = static_cast<uint32_t>(*read.task_step);
    }
  } else {
    if (Has(read, Field::kElastic) || Has(read, Field::kTasks) ||
        !InRange(read.replicas, 0, kMaxReplicas))
      return false;
    spec.tasks = 1;
    spec.replicas = static_cast<uint32_t>(*read.replicas);
    if (Has(read, Field::kAutoscaling) && !CheckAutoscaling(read, spec)) return false;
  }
  const std::optional<TimeUs> time_limit_us = Duration(read.time_limit_s);
  if (!time_limit_us) return false;
  spec.time_limit_us = *time_limit_us;
  if (Has(read, Field::kRuntime)) {
    const std::optional<TimeUs> runtime_us = Duration(read.runtime_s);
    if (!runtime_us) return false;
    spec.runtime_us = *runtime_us;
  }
  if (Has(read, Field::kCheckpointInterval)) {
    const std::optional<TimeUs> interval_us = Duration(read.checkpoint_interval_s);
    if (!interval_us) return false;
    spec.checkpoint_interval_us = *interval_us;
  }
  if (Has(read, Field::kCheckpointCost)) {
    const std::optional<TimeUs> cost_us = Duration(read.checkpoint_cost_s);
    if (!cost_us) return false;
    spec.checkpoint_cost_us = *cost_us;
  }
  if (!Has(read, Field::kCommand) || !Has(read, Field::kEnv) || !Has(read, Field::kCpu) ||
      !Has(read, Field::kMemory)) {
    return false;
  }
  for (const std::string& item : spec.command) {
    if (!IsPlainText(item, true)) return false;
  }
  for (const auto& [key, value] : spec.env) {
    if (!IsPlainText(value, true)) return false;
  }
  auto cpu_milli = ParseCpuMilli(read.cpu);
  auto memory_mib = ParseMemoryMib(read.memory);
  if (!cpu_milli || !memory_mib) return false;
  spec.cpu_milli = *cpu_milli;
  spec.memory_mib = *memory_mib;
  // The writer writes topology only with a level in it, each a valid name.
  if (Has(read, Field::kTopology)) {
    if (!Has(read, Field::kRequired) && !Has(read, Field::kPreferred)) return false;
    for (const auto& [field, level] : {std::pair{Field::kRequired, &read.required_level},
                                       std::pair{Field::kPreferred, &read.preferred_level}}) {
      if (Has(read, field) && !IsValidName(*level, NameKind::kLabel)) return false;
    }
    spec.required_topology_level = read.required_level;
    spec.preferred_topology_level = read.preferred_level;
  }
  if (!Has(read, Field::kDevices)) return true;
  // The writer writes devices only with one request for whole or shared GPUs.
  if (read.requests != 1 || read.device_class != "gpu" ||
      !InRange(read.count, 1, kMaxDevicesPerTask)) {
    return false;
  }
  spec.devices = static_cast<uint32_t>(*read.count);
  if (Has(read, Field::kRequestName)) {
    if (!IsPlainText(read.request_name, false)) return false;
    spec.request_name = read.request_name;
  }
  if (Has(read, Field::kShare)) {
    // Left out for a whole device; a share needs count 1.
    if (!InRange(read.share, 1, model::kMilliPerDevice - 1) || spec.devices != 1) return false;
    spec.share_milli = static_cast<uint32_t>(*read.share);
  }
  if (Has(read, Field::kAcceptDegraded)) {
    if (!read.accept_degraded) return false;  // The writer writes it only when true.
    spec.accept_degraded = true;
  }
  if (Has(read, Field::kSelectors)) {
    // One selector, already combined and trimmed, and never one that matches everything.
    if (read.selectors != 1 || !Has(read, Field::kExpression) ||
        !IsPlainText(read.expression, true)) {
      return false;
    }
    auto selector = model::Selector::Parse(read.expression);
    if (!selector || selector->MatchesAll() || selector->text() != read.expression) return false;
    spec.selector = std::move(*selector);
  }
  return true;
}

}  // namespace

std::optional<JobSpec> ReadCanonicalJobSpec(std::string_view text) {
  // The writer puts no whitespace between tokens and escapes every control character, so a raw
  // one is not canonical. Leaving them to ParseJobSpec matters: YAML and JSON disagree on
  // some (a lone carriage return breaks a YAML line, and is blank space to JSON).
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
  }
  // The writer escapes only quotes, backslashes and control characters, and only tab of those
  // is valid. Any other escape (\u, \/ ...) goes to ParseJobSpec, so that both readers never
  // decode one text two ways.
  for (size_t at = text.find('\\'); at != std::string_view::npos; at = text.find('\\', at + 2)) {
    if (at + 1 == text.size()) return std::nullopt;
    const char escaped = text[at + 1];
    if (escaped != '"' && escaped != '\\' && escaped != 't') return std::nullopt;
  }
  JobSpec spec;
  CanonicalReader reader(spec);
  if (!Json::sax_parse(text, &reader) || !reader.complete() || !Check(reader.read(), spec)) {
    return std::nullopt;
  }
  return spec;
}

}  // namespace headroom::control
