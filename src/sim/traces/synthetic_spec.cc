#include "sim/traces/synthetic_spec.h"

#include <charconv>
#include <string>

#include <yaml-cpp/yaml.h>

#include "model/yaml_field.h"

namespace headroom::sim {
namespace {

using model::YamlField;
using model::YamlMap;

constexpr double kMaxWeight = 1e12;
constexpr int64_t kMaxTenantCount = 10'000;
constexpr int64_t kMaxPriority = 1'000'000;
constexpr int64_t kMaxPerDevice = 1'000'000'000;

// A map of keys to weights; `key` converts one key (its text, the entry's field for messages).
template <typename T, typename KeyFn>
Result<WeightedChoices<T>> ReadWeights(const YamlField& field, bool allow_empty, KeyFn key) {
  auto map = field.FreeMap();
  if (!map) return tl::unexpected(map.error());
  WeightedChoices<T> choices;
  double total = 0;
  for (const auto& [text, value] : map->entries()) {
    auto parsed = key(text, value);
    if (!parsed) return tl::unexpected(parsed.error());
    for (const auto& [existing, unused] : choices) {
      if (existing == *parsed) {
        return tl::unexpected(value.Invalid("each key once", "the same key again"));
      }
    }
    auto weight = value.Number(0, true, kMaxWeight, "a non-negative weight");
    if (!weight) return tl::unexpected(weight.error());
    total += *weight;
    choices.emplace_back(std::move(*parsed), *weight);
  }
  if (choices.empty() && allow_empty) return choices;
  if (total <= 0) {
    return tl::unexpected(field.Invalid("a map with a positive total weight",
                                        choices.empty() ? "an empty map" : "all weights 0"));
  }
  return choices;
}

Result<int64_t> KeyInteger(const std::string& text, const YamlField& value, int64_t min,
                           int64_t max, std::string_view expected) {
  int64_t parsed = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), parsed);
  if (error != std::errc() || end != text.data() + text.size() || parsed < min || parsed > max) {
    return tl::unexpected(value.Invalid(expected, model::QuoteForMessage(text)));
  }
  return parsed;
}

Result<WeightedChoices<std::string>> ReadNames(const YamlField& field, bool allow_empty) {
  return ReadWeights<std::string>(
      field, allow_empty, [](const std::string& text, const YamlField&) -> Result<std::string> {
        return text;  // FreeMap has checked it is a name.
      });
}

Result<WeightedChoices<std::string>> ReadTenants(const YamlField& field) {
  if (!field.IsScalar()) return ReadNames(field, /*allow_empty=*/false);
  auto count = field.Integer(1, kMaxTenantCount,
                             "a tenant count from 1 to 10000 or a map of tenant names to weights");
  if (!count) return tl::unexpected(count.error());
  WeightedChoices<std::string> tenants;
  for (int64_t i = 0; i < *count; ++i) tenants.emplace_back(fmt::format("tenant-{}", i), 1.0);
  return tenants;
}

Result<void> ReadEstimateFactor(const YamlField& field, SyntheticSpec& spec) {
  constexpr std::string_view kExpected =
      "a factor from 1 to 1000, or a list [min, max] of such factors";
  if (field.IsScalar()) {
    auto factor = field.Number(1, true, 1000, kExpected);
    if (!factor) return tl::unexpected(factor.error());
    spec.estimate_factor_min = spec.estimate_factor_max = *factor;
    return {};
  }
  auto items = field.Items();
  if (!items || items->size() != 2) return tl::unexpected(field.Invalid(kExpected));
  auto low = (*items)[0].Number(1, true, 1000, "a factor from 1 to 1000");
  if (!low) return tl::unexpected(low.error());
  auto high = (*items)[1].Number(*low, true, 1000, "a factor from min to 1000");
  if (!high) return tl::unexpected(high.error());
  spec.estimate_factor_min = *low;
  spec.estimate_factor_max = *high;
  return {};
}

