#include "sim/policy_files.h"

#include "base/csv.h"
#include "engine/policy_yaml.h"
#include "engine/presets.h"

namespace headroom::sim {

bool IsPolicyFile(std::string_view spec) {
  return spec.find('/') != std::string_view::npos || spec.ends_with(".yaml") ||
         spec.ends_with(".yml");
}

Result<engine::PolicyConfig> LoadPolicy(std::string_view spec) {
  auto loaded = LoadPolicyWithText(spec);
  if (!loaded) return tl::unexpected(loaded.error());
  return std::move(loaded->policy);
}

Result<PolicyWithText> LoadPolicyWithText(std::string_view spec) {
  if (!IsPolicyFile(spec)) {
    auto text = engine::PresetPolicyText(spec);
    if (!text) return tl::unexpected(text.error());
    auto policy = engine::PresetPolicy(spec);
    if (!policy) return tl::unexpected(policy.error());
    return PolicyWithText{std::move(*policy), std::string(*text)};
  }
  const std::string path(spec);
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  auto policy = engine::ParsePolicyYaml(*text, path);
  if (!policy) return tl::unexpected(policy.error());
  return PolicyWithText{std::move(*policy), std::move(*text)};
}

Result<std::vector<engine::PolicyConfig>> LoadPolicies(std::string_view list) {
  std::vector<engine::PolicyConfig> policies;
  if (list == "all") {
    for (std::string_view name : engine::PresetNames()) {
      auto policy = engine::PresetPolicy(name);
      if (!policy) return tl::unexpected(policy.error());
      policies.push_back(std::move(*policy));
    }
    return policies;
  }
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(',', start);
    if (end == std::string_view::npos) end = list.size();
    auto policy = LoadPolicy(list.substr(start, end - start));
    if (!policy) return tl::unexpected(policy.error());
    policies.push_back(std::move(*policy));
    start = end + 1;
  }
  return policies;
}

}  // namespace headroom::sim
