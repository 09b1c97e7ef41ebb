#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/client/api_client.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"
#include "model/yaml_field.h"

namespace headroom::cli {
namespace {

struct DrainOptions {
  std::string node;
  std::string reason;
  bool undo = false;
  bool json = false;
};

}  // namespace

std::function<int()> AddDrainCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<DrainOptions>();
  CLI::App* command = app.add_subcommand(
      "drain", "Drain a node (no new work; running work finishes), or --undo to return it");
  command->add_option("node", options->node, "Node name")->required();
  command->add_option("-r,--reason", options->reason, "Why (required to drain; shown in nodes)");
  command->add_flag("--undo", options->undo, "Return a drained node to service");
  command->add_flag("--json", options->json, "Print the node as the API's JSON");
  return [options, connection] {
    if (!options->undo && options->reason.empty()) {
      return Fail(Error{ErrorCode::kInvalidArgument,
                        "drain: --reason is required (it is shown to everyone who lists nodes)"});
    }
    if (options->undo && !options->reason.empty()) {
      return Fail(Error{ErrorCode::kInvalidArgument, "drain --undo takes no --reason"});
    }
    if (options->node.find_first_of("/?#% ") != std::string::npos) {
      return Fail(
          Error{ErrorCode::kInvalidArgument, "drain: '" + options->node + "' is not a node name"});
    }
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    const std::string path = "/v1/nodes/" + options->node + (options->undo ? "/undrain" : "/drain");
    const std::string body =
        options->undo ? std::string("{}") : nlohmann::json{{"reason", options->reason}}.dump();
    auto answer = client->Post(path, body);
    if (!answer) return Fail(answer.error());
    if (options->json) {
      PrintJson(*answer);
    } else {
      std::printf("%s %s\n", model::PrintableLine(options->node).c_str(),
                  model::PrintableLine(
                      answer->value("state", std::string(options->undo ? "up" : "drained")))
                      .c_str());
    }
    return 0;
  };
}

std::function<int()> AddDeviceCommand(CLI::App& app, Connection connection) {
  struct DeviceOptions {
    std::string action;
    std::string node;
    uint32_t index = 0;
    std::string reason;
    bool json = false;
  };
  auto options = std::make_shared<DeviceOptions>();
  CLI::App* command = app.add_subcommand(
      "device",
      "Move a device: diagnose or repair (out of use; its jobs keep running), return (back to "
      "healthy, baselines reset)");
  command
      ->add_option("action", options->action,
                   "diagnose, repair or return (NODE INDEX); resume (none): reset a tripped "
                   "storm guard")
      ->required()
      ->check(CLI::IsMember({"diagnose", "repair", "return", "resume"}));
  CLI::Option* node = command->add_option("node", options->node, "Node name");
  CLI::Option* index = command->add_option("index", options->index, "Device index on the node")
                           ->check(CLI::Range(0, 1023));
  command->add_option("-r,--reason", options->reason, "Why (kept in the device's history)");
  command->add_flag("--json", options->json, "Print the device's health as the API's JSON");
  return [options, connection, node, index] {
    const bool resume = options->action == "resume";
    if (resume != (node->count() == 0) || resume != (index->count() == 0)) {
      return Fail(Error{ErrorCode::kInvalidArgument,
                        resume ? "device resume takes no node or index"
                               : "device " + options->action + ": give NODE and INDEX"});
    }
    if (options->node.find_first_of("/?#% ") != std::string::npos) {
      return Fail(
          Error{ErrorCode::kInvalidArgument, "device: '" + options->node + "' is not a node name"});
    }
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    if (resume) {
      auto answer = client->Post("/v1/health/resume", "");
      if (!answer) return Fail(answer.error());
      if (options->json) {
        PrintJson(*answer);
      } else {
        std::printf("%s\n", answer->value("was_tripped", false)
                                ? "storm guard reset: health takes devices out of use again"
                                : "the storm guard was not tripped");
      }
      return 0;
    }
    const std::string path =
        fmt::format("/v1/nodes/{}/devices/{}/{}", options->node, options->index, options->action);
    const std::string body = options->reason.empty()
                                 ? std::string()
                                 : nlohmann::json{{"reason", options->reason}}.dump();
    auto answer = client->Post(path, body);
    if (!answer) return Fail(answer.error());
    if (options->json) {
      PrintJson(*answer);
    } else {
      std::printf("%s device %u %s\n", model::PrintableLine(options->node).c_str(), options->index,
                  model::PrintableLine(answer->value("state", std::string("?"))).c_str());
    }
    return 0;
  };
}

}  // namespace headroom::cli
