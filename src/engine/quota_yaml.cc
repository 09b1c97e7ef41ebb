#include "engine/quota_yaml.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include <yaml-cpp/yaml.h>

namespace headroom::engine {
namespace {

using model::YamlField;
using model::YamlMap;

constexpr double kMaxDevices = 1e9;
constexpr double kMaxCpus = 1e9;
constexpr double kMaxMemoryGib = 1e9;
constexpr double kMaxShare = 1e9;

// Amounts by resource from {devices, cpu, memory_gib, device_models: {MODEL: devices}};
// `stated` marks the keys present; a device model's amount goes to its `member`.
Result<void> ParseAmounts(const YamlField& field, QuotaAmounts& out,
                          std::array<bool, kQuotaResources>& stated,
                          std::map<std::string, DeviceModelQuota>& models,
                          int64_t DeviceModelQuota::*member) {
  YAML_FIELD_TRY(map, field.Map({"devices", "cpu", "memory_gib", "device_models"}));
  for (const auto& [key, value] : map->entries()) {
    if (key == "device_models") {
      // Keyed by the cluster's device model names ("H100"), each a Name().
      YAML_FIELD_TRY(by_model, value.FreeMap());
      for (const auto& [model, amount_field] : by_model->entries()) {
        YAML_FIELD_TRY(amount, amount_field.Number(0, true, kMaxDevices,
                                                   "a number of devices of this model, 0 or more"));
        models[model].*member = std::llround(*amount * 1000);
      }
      continue;
    }
    const QuotaResource resource = key == "devices" ? QuotaResource::kDevices
                                   : key == "cpu"   ? QuotaResource::kCpu
                                                    : QuotaResource::kMemory;
    const double max = resource == QuotaResource::kDevices ? kMaxDevices
                       : resource == QuotaResource::kCpu   ? kMaxCpus
                                                           : kMaxMemoryGib;
    YAML_FIELD_TRY(amount, value.Number(0, true, max,
                                        resource == QuotaResource::kMemory
                                            ? "GiB, 0 or more"
                                            : "a number of whole or fractional units, 0 or more"));
    const double unit = resource == QuotaResource::kMemory ? 1024 : 1000;
    const auto k = static_cast<size_t>(resource);
    out[k] = std::llround(*amount * unit);
    stated[k] = true;
  }
  return {};
}

Result<QueueConfig> ParseQueue(const YamlField& field) {
  YAML_FIELD_TRY(map, field.Map({"name", "parent", "tenants", "share", "guaranteed",
                                 "borrowing_limit", "lending_limit"}));
  QueueConfig queue;
  YAML_FIELD_TRY(name_field, map->Require("name", "a queue name"));
  YAML_FIELD_TRY(name, name_field->Name());
  queue.name = *name;
  if (const YamlField* parent = map->Find("parent")) {
    YAML_FIELD_TRY(parent_name, parent->Name());
    queue.parent = *parent_name;
  }
  if (const YamlField* share = map->Find("share")) {
    YAML_FIELD_TRY(value, share->Number(0, false, kMaxShare, "a fair-share share above 0"));
    queue.share = *value;
  }
  if (const YamlField* tenants = map->Find("tenants")) {
    YAML_FIELD_TRY(items, tenants->Items());
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(tenant, item.Name());
      queue.tenants.push_back(*tenant);
    }
  }
  const std::tuple<std::string_view, QuotaAmounts*, int64_t DeviceModelQuota::*> sections[] = {
      {"guaranteed", &queue.guaranteed, &DeviceModelQuota::guaranteed},
      {"borrowing_limit", &queue.borrowing_limit, &DeviceModelQuota::borrowing_limit},
      {"lending_limit", &queue.lending_limit, &DeviceModelQuota::lending_limit}};
  for (const auto& [key, amounts, member] : sections) {
    if (const YamlField* section = map->Find(key)) {
      if (auto parsed = ParseAmounts(*section, *amounts, queue.stated, queue.device_models, member);
          !parsed) {
        return tl::unexpected(std::move(parsed).error());
      }
    }
  }
  return queue;
}

// Where the top-level `queues` key of a block-style YAML map stands in `text`: from the line of
// the key to its block's last line that is not blank or a comment at column 0 (those belong to
// what follows), as byte offsets; nullopt without such a key.
struct TextBlock {
  size_t begin = 0;
  size_t end = 0;
};
std::optional<TextBlock> TopLevelQueuesBlock(std::string_view text) {
  std::optional<TextBlock> block;
  for (size_t line = 0; line < text.size();) {
    const size_t newline = text.find('\n', line);
    const size_t next = newline == std::string_view::npos ? text.size() : newline + 1;
    const std::string_view content = text.substr(line, next - line);
    const char first = content.front();
    const bool blank = content.find_first_not_of(" \t\r\n") == std::string_view::npos;
    const bool comment = first == '#';
    const bool sequence_item = first == '-' && !content.starts_with("---");
    const bool top_level_key =
        !blank && !comment && !sequence_item && first != ' ' && first != '\t';
    if (top_level_key) {
      if (block) return block;
      const std::string_view rest = content.substr(0, content.find(':'));
      if (content.find(':') != std::string_view::npos &&
          rest.substr(0, rest.find_last_not_of(" \t") + 1) == "queues") {
        block = TextBlock{line, next};
      }
    } else if (block && !blank && !comment) {
      block->end = next;
    }
    line = next;
  }
  return block;
}

std::string Emitted(const YAML::Node& node) {
  YAML::Emitter out;
  out << node;
  return out.good() ? std::string(out.c_str()) : std::string();
}

}  // namespace

