#include <cstdio>
#include <memory>

#include "cli/client/api_client.h"
#include "cli/client/api_tables.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"

namespace headroom::cli {

std::function<int()> AddNodesCommand(CLI::App& app, Connection connection) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("nodes", "List nodes, like sinfo -N");
  command->add_flag("--json", *json, "Print the API's JSON ({\"nodes\": [...]})");
  return [json, connection] {
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    auto answer = client->Get("/v1/nodes");
    if (!answer) return Fail(answer.error());
    if (*json) {
      PrintJson(*answer);
    } else {
      const std::string table = FormatNodes(*answer);
      std::fwrite(table.data(), 1, table.size(), stdout);
    }
    return 0;
  };
}

std::function<int()> AddServicesCommand(CLI::App& app, Connection connection) {
  auto json = std::make_shared<bool>(false);
  CLI::App* command = app.add_subcommand("services", "List services and their replicas");
  command->add_flag("--json", *json, "Print the API's JSON ({\"services\": [...]})");
  return [json, connection] {
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    auto answer = client->Get("/v1/services");
    if (!answer) return Fail(answer.error());
    if (*json) {
      PrintJson(*answer);
    } else {
      const std::string table = FormatServices(*answer);
      std::fwrite(table.data(), 1, table.size(), stdout);
    }
    return 0;
  };
}

}  // namespace headroom::cli
