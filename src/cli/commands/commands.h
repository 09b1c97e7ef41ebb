// The subcommands of `headroom`. Each registers its flags on a CLI11 app and runs when chosen;
// bad input returns a one-line error (exit status 2), never a crash.
#pragma once

#include <functional>

#include <CLI/CLI.hpp>

namespace headroom::cli {

// Registers `sim` and `gen-cluster`; the returned function runs whichever was chosen and
// gives the process exit status.
std::function<int()> AddSimCommand(CLI::App& app);
std::function<int()> AddGenClusterCommand(CLI::App& app);

}  // namespace headroom::cli
