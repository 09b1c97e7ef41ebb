// `headroom policy`: the scheduling policies (docs/cli.md, docs/engine.md "Policy files").
// Offline: `list` names the presets and every registered piece of each policy role, with what
// it does; `show NAME` prints a preset's policy file, the starting point for an operator's own;
// `check SPEC...` reads presets or policy files as headroomd --policy would, one line each.
// Against headroomd: `current` names the policy in force (`--text`: its YAML); `set SPEC` puts a
// preset or policy file in force (PUT /v1/policy), read and checked here first.
// Exit status: 0 on success; 2 for a bad policy (one line naming the file, line and field) or a
// refusal; 1 when headroomd cannot be reached.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/client/api_client.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"
#include "engine/filter.h"
#include "engine/presets.h"
#include "engine/queue_order.h"
#include "engine/scorer.h"
#include "engine/share_scorers.h"
#include "engine/victim_selector.h"
#include "sim/policy_files.h"

namespace headroom::cli {
namespace {

struct PolicyOptions {
  std::string preset;
  std::vector<std::string> specs;
  std::string spec;   // set
  bool text = false;  // current --text
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
  for (std::string_view name : engine::ShippedPolicyNames()) {
    auto policy = engine::PresetPolicy(name);
    std::printf("  %-18.*s %s\n", static_cast<int>(name.size()), name.data(),
                policy ? policy->description.c_str() : policy.error().message.c_str());
  }
  ListRole("filters (placement.filters)", engine::Filters());
  ListRole("scorers (placement.scorers)", engine::Scorers());
  ListRole("queue orders (queue.order)", engine::QueueOrders());
  ListRole("victim selectors (victim_selector)", engine::VictimSelectors());
  std::printf("share scorers (placement.share.scorer):\n");
  for (const auto& [name, summary] : engine::SharePolicySummaries()) {
    std::printf("  %-18.*s %.*s\n", static_cast<int>(name.size()), name.data(),
                static_cast<int>(summary.size()), summary.data());
  }
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

int Current(const ConnectionOptions& connection, bool text) {
  auto client = ApiClient::Create(connection);
  if (!client) return Fail(client.error());
  auto answer = client->Get("/v1/policy");
  if (!answer) return Fail(WithContext(answer.error(), "policy"));
  if (text) {
    const std::string yaml = answer->value("text", "");
    std::fwrite(yaml.data(), 1, yaml.size(), stdout);
    return 0;
  }
  std::printf("%s: %s\n", answer->value("name", "").c_str(),
              answer->value("description", "").c_str());
  return 0;
}

int Set(const ConnectionOptions& connection, const std::string& spec) {
  // Checked here first, so that a mistake is named by the file's own line.
  auto loaded = sim::LoadPolicyWithText(spec);
  if (!loaded) return Fail(WithContext(loaded.error(), "policy set"));
  auto client = ApiClient::Create(connection);
  if (!client) return Fail(client.error());
  auto answer = client->Put("/v1/policy", loaded->text, "application/yaml");
  if (!answer) return Fail(WithContext(answer.error(), "policy set"));
  std::printf("policy '%s' in force\n", answer->value("name", "").c_str());
  return 0;
}

}  // namespace

std::function<int()> AddPolicyCommand(CLI::App& app, Connection connection) {
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
  CLI::App* current = policy->add_subcommand("current", "The policy headroomd runs now");
  current->add_flag("--text", options->text, "Print its policy file");
  CLI::App* set = policy->add_subcommand(
      "set", "Put a preset or policy file in force in headroomd (kept across restarts)");
  set->add_option("policy", options->spec, "A preset name or FILE.yaml")->required();
  return [options, list, show, current, set, connection] {
    if (list->parsed()) return List();
    if (show->parsed()) return Show(options->preset);
    if (current->parsed()) return Current(*connection, options->text);
    if (set->parsed()) return Set(*connection, options->spec);
    return Check(options->specs);
  };
}

}  // namespace headroom::cli
