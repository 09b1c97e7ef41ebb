#include <string>

#include "cli/client/api_client.h"
#include "cli/commands/commands.h"

namespace headroom::cli {

void AddConnectionOptions(CLI::App& app, ConnectionOptions& options) {
  app.add_option(
      "--server", options.server,
      "headroomd URL (default: $HEADROOM_SERVER, else " + std::string(kDefaultServer) + ")");
  app.add_option("--token", options.token, "API token (default: $HEADROOM_TOKEN)");
  app.add_flag("--insecure", options.insecure, "https: do not verify the server's certificate");
  app.add_option("--cacert", options.ca_cert_file, "https: trust this PEM CA bundle")
      ->check(CLI::ExistingFile);
}

}  // namespace headroom::cli
