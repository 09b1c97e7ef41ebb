#include <algorithm>
#include <cstdio>
#include <memory>
#include <sstream>

#include "cli/client/api_client.h"
#include "cli/client/api_tables.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"

namespace headroom::cli {
namespace {

struct QueueOptions {
  std::string states = "running,pending";  // comma-separated, or "all"
  std::string tenant;
  int limit = 0;
  bool json = false;
};

constexpr const char* kStates[] = {"pending", "running", "completed", "failed", "cancelled"};

}  // namespace

std::function<int()> AddQueueCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<QueueOptions>();
  CLI::App* command = app.add_subcommand("queue", "List jobs, like squeue (pending and running)");
  command
      ->add_option("-t,--state", options->states,
                   "States, comma-separated: pending,running,completed,failed,cancelled, or all")
      ->capture_default_str();
  command->add_option("-A,--tenant", options->tenant, "Only this tenant's jobs");
  command->add_option("--limit", options->limit, "At most this many jobs per state");
  command->add_flag("--json", options->json, "Print the API's JSON ({\"jobs\": [...]})");

  return [options, connection] {
    std::vector<std::string> states;
    if (options->states != "all") {
      std::stringstream list(options->states);
      for (std::string state; std::getline(list, state, ',');) {
        if (std::find(std::begin(kStates), std::end(kStates), state) == std::end(kStates)) {
          return Fail(Error{ErrorCode::kInvalidArgument,
                            "queue --state '" + state +
                                "': expected pending, running, completed, failed, cancelled or "
                                "all"});
        }
        states.push_back(state);
      }
    }
    if (states.empty()) states.push_back("");  // "all": one request without a state filter
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    nlohmann::json merged = {{"jobs", nlohmann::json::array()}};
    for (const std::string& state : states) {
      std::string query;
      if (!state.empty()) query += "&state=" + QueryEscape(state);
      if (!options->tenant.empty()) query += "&tenant=" + QueryEscape(options->tenant);
      if (options->limit > 0) query += "&limit=" + std::to_string(options->limit);
      if (!query.empty()) query[0] = '?';
      auto answer = client->Get("/v1/jobs" + query);
      if (!answer) return Fail(answer.error());
      if (answer->contains("jobs") && (*answer)["jobs"].is_array()) {
        for (auto& job : (*answer)["jobs"]) merged["jobs"].push_back(std::move(job));
      }
    }
    if (options->json) {
      PrintJson(merged);
    } else {
      const std::string table = FormatQueue(merged, NowSeconds());
      std::fwrite(table.data(), 1, table.size(), stdout);
    }
    return 0;
  };
}

}  // namespace headroom::cli
