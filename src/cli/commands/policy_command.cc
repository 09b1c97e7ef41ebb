// `headroom policy`: the scheduling policies offline (docs/cli.md, docs/engine.md "Policy
// files"). `list` names the presets and every registered piece of each policy role, with what
// it does; `show NAME` prints a preset's policy file, the starting point for an operator's own;
// `check SPEC...` reads presets or policy files as headroomd --policy would, one line each.
// Exit status: 0 when every policy checked is valid, 2 otherwise (one line naming the file,
// line and field).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands/commands.h"
#include "engine/filter.h"
#include "engine/presets.h"
#include "engine/queue_order.h"
#include "engine/scorer.h"
#include "engine/victim_selector.h"
#include "sim/policy_files.h"

namespace headroom::cli {
namespace {

struct PolicyOptions {
  std::string preset;
  std::vector<std::string> specs;
};

template <typename RegistryT>
void ListRole(std::string_view title, const RegistryT& registry) {
  std::printf("%.*s:\n", static_cast<int>(title.size()), title.data());
  for (const auto& entry : registry.entries()) {
    std::printf("  %-18.*s %.*s\n", static_cast<int>(entry.name.size()), entry.name.data(),
                static_cast<int>(entry.summary.size()), entry.summary.data());
  }
}

int List() {
  std::printf("presets (configs/policies/):\n");
  for (std::string_view name : engine::PresetNames()) {
    auto policy = engine::PresetPolicy(name);
    std::printf("  %-18.*s %s\n", static_cast<int>(name.size()), name.data(),
                policy ? policy->description.c_str() : policy.error().message.c_str());
  }
  ListRole("filters (placement.filters)", engine::Filters());
  ListRole("scorers (placement.scorers)", engine::Scorers());
  ListRole("queue orders (queue.order)", engine::QueueOrders());
  ListRole("victim selectors (victim_selector)", engine::VictimSelectors());
  return 0;
}

int Show(const std::string& name) {
  auto text = engine::PresetPolicyText(name);
  if (!text) {
    std::fprintf(stderr, "headroom: policy show: %s\n", text.error().message.c_str());
    return 2;
  }
  std::fwrite(text->data(), 1, text->size(), stdout);
  return 0;
}

int Check(const std::vector<std::string>& specs) {
  int status = 0;
  for (const std::string& spec : specs) {
    auto policy = sim::LoadPolicy(spec);
    if (!policy) {
      std::fprintf(stderr, "headroom: policy check: %s\n", policy.error().message.c_str());
      status = 2;
      continue;
    }
    std::printf("%s: ok, policy '%s'\n", spec.c_str(), policy->name.c_str());
  }
  return status;
}

}  // namespace

std::function<int()> AddPolicyCommand(CLI::App& app) {
  auto options = std::make_shared<PolicyOptions>();
  CLI::App* policy = app.add_subcommand("policy", "The scheduling policies and their pieces");
  policy->require_subcommand(1);
  CLI::App* list =
      policy->add_subcommand("list", "The presets, and the registered pieces of each policy role");
  CLI::App* show = policy->add_subcommand("show", "Print a preset's policy file");
  show->add_option("name", options->preset, "fifo, slurm-like, spread or headroom")->required();
  CLI::App* check = policy->add_subcommand(
      "check", "Read presets or policy files as headroomd --policy would (exit 2 when one is bad)");
  check->add_option("policies", options->specs, "Preset names or FILE.yaml")->required();
  return [options, list, show] {
    if (list->parsed()) return List();
    if (show->parsed()) return Show(options->preset);
    return Check(options->specs);
  };
}

}  // namespace headroom::cli
