#include "engine/presets.h"

#include "engine/policy_yaml.h"

namespace headroom::engine {
namespace {

struct EmbeddedPolicy {
  std::string_view name;
  const unsigned char* bytes;
  size_t size;
};

#include "engine/policy_files.inc"

Error UnknownPreset(std::string_view name) {
  std::string known;
  for (std::string_view shipped : ShippedPolicyNames()) {
    known += (known.empty() ? "" : ", ") + std::string(shipped);
  }
  return Error{
      ErrorCode::kInvalidArgument,
      fmt::format("policy '{}': expected one of {} or all, or a policy file (.yaml)", name, known)};
}

}  // namespace

std::vector<std::string_view> PresetNames() { return {"fifo", "slurm-like", "spread", "headroom"}; }

std::vector<std::string_view> ShippedPolicyNames() {
  std::vector<std::string_view> names = PresetNames();
  names.insert(names.end(), {"k8s-preemption", "kueue-like", "tiresias", "static-partition",
                             "no-health", "slurm-expedite", "slurm-hres", "static-cap"});
  return names;
}

Result<std::string_view> PresetPolicyText(std::string_view name) {
  for (std::string_view preset : ShippedPolicyNames()) {
    if (preset != name) continue;
    for (const EmbeddedPolicy& file : kPolicyFiles) {
      if (file.name == name) {
        return std::string_view(reinterpret_cast<const char*>(file.bytes), file.size);
      }
    }
  }
  return tl::unexpected(UnknownPreset(name));
}

Result<PolicyConfig> PresetPolicy(std::string_view name) {
  auto text = PresetPolicyText(name);
  if (!text) return tl::unexpected(text.error());
  return ParsePolicyYaml(*text, fmt::format("configs/policies/{}.yaml", name));
}

}  // namespace headroom::engine
