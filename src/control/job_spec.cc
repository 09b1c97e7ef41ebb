#include "control/job_spec.h"

#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/utf8.h"
#include "control/names.h"
#include "model/yaml_field.h"

namespace headroom::control {
namespace {

using model::YamlField;
using model::YamlMap;

Result<std::string> PlainText(const YamlField& field, std::string_view expected, bool allow_empty) {
  if (!field.IsScalar() || !IsPlainText(field.node().Scalar(), allow_empty)) {
    return tl::unexpected(field.Invalid(expected));
  }
  return field.node().Scalar();
}

// A tenant or job name, checked as every name the API stores is (control/names.h), so that the
// spec read back from the store at a restart passes again.
Result<std::string> LabelField(const YamlField& field, std::string_view what) {
  const std::string expected = fmt::format("{}: {}", what, NameExpectation(NameKind::kLabel));
  if (!field.IsScalar() || !IsValidName(field.node().Scalar(), NameKind::kLabel)) {
    return tl::unexpected(field.Invalid(expected));
  }
  return field.node().Scalar();
}

template <typename T>
Result<T> Typed(Result<T> value, const YamlField& field, std::string_view expected) {
  if (!value) return tl::unexpected(field.Invalid(expected));
  return value;
}

Result<TimeUs> DurationField(const YamlField& field) {
  constexpr std::string_view kExpected = "a duration such as 90s, 30m, 2h, 1d or seconds";
  if (!field.IsScalar()) return tl::unexpected(field.Invalid(kExpected));
  return Typed(ParseDuration(field.node().Scalar()), field, kExpected);
}

Result<std::vector<std::string>> CommandField(const YamlField& field) {
  YAML_FIELD_TRY(items, field.Items());
  if (items->size() > kMaxListItems) {
    return tl::unexpected(field.Invalid(fmt::format("at most {} items", kMaxListItems)));
  }
  std::vector<std::string> command;
  for (const YamlField& item : *items) {
    YAML_FIELD_TRY(text, PlainText(item, "a string", true));
    command.push_back(std::move(*text));
  }
  return command;
}

Result<std::vector<std::pair<std::string, std::string>>> EnvField(const YamlField& field) {
  YAML_FIELD_TRY(map, field.FreeMap());
  if (map->entries().size() > kMaxListItems) {
    return tl::unexpected(field.Invalid(fmt::format("at most {} variables", kMaxListItems)));
  }
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& [key, value] : map->entries()) {
    if (!IsEnvName(key)) {
      return tl::unexpected(
          value.Invalid("a variable name of letters, digits and _", model::QuoteForMessage(key)));
    }
    YAML_FIELD_TRY(text, PlainText(value, "a string value", true));
    env.emplace_back(key, std::move(*text));
  }
  return env;
}

tl::expected<void, Error> ResourcesField(const YamlField& field, JobSpec& spec) {
  YAML_FIELD_TRY(map, field.Map({"cpu", "memory"}));
  if (const YamlField* cpu = map->Find("cpu")) {
    constexpr std::string_view kExpected = "cores such as \"16\", \"0.5\" or \"500m\"";
    if (!cpu->IsScalar()) return tl::unexpected(cpu->Invalid(kExpected));
    YAML_FIELD_TRY(value, Typed(ParseCpuMilli(cpu->node().Scalar()), *cpu, kExpected));
    spec.cpu_milli = *value;
  }
  if (const YamlField* memory = map->Find("memory")) {
    constexpr std::string_view kExpected = "a size such as 512Mi, 128Gi or 1Ti";
    if (!memory->IsScalar()) return tl::unexpected(memory->Invalid(kExpected));
    YAML_FIELD_TRY(value, Typed(ParseMemoryMib(memory->node().Scalar()), *memory, kExpected));
    spec.memory_mib = *value;
  }
  return {};
}

Result<model::Selector> SelectorsField(const YamlField& field) {
  YAML_FIELD_TRY(items, field.Items());
  if (items->size() > 16) return tl::unexpected(field.Invalid("at most 16 selectors"));
  std::vector<std::string> parts;
  for (const YamlField& item : *items) {
    YAML_FIELD_TRY(entry, item.Map({"cel"}));
    YAML_FIELD_TRY(cel, entry->Require("cel", "a map with an expression"));
    YAML_FIELD_TRY(cel_map, cel->Map({"expression"}));
    YAML_FIELD_TRY(expression, cel_map->Require("expression", "a selector expression"));
    YAML_FIELD_TRY(text, PlainText(*expression, "a selector expression", true));
    auto parsed = model::Selector::Parse(*text);
    if (!parsed) {
      return tl::unexpected(expression->Invalid("a selector expression", parsed.error().message));
    }
    if (!parsed->MatchesAll()) parts.push_back(parsed->text());
  }
  if (parts.empty()) return model::Selector();
  if (parts.size() == 1) return model::Selector::Parse(parts[0]);
  std::string all;
  for (const std::string& part : parts) {
    all += all.empty() ? "(" : " && (";
    all += part;
    all += ")";
  }
  auto combined = model::Selector::Parse(all);
  if (!combined)
    return tl::unexpected(field.Invalid("selectors that combine", combined.error().message));
  return combined;
}

tl::expected<void, Error> DevicesField(const YamlField& field, JobSpec& spec) {
  YAML_FIELD_TRY(map, field.Map({"requests"}));
  const YamlField* requests = map->Find("requests");
  if (requests == nullptr || requests->IsNull()) return {};
  YAML_FIELD_TRY(items, requests->Items());
  if (items->size() > 1) {
    return tl::unexpected(requests->Invalid("at most one device request in v1",
                                            fmt::format("{} requests", items->size())));
  }
  if (items->empty()) return {};
  const YamlField& request = items->front();
  YAML_FIELD_TRY(entry, request.Map({"name", "deviceClassName", "count", "share", "selectors",
                                     "acceptDegraded"}));
  if (const YamlField* name = entry->Find("name")) {
    YAML_FIELD_TRY(text, PlainText(*name, "a request name", false));
    spec.request_name = *text;
  }
  if (const YamlField* device_class = entry->Find("deviceClassName")) {
    if (!device_class->IsScalar() || device_class->node().Scalar() != "gpu") {
      return tl::unexpected(device_class->Invalid("\"gpu\" (the one device class in v1)"));
    }
  }
  YAML_FIELD_TRY(count, entry->Require("count", "an integer >= 1"));
  YAML_FIELD_TRY(devices, count->Integer(1, kMaxDevicesPerTask,
                                         fmt::format("an integer in [1, {}]", kMaxDevicesPerTask)));
  spec.devices = static_cast<uint32_t>(*devices);
  if (const YamlField* share = entry->Find("share")) {
    YAML_FIELD_TRY(milli, share->Integer(1, 1000, "milli of one device in [1, 1000]"));
    if (*milli < 1000 && spec.devices != 1) {
      return tl::unexpected(
          share->Invalid("no share unless count is 1", fmt::format("count {}", spec.devices)));
    }
    spec.share_milli = static_cast<uint32_t>(*milli);
  }
  if (const YamlField* selectors = entry->Find("selectors")) {
    if (!selectors->IsNull()) {
      YAML_FIELD_TRY(selector, SelectorsField(*selectors));
      spec.selector = std::move(*selector);
    }
  }
  if (const YamlField* accept = entry->Find("acceptDegraded")) {
    const std::string value = accept->IsScalar() ? accept->node().Scalar() : "";
    if (value != "true" && value != "false") {
      return tl::unexpected(accept->Invalid("true or false"));
    }
    spec.accept_degraded = value == "true";
  }
  return {};
}

// topology: {required: LEVEL, preferred: LEVEL}; the names are checked against the cluster's
// levels where the daemon knows them (api_jobs.cc), and the engine explains any it lacks.
tl::expected<void, Error> TopologyField(const YamlField& field, JobSpec& spec) {
  YAML_FIELD_TRY(map, field.Map({"required", "preferred"}));
  if (const YamlField* required = map->Find("required")) {
    YAML_FIELD_TRY(name, LabelField(*required, "a topology level name, e.g. rack"));
    spec.required_topology_level = *name;
  }
  if (const YamlField* preferred = map->Find("preferred")) {
    YAML_FIELD_TRY(name, LabelField(*preferred, "a topology level name, e.g. rack"));
    spec.preferred_topology_level = *name;
  }
  return {};
}

// elastic: {minTasks: N, step: S} after tasks: the widths N, N+S, ..., tasks.
tl::expected<void, Error> ElasticField(const YamlField& field, JobSpec& spec) {
  YAML_FIELD_TRY(map, field.Map({"minTasks", "step"}));
  YAML_FIELD_TRY(min_field, map->Require("minTasks", "the fewest tasks the job may run with"));
  YAML_FIELD_TRY(
      min_tasks,
      min_field->Integer(1, spec.tasks, fmt::format("an integer in [1, {}] (tasks)", spec.tasks)));
  uint32_t step = 1;
  if (const YamlField* step_field = map->Find("step")) {
    YAML_FIELD_TRY(
        value, step_field->Integer(1, kMaxTasks, fmt::format("an integer in [1, {}]", kMaxTasks)));
    step = static_cast<uint32_t>(*value);
    if ((spec.tasks - static_cast<uint32_t>(*min_tasks)) % step != 0) {
      return tl::unexpected(step_field->Invalid(
          fmt::format("a step that divides tasks - minTasks ({})", spec.tasks - *min_tasks)));
    }
  }
  // The full width only is a rigid job, and reads back as one.
  if (static_cast<uint32_t>(*min_tasks) == spec.tasks) return {};
  spec.min_tasks = static_cast<uint32_t>(*min_tasks);
  spec.task_step = step;
  return {};
}

// autoscaling: {minReplicas, maxReplicas, requestsPerReplica, targetUtilization,
// scaleDownWindow, forecast, prometheusQuery}; the replica count it starts from is the spec's
// replicas, which the autoscaler then keeps within [minReplicas, maxReplicas].
Result<ServiceAutoscaling> AutoscalingField(const YamlField& field) {
  YAML_FIELD_TRY(map,
                 field.Map({"minReplicas", "maxReplicas", "requestsPerReplica", "targetUtilization",
                            "scaleDownWindow", "forecast", "prometheusQuery"}));
  ServiceAutoscaling autoscaling;
  const std::string replica_range = fmt::format("an integer in [0, {}]", kMaxReplicas);
  if (const YamlField* min = map->Find("minReplicas")) {
    YAML_FIELD_TRY(value, min->Integer(0, kMaxReplicas, replica_range));
    autoscaling.min_replicas = static_cast<uint32_t>(*value);
  }
  YAML_FIELD_TRY(max, map->Require("maxReplicas", "the most replicas the service may run"));
  const uint32_t fewest_max = std::max<uint32_t>(autoscaling.min_replicas, 1);
  YAML_FIELD_TRY(max_value,
                 max->Integer(fewest_max, kMaxReplicas,
                              fmt::format("an integer in [{}, {}] (at least minReplicas and 1)",
                                          fewest_max, kMaxReplicas)));
  autoscaling.max_replicas = static_cast<uint32_t>(*max_value);
  YAML_FIELD_TRY(capacity, map->Require("requestsPerReplica",
                                        "the requests/s one replica serves, such as 2.5"));
  constexpr std::string_view kCapacityExpected =
      "requests/s > 0 with at most 3 decimals, such as 2.5";
  if (!capacity->IsScalar()) return tl::unexpected(capacity->Invalid(kCapacityExpected));
  auto milli = ScaledDecimal(capacity->node().Scalar(), 1000);
  if (!milli || *milli <= 0 || *milli > kMaxCapacityMilliPerS) {
    return tl::unexpected(capacity->Invalid(kCapacityExpected));
  }
  autoscaling.capacity_milli_per_s = *milli;
  if (const YamlField* target = map->Find("targetUtilization")) {
    YAML_FIELD_TRY(value, target->Integer(1, 100, "a percentage in [1, 100]"));
    autoscaling.target_utilization_percent = static_cast<uint32_t>(*value);
  }
  if (const YamlField* window = map->Find("scaleDownWindow")) {
    YAML_FIELD_TRY(window_us, DurationField(*window));
    autoscaling.scale_down_window_us = *window_us;
  }
  if (const YamlField* forecast = map->Find("forecast")) {
    YAML_FIELD_TRY(forecast_us, DurationField(*forecast));
    autoscaling.forecast_us = *forecast_us;
  }
  if (const YamlField* query = map->Find("prometheusQuery")) {
    YAML_FIELD_TRY(text, PlainText(*query, "a PromQL expression", false));
    autoscaling.prometheus_query = std::move(*text);
  }
  return autoscaling;
}

tl::expected<void, Error> SpecField(const YamlField& field, JobSpec& spec) {
  YAML_FIELD_TRY(
      map, field.Map({"tenant", "priority", "tasks", "elastic", "replicas", "autoscaling",
                      "timeLimit", "runtime", "checkpointInterval", "checkpointCost", "command",
                      "env", "resources", "devices", "topology"}));
  if (const YamlField* tenant = map->Find("tenant")) {
    YAML_FIELD_TRY(name, LabelField(*tenant, "a tenant name"));
    spec.tenant = *name;
  }
  if (const YamlField* priority = map->Find("priority")) {
    YAML_FIELD_TRY(value,
                   priority->Integer(-1'000'000, 1'000'000, "an integer in [-1000000, 1000000]"));
    spec.priority = static_cast<int32_t>(*value);
  }
  const YamlField* tasks = map->Find("tasks");
  const YamlField* replicas = map->Find("replicas");
  if (spec.kind == JobKind::kJob) {
    if (replicas != nullptr) {
      return tl::unexpected(replicas->Invalid("no replicas for kind Job (use tasks)"));
    }
    if (const YamlField* autoscaling = map->Find("autoscaling")) {
      return tl::unexpected(autoscaling->Invalid("no autoscaling for kind Job (a Service's)"));
    }
    if (tasks != nullptr) {
      YAML_FIELD_TRY(value,
                     tasks->Integer(1, kMaxTasks, fmt::format("an integer in [1, {}]", kMaxTasks)));
      spec.tasks = static_cast<uint32_t>(*value);
    }
    if (const YamlField* elastic = map->Find("elastic")) {
      YAML_FIELD_TRY(ok, ElasticField(*elastic, spec));
    }
  } else {
    if (tasks != nullptr) {
      return tl::unexpected(tasks->Invalid("no tasks for kind Service (use replicas)"));
    }
    if (const YamlField* elastic = map->Find("elastic")) {
      return tl::unexpected(elastic->Invalid("no elastic range for kind Service (use replicas)"));
    }
    // 0 is a service kept with nothing running, as scaling to 0 leaves it (and as the store
    // reads it back).
    YAML_FIELD_TRY(field_replicas, map->Require("replicas", "an integer >= 0"));
    YAML_FIELD_TRY(value, field_replicas->Integer(
                              0, kMaxReplicas, fmt::format("an integer in [0, {}]", kMaxReplicas)));
    spec.replicas = static_cast<uint32_t>(*value);
    if (const YamlField* autoscaling = map->Find("autoscaling")) {
      if (!autoscaling->IsNull()) {
        YAML_FIELD_TRY(bounds, AutoscalingField(*autoscaling));
        spec.autoscaling = *bounds;
      }
    }
  }
  YAML_FIELD_TRY(time_limit, map->Require("timeLimit", "a duration such as 2h"));
  YAML_FIELD_TRY(limit_us, DurationField(*time_limit));
  spec.time_limit_us = *limit_us;
  if (const YamlField* runtime = map->Find("runtime")) {
    YAML_FIELD_TRY(runtime_us, DurationField(*runtime));
    spec.runtime_us = *runtime_us;
  }
  if (const YamlField* interval = map->Find("checkpointInterval")) {
    YAML_FIELD_TRY(interval_us, DurationField(*interval));
    spec.checkpoint_interval_us = *interval_us;
  }
  if (const YamlField* cost = map->Find("checkpointCost")) {
    YAML_FIELD_TRY(cost_us, DurationField(*cost));
    spec.checkpoint_cost_us = *cost_us;
  }
  if (const YamlField* command = map->Find("command")) {
    YAML_FIELD_TRY(value, CommandField(*command));
    spec.command = std::move(*value);
  }
  if (const YamlField* env = map->Find("env")) {
    if (!env->IsNull()) {
      YAML_FIELD_TRY(value, EnvField(*env));
      spec.env = std::move(*value);
    }
  }
  if (const YamlField* resources = map->Find("resources")) {
    if (!resources->IsNull()) {
      YAML_FIELD_TRY(ok, ResourcesField(*resources, spec));
    }
  }
  if (const YamlField* devices = map->Find("devices")) {
    if (!devices->IsNull()) {
      YAML_FIELD_TRY(ok, DevicesField(*devices, spec));
    }
  }
  if (const YamlField* topology = map->Find("topology")) {
    if (!topology->IsNull()) {
      YAML_FIELD_TRY(ok, TopologyField(*topology, spec));
    }
  }
  return {};
}

}  // namespace

