// `headroom hold ID… [--reason R]` and `headroom release ID…`, like scontrol hold/release: an
// operator keeps pending jobs from starting, or lets held ones go, whoever held them (an
// operator, or the policy's recovery.hold_after for a job that keeps failing).
#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/client/api_client.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"
#include "model/yaml_field.h"

namespace headroom::cli {
namespace {

struct HoldOptions {
  std::vector<std::string> ids;
  std::string reason;
  bool json = false;
};

std::function<int()> AddHoldOrRelease(CLI::App& app, Connection connection, bool held) {
  auto options = std::make_shared<HoldOptions>();
  const std::string verb = held ? "hold" : "release";
  CLI::App* command =
      app.add_subcommand(verb, held ? "Hold pending jobs: they start only once released (admin)"
                                    : "Release held jobs, whoever held them (admin)");
  command->add_option("ids", options->ids, "Job ids")->required();
  if (held) command->add_option("--reason", options->reason, "Why, shown as the jobs' reason");
  command->add_flag("--json", options->json, "Print each job as the API's JSON");
  // Every id is tried; the exit status is the worst of them.
  return [options, connection, verb, held] {
    for (const std::string& id : options->ids) {
      if (!IsJobId(id)) {
        return Fail(Error{ErrorCode::kInvalidArgument,
                          verb + ": '" + id + "' is not a job id (expected a number like 42)"});
      }
    }
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    const std::string body =
        held && !options->reason.empty() ? nlohmann::json{{"reason", options->reason}}.dump() : "";
    int status = 0;
    nlohmann::json changed = nlohmann::json::array();
    for (const std::string& id : options->ids) {
      auto answer = client->Post("/v1/jobs/" + id + "/" + verb, body);
      if (!answer) {
        const int failure = Fail(WithContext(answer.error(), "job " + id));
        if (failure == 1) return failure;  // headroomd is gone; the rest would fail the same way
        status = std::max(status, failure);
        continue;
      }
      if (options->json) {
        changed.push_back(std::move(*answer));
        continue;
      }
      const auto reason = answer->find("hold_reason");
      std::printf("%s %s\n", id.c_str(),
                  reason != answer->end() && reason->is_string()
                      ? model::PrintableLine(reason->get<std::string>()).c_str()
                      : (held ? "held" : "released"));
    }
    if (options->json) PrintJson(changed);
    return status;
  };
}

}  // namespace

std::function<int()> AddHoldCommand(CLI::App& app, Connection connection) {
  return AddHoldOrRelease(app, std::move(connection), true);
}

std::function<int()> AddReleaseCommand(CLI::App& app, Connection connection) {
  return AddHoldOrRelease(app, std::move(connection), false);
}

}  // namespace headroom::cli
