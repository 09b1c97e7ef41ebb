// `headroom store check --data-dir DIR`: what is wrong with a headroomd data dir, found offline
// without starting a daemon (docs/cli.md). It opens the store read-only, so it changes nothing
// and may run beside a live headroomd. Prints one line per problem and per bad row (table, key,
// what is wrong), then a summary. Exit status: 0 clean, 1 problems found, 2 bad usage or a
// store that cannot be read.
#include <cstdio>
#include <memory>
#include <string>

#include "cli/commands/commands.h"
#include "control/data_dir.h"

namespace headroom::cli {
namespace {

struct StoreOptions {
  std::string data_dir;
};

int RunCheck(const StoreOptions& options) {
  auto check = control::CheckStore(options.data_dir);
  if (!check) {
    std::fprintf(stderr, "headroom: store check: %s\n", check.error().message.c_str());
    return 2;
  }
  for (const std::string& problem : check->problems) {
    std::printf("problem: %s\n", problem.c_str());
  }
  for (const control::BadRow& row : check->bad_rows) {
    std::printf("bad row: %s\n", control::DescribeBadRow(row).c_str());
  }
  std::printf(
      "%s: %zu jobs, %zu services, %zu nodes, %zu tokens loaded; %zu bad rows; %lld "
      "rows in quarantine\n",
      check->store_path.c_str(), check->jobs, check->services, check->nodes, check->tokens,
      check->bad_rows.size(), static_cast<long long>(check->quarantined));
  if (!check->bad_rows.empty()) {
    std::printf(
        "headroomd refuses to start on a bad row; `headroomd --repair` moves them to "
        "the quarantine table, logging each, and starts without them\n");
  }
  return check->clean() ? 0 : 1;
}

}  // namespace

std::function<int()> AddStoreCommand(CLI::App& app) {
  auto options = std::make_shared<StoreOptions>();
  CLI::App* store = app.add_subcommand("store", "Inspect a headroomd data dir offline");
  store->require_subcommand(1);
  CLI::App* check = store->add_subcommand(
      "check",
      "List what would stop headroomd from starting: bad rows, missing tables, a store "
      "that is not the one admin.token was made with (exit 1 when any)");
  check->add_option("--data-dir", options->data_dir, "headroomd's --data-dir")->required();
  return [options] { return RunCheck(*options); };
}

}  // namespace headroom::cli
