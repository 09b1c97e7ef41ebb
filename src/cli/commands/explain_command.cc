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
};

}  // namespace

std::function<int()> AddExplainCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<ExplainOptions>();
  CLI::App* command = app.add_subcommand(
      "explain", "Why a job waits: every reason, the nodes each turns away, its expected start");
  command->add_option("job", options->id, "Job id")->required();
  command->add_flag("--json", options->json, "Print the API's JSON for the job");
  return [options, connection] {
    const std::string& id = options->id;
    if (id.empty() || id.size() > 18 ||
        !std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Fail(Error{ErrorCode::kInvalidArgument,
                        "explain: '" + id + "' is not a job id (expected a number like 42)"});
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
