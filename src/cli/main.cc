// headroom: the command-line entry point. `headroom sim` compares scheduling policies on a
// cluster and workload; `headroom gen-cluster` writes a synthetic building as YAML.
// Exit status: 0 success, 2 bad input (one line on stderr naming file, line and field).
#include <cstdio>
#include <exception>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/commands/commands.h"

int main(int argc, char** argv) {
  CLI::App app{"headroom: the line controller of an AI factory"};
  app.require_subcommand(1);
  std::vector<std::function<int()>> runners = {headroom::cli::AddSimCommand(app),
                                               headroom::cli::AddGenClusterCommand(app)};
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "headroom: %s\n", e.what());
    return 2;
  }
  try {
    for (CLI::App* sub : app.get_subcommands()) {
      if (sub->get_name() == "sim") return runners[0]();
      if (sub->get_name() == "gen-cluster") return runners[1]();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "headroom: internal error: %s\n", e.what());
    return 1;
  }
  return 2;
}
