// `headroom queues`: queues with quotas (docs/cli.md). Without a verb, lists what GET /v1/queues
// returns — each queue's guarantee, limits and usage in devices (an admin sees every queue, a
// user its tenant's and the queues above, with its fair share); `set FILE` puts a queues file in
// force (PUT /v1/queues, admin), checked here first so that a mistake is named by the file's
// own line. Exit status: 0 on success; 2 for a bad file or a refusal; 1 when headroomd cannot be
// reached.
#include <cstdio>
#include <memory>
#include <string>

#include "base/csv.h"
#include "cli/client/api_client.h"
#include "cli/client/api_tables.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"
#include "engine/quota_yaml.h"

namespace headroom::cli {
namespace {

struct QueuesOptions {
  bool json = false;
  std::string file;  // set
};

int List(const ConnectionOptions& connection, bool json) {
  auto client = ApiClient::Create(connection);
  if (!client) return Fail(client.error());
  auto answer = client->Get("/v1/queues");
  if (!answer) return Fail(answer.error());
  if (json) {
    PrintJson(*answer);
    return 0;
  }
  const std::string table = FormatQueues(*answer);
  std::fwrite(table.data(), 1, table.size(), stdout);
  return 0;
}

int Set(const ConnectionOptions& connection, const std::string& file) {
  auto text = ReadTextFile(file);
  if (!text) return Fail(WithContext(text.error(), "queues set"));
  auto queues = engine::ParseQueuesYaml(*text, file);
  if (!queues) return Fail(WithContext(queues.error(), "queues set"));
  auto client = ApiClient::Create(connection);
  if (!client) return Fail(client.error());
  auto answer = client->Put("/v1/queues", *text, "application/yaml");
  if (!answer) return Fail(WithContext(answer.error(), "queues set"));
  std::printf("%zu queue(s) in force in policy '%s'\n", queues->size(),
              answer->value("policy", "").c_str());
  if (const auto warnings = answer->find("warnings");
      warnings != answer->end() && warnings->is_array()) {
    for (const auto& warning : *warnings) {
      if (warning.is_string()) {
        std::fprintf(stderr, "warning: %s\n", warning.get<std::string>().c_str());
      }
    }
  }
  return 0;
}

}  // namespace

std::function<int()> AddQueuesCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<QueuesOptions>();
  CLI::App* queues =
      app.add_subcommand("queues", "Queues with quotas: guarantees, limits and usage");
  queues->add_flag("--json", options->json, "Print the API's JSON ({\"queues\": [...]})");
  CLI::App* set = queues->add_subcommand(
      "set", "Put a queues file in force in headroomd (admin; kept across restarts)");
  set->add_option("file", options->file, "FILE.yaml with a 'queues' list")->required();
  return [options, set, connection] {
    if (set->parsed()) return Set(*connection, options->file);
    return List(*connection, options->json);
  };
}

}  // namespace headroom::cli