// {level: NAME, share: FRACTION}: both keys required.
Result<void> ReadTopology(const YamlField& field, std::string& level, double& share) {
  auto map = field.Map({"level", "share"});
  if (!map) return tl::unexpected(map.error());
  const YamlField* level_field = map->Find("level");
  const YamlField* share_field = map->Find("share");
  if (level_field == nullptr || share_field == nullptr) {
    return tl::unexpected(
        field.Invalid("a map {level: NAME, share: FRACTION}", "a map without both keys"));
  }
  auto name = level_field->Name();
  if (!name) return tl::unexpected(name.error());
  auto value = share_field->Number(0, true, 1, "a fraction from 0 to 1");
  if (!value) return tl::unexpected(value.error());
  level = std::move(*name);
  share = *value;
  return {};
}

Result<void> ReadField(const std::string& key, const YamlField& field, SyntheticSpec& spec) {
  auto set_number = [&field](double& out, double min, bool min_inclusive, double max,
                             std::string_view expected) -> Result<void> {
    auto value = field.Number(min, min_inclusive, max, expected);
    if (!value) return tl::unexpected(value.error());
    out = *value;
    return {};
  };
  if (key == "jobs") {
    auto jobs = field.Integer(1, kMaxSyntheticJobs, "a job count from 1 to 10000000");
    if (!jobs) return tl::unexpected(jobs.error());
    spec.jobs = static_cast<uint64_t>(*jobs);
  } else if (key == "seed") {
    auto seed = field.Integer(0, INT64_MAX, "a non-negative integer seed");
    if (!seed) return tl::unexpected(seed.error());
    spec.seed = static_cast<uint64_t>(*seed);
  } else if (key == "mean_interarrival_s") {
    return set_number(spec.mean_interarrival_s, 0, false, kMaxMeanInterarrivalS,
                      "a number of seconds above 0 and at most 3600");
  } else if (key == "size_mix") {
    auto mix = ReadWeights<uint32_t>(
        field, /*allow_empty=*/false,
        [](const std::string& text, const YamlField& value) -> Result<uint32_t> {
          auto size =
              KeyInteger(text, value, 0, kMaxSyntheticJobDevices, "a device count from 0 to 65536");
          if (!size) return tl::unexpected(size.error());
          return static_cast<uint32_t>(*size);
        });
    if (!mix) return tl::unexpected(mix.error());
    spec.size_mix = std::move(*mix);
  } else if (key == "runtime_median_s") {
    return set_number(spec.runtime_median_s, 0, false, 1e7,
                      "a number of seconds above 0 and at most 10000000");
  } else if (key == "runtime_sigma") {
    return set_number(spec.runtime_sigma, 0, true, 10, "a number from 0 to 10");
  } else if (key == "runtime_min_s") {
    return set_number(spec.runtime_min_s, 0, false, 1e8,
                      "a number of seconds above 0 and at most 100000000");
  } else if (key == "runtime_max_s") {
    return set_number(spec.runtime_max_s, 0, false, 1e8,
                      "a number of seconds above 0 and at most 100000000");
  } else if (key == "estimate_factor") {
    return ReadEstimateFactor(field, spec);
  } else if (key == "tenants") {
    auto tenants = ReadTenants(field);
    if (!tenants) return tl::unexpected(tenants.error());
    spec.tenants = std::move(*tenants);
  } else if (key == "priority_classes") {
    auto classes = ReadWeights<int32_t>(
        field, /*allow_empty=*/false,
        [](const std::string& text, const YamlField& value) -> Result<int32_t> {
          auto priority = KeyInteger(text, value, -kMaxPriority, kMaxPriority,
                                     "a priority from -1000000 to 1000000");
          if (!priority) return tl::unexpected(priority.error());
          return static_cast<int32_t>(*priority);
        });
    if (!classes) return tl::unexpected(classes.error());
    spec.priority_classes = std::move(*classes);
  } else if (key == "devices_per_node") {
    auto devices = field.Integer(0, 4096, "a device count from 0 to 4096");
    if (!devices) return tl::unexpected(devices.error());
    spec.devices_per_node = static_cast<uint32_t>(*devices);
  } else if (key == "models") {
    auto models = ReadNames(field, /*allow_empty=*/true);
    if (!models) return tl::unexpected(models.error());
    spec.models = std::move(*models);
  } else if (key == "checkpoint_interval_s") {
    return set_number(spec.checkpoint_interval_s, 0, true, 1e7,
                      "a number of seconds from 0 to 10000000");
  } else if (key == "checkpoint_cost_s") {
    return set_number(spec.checkpoint_cost_s, 0, true, 3600, "a number of seconds from 0 to 3600");
  } else if (key == "fractional_share") {
    return set_number(spec.fractional_share, 0, true, 1, "a fraction from 0 to 1");
  } else if (key == "required_topology") {
    return ReadTopology(field, spec.required_topology_level, spec.required_topology_share);
  } else if (key == "preferred_topology") {
    return ReadTopology(field, spec.preferred_topology_level, spec.preferred_topology_share);
  } else if (key == "cpu_milli_per_device" || key == "memory_mib_per_device") {
    auto value = field.Integer(0, kMaxPerDevice, "a non-negative integer at most 1000000000");
    if (!value) return tl::unexpected(value.error());
    (key == "cpu_milli_per_device" ? spec.cpu_milli_per_device : spec.memory_mib_per_device) =
        *value;
  }
  return {};
}

