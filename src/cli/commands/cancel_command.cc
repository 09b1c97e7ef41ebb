#include <algorithm>
#include <cstdio>
#include <memory>

#include "cli/client/api_client.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"
#include "model/yaml_field.h"

namespace headroom::cli {
namespace {

struct CancelOptions {
  std::vector<std::string> ids;
  bool services = false;
  bool json = false;
};

}  // namespace

bool IsJobId(const std::string& text) {
  return !text.empty() && text.size() <= 18 &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::function<int()> AddCancelCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<CancelOptions>();
  CLI::App* command = app.add_subcommand("cancel", "Cancel jobs, like scancel");
  command->add_option("ids", options->ids, "Job ids (service ids with --service)")->required();
  command->add_flag("--service", options->services,
                    "Cancel whole services: every replica, and none replaces them");
  command->add_flag("--json", options->json, "Print each cancelled job as the API's JSON");
  // Every id is tried; the exit status is the worst of them, so one finished job does not stop
  // the others from being cancelled.
  return [options, connection] {
    const std::string what = options->services ? "service" : "job";
    for (const std::string& id : options->ids) {
      if (!IsJobId(id)) {
        return Fail(Error{ErrorCode::kInvalidArgument, "cancel: '" + id + "' is not a " + what +
                                                           " id (expected a number like 42)"});
      }
    }
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    int status = 0;
    nlohmann::json cancelled = nlohmann::json::array();
    for (const std::string& id : options->ids) {
      const std::string path = (options->services ? "/v1/services/" : "/v1/jobs/") + id + "/cancel";
      auto answer = client->Post(path, "");
      if (!answer) {
        const int failure = Fail(WithContext(answer.error(), what + " " + id));
        if (failure == 1) return failure;  // headroomd is gone; the rest would fail the same way
        status = std::max(status, failure);
        continue;
      }
      if (options->json) {
        cancelled.push_back(std::move(*answer));
      } else if (options->services) {
        const size_t replicas = answer->contains("jobs") ? (*answer)["jobs"].size() : 0;
        std::printf("service %s cancelled (%zu live replicas)\n", id.c_str(), replicas);
      } else {
        std::printf("%s %s\n", id.c_str(),
                    model::PrintableLine(answer->value("state", std::string("cancelled"))).c_str());
      }
    }
    if (options->json) PrintJson(cancelled);
    return status;
  };
}

}  // namespace headroom::cli