bool IsPlainText(std::string_view text, bool allow_empty) {
  if ((!allow_empty && text.empty()) || text.size() > 64 * 1024 || !IsValidUtf8(text)) return false;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if ((byte < 0x20 && c != '\t') || byte == 0x7f) return false;
  }
  return true;
}

bool IsEnvName(std::string_view key) {
  bool name_ok = !key.empty() && !(key[0] >= '0' && key[0] <= '9');
  for (const char c : key) {
    name_ok = name_ok && ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                          (c >= '0' && c <= '9') || c == '_');
  }
  return name_ok;
}

bool operator==(const JobSpec& a, const JobSpec& b) {
  return a.kind == b.kind && a.name == b.name && a.tenant == b.tenant && a.priority == b.priority &&
         a.tasks == b.tasks && a.min_tasks == b.min_tasks && a.task_step == b.task_step &&
         a.replicas == b.replicas && a.autoscaling == b.autoscaling &&
         a.time_limit_us == b.time_limit_us && a.runtime_us == b.runtime_us &&
         a.checkpoint_interval_us == b.checkpoint_interval_us &&
         a.checkpoint_cost_us == b.checkpoint_cost_us && a.command == b.command && a.env == b.env &&
         a.cpu_milli == b.cpu_milli && a.memory_mib == b.memory_mib &&
         a.request_name == b.request_name && a.devices == b.devices &&
         a.share_milli == b.share_milli && a.selector.text() == b.selector.text() &&
         a.accept_degraded == b.accept_degraded &&
         a.required_topology_level == b.required_topology_level &&
         a.preferred_topology_level == b.preferred_topology_level;
}