Result<SyntheticSpec> ParseDocument(const YAML::Node& root, std::string_view source) {
  const YamlField document = YamlField::Document(root, source);
  auto map = document.Map({"jobs",
                           "seed",
                           "mean_interarrival_s",
                           "size_mix",
                           "runtime_median_s",
                           "runtime_sigma",
                           "runtime_min_s",
                           "runtime_max_s",
                           "estimate_factor",
                           "tenants",
                           "priority_classes",
                           "devices_per_node",
                           "models",
                           "fractional_share",
                           "cpu_milli_per_device",
                           "memory_mib_per_device",
                           "required_topology",
                           "preferred_topology",
                           "checkpoint_interval_s",
                           "checkpoint_cost_s"});
  if (!map) return tl::unexpected(map.error());
  SyntheticSpec spec;
  for (const auto& [key, field] : map->entries()) {
    if (auto read = ReadField(key, field, spec); !read) return tl::unexpected(read.error());
  }
  if (spec.runtime_min_s > spec.runtime_max_s) {
    const YamlField* field = map->Find("runtime_min_s");
    if (field == nullptr) field = map->Find("runtime_max_s");
    return tl::unexpected(field->Invalid(fmt::format(
        "runtime_min_s ({}) at most runtime_max_s ({})", spec.runtime_min_s, spec.runtime_max_s)));
  }
  return spec;
}

}  // namespace

bool IsSyntheticPreset(std::string_view name) {
  return name == "small" || name == "default" || name == "million";
}

Result<SyntheticSpec> SyntheticPreset(std::string_view name) {
  SyntheticSpec spec;
  if (name == "small") {
    spec.jobs = 2'000;
  } else if (name == "default") {
    spec.jobs = 20'000;
  } else if (name == "million") {
    spec.jobs = 1'000'000;
  } else {
    return MakeError(ErrorCode::kNotFound,
                     "synthetic workload: expected a preset (small, default, million) or a YAML "
                     "file, got \"{}\"",
                     name);
  }
  return spec;
}

Result<SyntheticSpec> ParseSyntheticSpec(std::string_view text, std::string_view source) {
  // The one loader of every YAML input: one document, UTF-8, nesting bounded, never throws.
  auto root = model::LoadYamlDocument(text, source);
  if (!root) return tl::unexpected(root.error());
  return ParseDocument(*root, source);
}

}  // namespace headroom::sim
