#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>

#include "cli/client/api_client.h"
#include "cli/client/job_spec.h"
#include "cli/client/output.h"
#include "cli/commands/commands.h"

namespace headroom::cli {
namespace {

struct SubmitOptions {
  SubmitFlags flags;
  std::string spec_file;  // -f: a YAML (or JSON) spec sent as it is
  bool json = false;
  bool dry_run = false;
};

Result<std::string> ReadSpecFile(const std::string& path) {
  std::string text;
  if (path == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    return text;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kNotFound, "{}: cannot open the job spec", path);
  text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (in.bad()) return MakeError(ErrorCode::kIo, "{}: reading failed", path);
  return text;
}

// A spec file starting with '{' is JSON; anything else is sent as YAML, which the API parses
// with line numbers in its errors.
std::string ContentTypeOf(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && text[first] == '{' ? "application/json" : "application/yaml";
}

// Devices of the largest node the daemon knows (0: none), to split -G into whole nodes.
Result<int64_t> LargestNodeGpus(const ConnectionOptions& connection) {
  auto client = ApiClient::Create(connection);
  if (!client) return tl::unexpected(client.error());
  auto answer = client->Get("/v1/nodes");
  if (!answer) return tl::unexpected(answer.error());
  int64_t largest = 0;
  if (answer->contains("nodes") && (*answer)["nodes"].is_array()) {
    for (const auto& node : (*answer)["nodes"]) {
      if (node.contains("devices") && node["devices"].is_number_integer()) {
        largest = std::max(largest, node["devices"].get<int64_t>());
      }
    }
  }
  return largest;
}

}  // namespace

std::function<int()> AddSubmitCommand(CLI::App& app, Connection connection) {
  auto options = std::make_shared<SubmitOptions>();
  SubmitFlags& f = options->flags;
  CLI::App* command = app.add_subcommand(
      "submit", "Submit a job: sbatch-like flags and a command after --, or -f spec.yaml");
  command->add_option("-f,--file", options->spec_file, "Job spec file (YAML or JSON; - for stdin)");
  command->add_option("-J,--name", f.name, "Job name (default: the command's program name)");
  command->add_option("-G,--gpus", f.gpus,
                      "Whole GPUs of the whole job (64 on 8-GPU nodes: 8 tasks of 8); per "
                      "replica with --replicas");
  command->add_option("--gpus-per-task", f.gpus_per_task, "Whole GPUs per task");
  command->add_option("--gpus-per-node", f.gpus_per_node,
                      "Whole GPUs per node (headroom runs one task per node)");
  command->add_option("--gpu-type", f.gpu_type, "GPU model, e.g. H100 (selector model == \"...\")");
  command->add_option("--share", f.share_milli, "A fraction of one GPU, in milli (1..999)");
  command->add_flag("--accept-degraded", f.accept_degraded,
                    "The tasks may run on degraded GPUs (hot, below full clocks)");
  command->add_option("-n,--ntasks,--tasks", f.tasks, "Gang size: tasks that start together");
  command->add_option_function<std::string>(
      "-N,--nodes",
      [&f](const std::string& text) {
        if (auto parsed = ParseNodeCount(text, f); !parsed) {
          throw CLI::ValidationError(parsed.error().message);
        }
      },
      "Gang size in nodes: one task on each; MIN-MAX for an elastic job, which starts on as "
      "many as it can get");
  command->add_option("--topology-required", f.topology_required,
                      "Start the whole gang inside one domain of this fabric level, or wait");
  command->add_option("--topology-preferred", f.topology_preferred,
                      "Prefer one domain of this fabric level, else the next level up");
  command->add_option("--replicas", f.replicas, "Submit a Service of this many replicas");
  command->add_option("-t,--time", f.time_limit, "Time limit: 2h, 90m, HH:MM:SS, D-HH:MM:SS");
  command->add_option("--runtime", f.runtime, "Simulated backend: how long the job really runs");
  command->add_option("--checkpoint-cost", f.checkpoint_cost,
                      "How long one checkpoint pauses the job (30s, 2m): the policy may then tell "
                      "each start how often to checkpoint (HEADROOM_CHECKPOINT_INTERVAL_S)");
  command->add_option("-p,--priority", f.priority, "Priority (integer, higher first)");
  command->add_option("-A,--tenant", f.tenant, "Tenant (default: the token's)");
  command->add_option("-c,--cpus", f.cpus, "CPU cores per task (16, or 500m)");
  command->add_option("--mem", f.mem, "Memory per task: 64G, 500M, 2T");
  command->add_option("-e,--env", f.env, "Environment KEY=VALUE (repeatable)")
      ->allow_extra_args(false);  // one pair per --env, so `--env A=1 -- cmd` keeps `--`
  command->add_flag("--json", options->json, "Print the API's answer as JSON");
  command->add_flag("--dry-run", options->dry_run, "Print the request body instead of sending it");
  command->add_option("command", f.command, "The command each task runs (after --)");

  return [options, connection] {
    std::string body;
    std::string content_type = "application/json";
    if (!options->spec_file.empty()) {
      const SubmitFlags& g = options->flags;
      if (!g.name.empty() || g.gpus || g.gpus_per_task || g.gpus_per_node || g.nodes ||
          !g.topology_required.empty() || !g.topology_preferred.empty() || !g.gpu_type.empty() ||
          g.share_milli || g.tasks || g.replicas || !g.time_limit.empty() || !g.runtime.empty() ||
          !g.checkpoint_cost.empty() || g.priority || !g.tenant.empty() || !g.cpus.empty() ||
          !g.mem.empty() || !g.env.empty() || !g.command.empty()) {
        return Fail(Error{ErrorCode::kInvalidArgument,
                          "submit: -f takes the whole job from the file; put the other settings "
                          "in the file instead of flags"});
      }
      auto text = ReadSpecFile(options->spec_file);
      if (!text) return Fail(text.error());
      body = std::move(*text);
      content_type = ContentTypeOf(body);
    } else {
      if (NeedsNodeGpus(options->flags)) {
        auto gpus = LargestNodeGpus(*connection);
        if (!gpus) return Fail(WithContext(gpus.error(), "submit -G without -N"));
        options->flags.node_gpus = *gpus;
      }
      auto spec = BuildJobSpec(options->flags);
      if (!spec) return Fail(WithContext(spec.error(), "submit"));
      body = spec->dump();
    }
    if (options->dry_run) {
      std::fwrite(body.data(), 1, body.size(), stdout);
      if (body.empty() || body.back() != '\n') std::fputc('\n', stdout);
      return 0;
    }
    auto client = ApiClient::Create(*connection);
    if (!client) return Fail(client.error());
    auto answer = client->Post("/v1/jobs", body, content_type);
    if (!answer) return Fail(answer.error());
    if (options->json) {
      PrintJson(*answer);
    } else if (answer->contains("id")) {
      std::printf("%s\n", (*answer)["id"].dump().c_str());
    } else {
      return Fail(Error{ErrorCode::kIo,
                        "headroomd accepted the job but its answer has no id: " + answer->dump()});
    }
    return 0;
  };
}

}  // namespace headroom::cli
