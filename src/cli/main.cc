// headroom: the command-line entry point. `headroom sim` compares scheduling policies on a
// cluster and workload; `headroom gen-cluster` writes a synthetic building as YAML; `submit`,
// `queue`, `nodes`, `cancel`, `drain` and `services` talk to headroomd over its HTTP API;
// `store check` reads a headroomd data dir offline.
// Exit status: 0 success, 2 bad input or a request headroomd refused (one line on stderr),
// 1 headroomd unreachable or failing.
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/client/api_client.h"
#include "cli/commands/commands.h"

namespace {

constexpr int kJsonInvalidUtf8 = 316;  // nlohmann::json's type_error for a string it cannot dump.

}  // namespace

int main(int argc, char** argv) {
  using namespace headroom::cli;
  CLI::App app{"headroom: the line controller of an AI factory"};
  app.require_subcommand(1);
  // `--server` and friends may come before or after the verb.
  app.fallthrough();
  auto connection = std::make_shared<ConnectionOptions>();
  AddConnectionOptions(app, *connection);
  using Adder = std::function<int()> (*)(CLI::App&, const Connection&);
  static constexpr std::pair<std::string_view, Adder> kVerbs[] = {
      {"sim", [](CLI::App& a, const Connection&) { return AddSimCommand(a); }},
      {"gen-cluster", [](CLI::App& a, const Connection&) { return AddGenClusterCommand(a); }},
      {"submit", [](CLI::App& a, const Connection& c) { return AddSubmitCommand(a, c); }},
      {"queue", [](CLI::App& a, const Connection& c) { return AddQueueCommand(a, c); }},
      {"explain", [](CLI::App& a, const Connection& c) { return AddExplainCommand(a, c); }},
      {"nodes", [](CLI::App& a, const Connection& c) { return AddNodesCommand(a, c); }},
      {"queues", [](CLI::App& a, const Connection& c) { return AddQueuesCommand(a, c); }},
      {"cancel", [](CLI::App& a, const Connection& c) { return AddCancelCommand(a, c); }},
      {"hold", [](CLI::App& a, const Connection& c) { return AddHoldCommand(a, c); }},
      {"release", [](CLI::App& a, const Connection& c) { return AddReleaseCommand(a, c); }},
      {"drain", [](CLI::App& a, const Connection& c) { return AddDrainCommand(a, c); }},
      {"device", [](CLI::App& a, const Connection& c) { return AddDeviceCommand(a, c); }},
      {"services", [](CLI::App& a, const Connection& c) { return AddServicesCommand(a, c); }},
      {"scale", [](CLI::App& a, const Connection& c) { return AddScaleCommand(a, c); }},
      {"store", [](CLI::App& a, const Connection&) { return AddStoreCommand(a); }},
      {"telemetry", [](CLI::App& a, const Connection&) { return AddTelemetryCommand(a); }},
      {"replay", [](CLI::App& a, const Connection&) { return AddReplayCommand(a); }},
      {"policy", [](CLI::App& a, const Connection& c) { return AddPolicyCommand(a, c); }},
  };
  // Only the verb asked for is built, when one word of the command line names a verb and no
  // other does: building every verb's options is most of the CLI's own start. Otherwise (help,
  // a mistyped verb, a value that happens to be a verb's name) every verb is, so that help and
  // errors list them all.
  const std::pair<std::string_view, Adder>* only = nullptr;
  int named = 0;
  for (int i = 1; i < argc; ++i) {
    for (const auto& verb : kVerbs) {
      if (verb.first == argv[i]) {
        only = &verb;
        ++named;
      }
    }
  }
  std::vector<std::function<int()>> runners;
  for (const auto& verb : kVerbs) {
    if (named != 1 || &verb == only) runners.push_back(verb.second(app, connection));
  }
  app.set_version_flag("--version", "headroom " HEADROOM_VERSION);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "headroom: %s\n", e.what());
    return 2;
  }
  try {
    // Subcommands are registered in the order of `runners`.
    const std::vector<CLI::App*> all = app.get_subcommands([](CLI::App*) { return true; });
    for (CLI::App* chosen : app.get_subcommands()) {
      for (size_t i = 0; i < all.size() && i < runners.size(); ++i) {
        if (all[i] == chosen) return runners[i]();
      }
    }
  } catch (const std::exception& e) {
    // Text from the command line that is not UTF-8 cannot go into a JSON request: the user's
    // mistake, not ours.
    if (const auto* json_error = dynamic_cast<const nlohmann::json::type_error*>(&e);
        json_error != nullptr && json_error->id == kJsonInvalidUtf8) {
      const std::string what = e.what();
      const size_t cut = what.find("] ");
      std::fprintf(stderr,
                   "headroom: a value given is not UTF-8 text (%s); headroomd takes UTF-8 only\n",
                   what.substr(cut == std::string::npos ? 0 : cut + 2).c_str());
      return 2;
    }
    std::fprintf(stderr, "headroom: internal error: %s\n", e.what());
    return 1;
  }
  return 2;
}
