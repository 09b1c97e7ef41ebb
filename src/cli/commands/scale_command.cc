#include <cstdio>
#include <memory>

#include "cli/client/api_client.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"

namespace headroom::cli {
namespace {

struct ScaleOptions {
  uint64_t service = 0;
  uint32_t replicas = 0;
  bool json = false;
};

}  // namespace

std::function<int()> AddScaleCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<ScaleOptions>();
  CLI::App* command = app.add_subcommand("scale", "Set a service's number of replicas");
  command->add_option("service", options->service, "Service id (headroom services lists them)")
      ->required();
  command
      ->add_option("--replicas", options->replicas,
                   "Replicas to keep running: more submits new ones, fewer cancels the surplus "
                   "(pending first, then the newest); 0 keeps the service with none")
      ->required();
  command->add_flag("--json", options->json, "Print the API's JSON");
  return [options, connection] {
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    const nlohmann::json body = {{"replicas", options->replicas}};
    auto answer = client->Post("/v1/services/" + std::to_string(options->service) + "/scale",
                               body.dump(), "application/json");
    if (!answer)
      return Fail(WithContext(answer.error(), "service " + std::to_string(options->service)));
    if (options->json) {
      PrintJson(*answer);
      return 0;
    }
    std::printf("service %llu scaled to %u replicas (%zu added, %zu cancelled)\n",
                static_cast<unsigned long long>(options->service), options->replicas,
                (*answer)["added"].size(), (*answer)["cancelled"].size());
    return 0;
  };
}

}  // namespace headroom::cli