Result<JobSpec> ParseJobSpec(std::string_view text, std::string_view source) {
  auto document = model::LoadYamlDocument(text, source);
  if (!document) return tl::unexpected(document.error());
  const YamlField root = YamlField::Document(*document, source);
  YAML_FIELD_TRY(top, root.Map({"apiVersion", "kind", "metadata", "spec"}));
  JobSpec spec;
  if (const YamlField* version = top->Find("apiVersion")) {
    if (!version->IsScalar() || version->node().Scalar() != "headroom/v1") {
      return tl::unexpected(version->Invalid("\"headroom/v1\""));
    }
  }
  if (const YamlField* kind = top->Find("kind")) {
    const std::string value = kind->IsScalar() ? kind->node().Scalar() : "";
    if (value == "Job") {
      spec.kind = JobKind::kJob;
    } else if (value == "Service") {
      spec.kind = JobKind::kService;
      spec.tasks = 1;
    } else {
      return tl::unexpected(kind->Invalid("Job or Service"));
    }
  }
  if (const YamlField* metadata = top->Find("metadata")) {
    YAML_FIELD_TRY(meta, metadata->Map({"name"}));
    if (const YamlField* name = meta->Find("name")) {
      YAML_FIELD_TRY(value, LabelField(*name, "a name"));
      spec.name = *value;
    }
  }
  YAML_FIELD_TRY(spec_field, top->Require("spec", "a map with timeLimit and the job's resources"));
  YAML_FIELD_TRY(ok, SpecField(*spec_field, spec));
  return spec;
}

