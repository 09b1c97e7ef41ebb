#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/client/api_client.h"
#include "cli/client/api_tables.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"

namespace headroom::cli {
namespace {

struct ExplainOptions {
  std::string id;
  bool json = false;
  std::string data_dir;  // Offline: from this data dir's engine log.
  std::string at;
};

}  // namespace

std::function<int()> AddExplainCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* command = app.add_subcommand(
      "explain", "Why a job waits: every reason, the nodes each turns away, its expected start");
  command->add_option("job", options->id, "Job id")->required();
  command->add_flag("--json", options->json, "Print the API's JSON for the job");
  command->add_option("--data-dir", options->data_dir,
                      "Offline, from a headroomd data dir's engine log (no server needed)");
  command->add_option("--at", options->at,
                      "With --data-dir: the moment to explain, seconds since the epoch or a UTC "
                      "time like 2026-12-01T08:30:00Z (default: the log's end)");
  return [options, connection] {
    const std::string& id = options->id;
    if (id.empty() || id.size() > 18 ||
        !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Fail(Error{ErrorCode::kInvalidArgument,
                        "explain: '" + id + "' is not a job id (expected a number like 42)"});
    }
    if (!options->data_dir.empty()) {
      TimeUs at_us = kNever;
      if (!options->at.empty()) {
        auto at = ParseAtTime(options->at);
        if (!at) return Fail(at.error());
        at_us = *at;
      }
      return ExplainOffline(options->data_dir, std::stoull(id), at_us);
    }
    if (!options->at.empty()) {
      return Fail(Error{ErrorCode::kInvalidArgument, "explain: --at needs --data-dir"});
    }
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    auto answer = client->Get("/v1/jobs/" + id);
    if (!answer) return Fail(WithContext(answer.error(), "job " + id));
    if (options->json) {
      PrintJson(*answer);
    } else {
      const std::string text = FormatExplain(*answer, NowSeconds());
      std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return 0;
  };
}

}  // namespace headroom::cli