Result<std::vector<QueueConfig>> ParseQueuesField(const YamlField& field) {
  YAML_FIELD_TRY(items, field.Items());
  std::vector<QueueConfig> queues;
  for (const YamlField& item : *items) {
    YAML_FIELD_TRY(queue, ParseQueue(item));
    queues.push_back(std::move(*queue));
  }
  if (auto valid = ValidateQueues(queues); !valid) {
    return tl::unexpected(WithContext(std::move(valid).error(), field.Where()));
  }
  return queues;
}

Result<std::vector<QueueConfig>> ParseQueuesYaml(std::string_view text, std::string_view source) {
  auto node = model::LoadYamlDocument(text, source);
  if (!node) return tl::unexpected(node.error());
  const YamlField document = YamlField::Document(*node, source);
  if (document.IsNull()) return tl::unexpected(document.Invalid("a map with a 'queues' list"));
  YAML_FIELD_TRY(map, document.Map({"queues"}));
  YAML_FIELD_TRY(queues, map->Require("queues", "a list of queues"));
  return ParseQueuesField(*queues);
}

Result<std::string> PolicyTextWithQueues(std::string_view policy_text, std::string_view queues_text,
                                         std::string_view source) {
  auto queues = ParseQueuesYaml(queues_text, source);
  if (!queues) return tl::unexpected(queues.error());
  auto policy = model::LoadYamlDocument(policy_text, "the policy in force");
  if (!policy) return tl::unexpected(policy.error());
  if (!policy->IsMap()) {
    return MakeError(ErrorCode::kInvalidArgument, "the policy in force is not a map");
  }
  auto queues_node = model::LoadYamlDocument(queues_text, source);
  if (!queues_node) return tl::unexpected(queues_node.error());
  YAML::Node merged = YAML::Clone(*policy);
  if (queues->empty()) {
    merged.remove("queues");
  } else {
    merged["queues"] = (*queues_node)["queues"];
  }
  const std::string expected = Emitted(merged);
  if (expected.empty()) return MakeError(ErrorCode::kInvalidArgument, "cannot write the policy");
  // The operator's own words where the text allows: the queues text in place of the policy's
  // queues block (or after the policy), every other line as it was. Kept only when it reads as
  // the merged policy does; else the merged policy as written by the emitter.
  std::string text(policy_text);
  if (!text.empty() && text.back() != '\n') text += '\n';
  std::string replacement = queues->empty() ? "" : std::string(queues_text);
  if (!replacement.empty() && replacement.back() != '\n') replacement += '\n';
  if (const auto block = TopLevelQueuesBlock(text)) {
    text.replace(block->begin, block->end - block->begin, replacement);
  } else {
    text += replacement;
  }
  if (auto reread = model::LoadYamlDocument(text, "the policy with these queues");
      reread && Emitted(*reread) == expected) {
    return text;
  }
  return expected + "\n";
}

}  // namespace headroom::engine