std::string JobSpecToJson(const JobSpec& spec) {
  nlohmann::ordered_json out;
  out["apiVersion"] = "headroom/v1";
  out["kind"] = spec.kind == JobKind::kJob ? "Job" : "Service";
  if (!spec.name.empty()) out["metadata"]["name"] = spec.name;
  nlohmann::ordered_json& s = out["spec"];
  if (!spec.tenant.empty()) s["tenant"] = spec.tenant;
  s["priority"] = spec.priority;
  if (spec.kind == JobKind::kJob) {
    s["tasks"] = spec.tasks;
    if (spec.min_tasks > 0) {
      s["elastic"]["minTasks"] = spec.min_tasks;
      s["elastic"]["step"] = spec.task_step;
    }
  } else {
    s["replicas"] = spec.replicas;
    if (spec.autoscaling) {
      const ServiceAutoscaling& autoscaling = *spec.autoscaling;
      nlohmann::ordered_json& a = s["autoscaling"];
      a["minReplicas"] = autoscaling.min_replicas;
      a["maxReplicas"] = autoscaling.max_replicas;
      // A string, so that it reads back exactly (ScaledDecimal), never in a float's form.
      a["requestsPerReplica"] = fmt::format("{}.{:03}", autoscaling.capacity_milli_per_s / 1000,
                                            autoscaling.capacity_milli_per_s % 1000);
      a["targetUtilization"] = autoscaling.target_utilization_percent;
      a["scaleDownWindow"] = autoscaling.scale_down_window_us / kUsPerSecond;
      if (autoscaling.forecast_us > 0) a["forecast"] = autoscaling.forecast_us / kUsPerSecond;
      if (!autoscaling.prometheus_query.empty())
        a["prometheusQuery"] = autoscaling.prometheus_query;
    }
  }
  s["timeLimit"] = spec.time_limit_us / kUsPerSecond;
  if (spec.runtime_us > 0) s["runtime"] = spec.runtime_us / kUsPerSecond;
  if (spec.checkpoint_interval_us > 0) {
    s["checkpointInterval"] = spec.checkpoint_interval_us / kUsPerSecond;
  }
  if (spec.checkpoint_cost_us > 0) s["checkpointCost"] = spec.checkpoint_cost_us / kUsPerSecond;
  s["command"] = spec.command;
  s["env"] = nlohmann::ordered_json::object();
  for (const auto& [key, value] : spec.env) s["env"][key] = value;
  s["resources"]["cpu"] = fmt::format("{}m", spec.cpu_milli);
  s["resources"]["memory"] = fmt::format("{}Mi", spec.memory_mib);
  if (spec.devices > 0) {
    nlohmann::ordered_json request;
    if (!spec.request_name.empty()) request["name"] = spec.request_name;
    request["deviceClassName"] = "gpu";
    request["count"] = spec.devices;
    if (spec.share_milli < model::kMilliPerDevice) request["share"] = spec.share_milli;
    if (!spec.selector.MatchesAll()) {
      request["selectors"] =
          nlohmann::ordered_json::array({{{"cel", {{"expression", spec.selector.text()}}}}});
    }
    if (spec.accept_degraded) request["acceptDegraded"] = true;
    s["devices"]["requests"] = nlohmann::ordered_json::array({request});
  }
  if (!spec.required_topology_level.empty()) {
    s["topology"]["required"] = spec.required_topology_level;
  }
  if (!spec.preferred_topology_level.empty()) {
    s["topology"]["preferred"] = spec.preferred_topology_level;
  }
  return out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

Result<JobSpec> JobSpecCache::Parse(std::string_view text, std::string_view source) {
  if (auto it = parsed_.find(text); it != parsed_.end()) return it->second;
  std::optional<JobSpec> canonical = ReadCanonicalJobSpec(text);
  Result<JobSpec> spec =
      canonical ? Result<JobSpec>(*std::move(canonical)) : ParseJobSpec(text, source);
  if (spec && parsed_.size() < capacity_) parsed_.emplace(std::string(text), *spec);
  return spec;
}

model::Job ToModelJob(const JobSpec& spec, std::string_view tenant, TimeUs submit_us) {
  model::Job job;
  job.name = spec.name;
  job.tenant = std::string(tenant);
  job.priority = spec.priority;
  job.submit_time_us = submit_us;
  job.runtime_estimate_us = spec.time_limit_us;
  job.runtime_us = spec.runtime_us > 0 ? spec.runtime_us : spec.time_limit_us;
  job.checkpoint_interval_us = spec.checkpoint_interval_us;
  job.checkpoint_cost_us = spec.checkpoint_cost_us;
  job.task_count = spec.kind == JobKind::kJob ? spec.tasks : 1;
  if (spec.kind == JobKind::kJob && spec.min_tasks > 0) {
    job.min_task_count = spec.min_tasks;
    job.task_count_step = spec.task_step;
  }
  job.task.devices = spec.devices;
  job.task.milli_per_device = spec.devices == 0 ? model::kMilliPerDevice : spec.share_milli;
  job.task.cpu_milli = spec.cpu_milli;
  job.task.memory_mib = spec.memory_mib;
  job.task.selector = spec.selector;
  job.accepts_degraded = spec.accept_degraded;
  job.required_topology_level = spec.required_topology_level;
  job.preferred_topology_level = spec.preferred_topology_level;
  return job;
}

}  // namespace headroom::control
