// Policy names on the command line: a built-in preset's name (configs/policies/, embedded) or
// the path of an operator's policy file (anything ending in .yaml or .yml, or holding a '/').
// `headroom sim --policy` takes a comma-separated list of them (or "all"), headroomd --policy
// one. Errors name the file and line (policy_yaml.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "engine/policy_config.h"

namespace headroom::sim {

// True when `spec` names a file rather than a preset.
bool IsPolicyFile(std::string_view spec);

Result<engine::PolicyConfig> LoadPolicy(std::string_view spec);

// A policy with the YAML it was read from (a preset's file as shipped, or the file's contents,
// read once), for whoever keeps or sends the text: headroomd's store, `headroom policy set`.
struct PolicyWithText {
  engine::PolicyConfig policy;
  std::string text;
};
Result<PolicyWithText> LoadPolicyWithText(std::string_view spec);

// "fifo,my-policy.yaml" or "all" (every preset, in PresetNames order) → the configs, in the
// order named.
Result<std::vector<engine::PolicyConfig>> LoadPolicies(std::string_view list);

}  // namespace headroom::sim
