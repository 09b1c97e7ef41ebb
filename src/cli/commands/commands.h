// The subcommands of `headroom`. Each registers its flags on a CLI11 app and runs when chosen;
// bad input returns a one-line error (exit status 2), never a crash. The client verbs (submit,
// queue, nodes, cancel, drain, services) talk to headroomd over HTTP only, through the
// connection options that main() registers on the top-level app (`--server`, `--token`,
// `--insecure`, `--cacert`); they exit 1 when headroomd cannot be reached.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "base/result.h"
#include "base/time.h"

namespace headroom::cli {

struct ConnectionOptions;

// Registers `sim` and `gen-cluster`; the returned function runs whichever was chosen and
// gives the process exit status.
std::function<int()> AddSimCommand(CLI::App& app);
std::function<int()> AddGenClusterCommand(CLI::App& app);
// Registers `store check --data-dir DIR`: a headroomd data dir checked offline.
std::function<int()> AddStoreCommand(CLI::App& app);
// Registers `telemetry parse FILE [--json]`: a GPU exporter's text read offline.
std::function<int()> AddTelemetryCommand(CLI::App& app);
std::function<int()> AddReplayCommand(CLI::App& app);
// Offline explain (replay_command.cc): why `job` waited at `at_us` (kNever: the log's end), by
// the engine log of headroomd's data dir `data_dir`.
int ExplainOffline(const std::string& data_dir, uint64_t job, TimeUs at_us);
// --at: seconds since the epoch, or a UTC time 2026-12-01T08:30:00Z.
Result<TimeUs> ParseAtTime(const std::string& text);

// Registers `--server`, `--token`, `--insecure` and `--cacert` on the top-level app.
void AddConnectionOptions(CLI::App& app, ConnectionOptions& options);

// The client verbs; `connection` is filled in by parsing before the returned function runs.
using Connection = std::shared_ptr<const ConnectionOptions>;
std::function<int()> AddSubmitCommand(CLI::App& app, Connection connection);
std::function<int()> AddQueueCommand(CLI::App& app, Connection connection);
// `policy list|show NAME|check SPEC...` offline; `policy current|set SPEC` against headroomd.
std::function<int()> AddPolicyCommand(CLI::App& app, Connection connection);
std::function<int()> AddExplainCommand(CLI::App& app, Connection connection);
std::function<int()> AddNodesCommand(CLI::App& app, Connection connection);
std::function<int()> AddQueuesCommand(CLI::App& app, Connection connection);
std::function<int()> AddCancelCommand(CLI::App& app, Connection connection);
// Whether `text` is a job (or service) id as the commands take one: digits, at most 18.
bool IsJobId(const std::string& text);
// `hold ID… [--reason R]` and `release ID…` (hold_command.cc).
std::function<int()> AddHoldCommand(CLI::App& app, Connection connection);
std::function<int()> AddReleaseCommand(CLI::App& app, Connection connection);
std::function<int()> AddDrainCommand(CLI::App& app, Connection connection);
// `device diagnose|repair|return NODE INDEX [--reason R]`, `device resume` (drain_command.cc).
std::function<int()> AddDeviceCommand(CLI::App& app, Connection connection);
std::function<int()> AddServicesCommand(CLI::App& app, Connection connection);
std::function<int()> AddScaleCommand(CLI::App& app, Connection connection);

}  // namespace headroom::cli
