// How the client verbs end: a failure is one line "headroom: <message>" on stderr and the exit
// status ExitStatusFor() gives it; `--json` output is the API's JSON, indented, on stdout.
// Single-threaded (writes to the process's stdout/stderr).
#pragma once

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace headroom::cli {

// Prints the error and returns the exit status for it.
int Fail(const Error& error);

void PrintJson(const nlohmann::json& value);

// Wall-clock time in Unix seconds, for "how long has it waited" columns.
double NowSeconds();

}  // namespace headroom::cli
