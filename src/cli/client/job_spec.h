// The flag form of `headroom submit`, in the spirit of sbatch, and the job spec JSON it becomes
// (docs/api.md "Jobs"). Promises: BuildJobSpec() is pure — the same flags give the same JSON,
// field for field — and rejects flag combinations the API would refuse with a message naming
// the flag. Durations and sizes are normalised here so the daemon sees one form:
// `timeLimit`/`runtime` as integer seconds, `memory` as "<n>Mi|Gi|Ti", `cpu` as a string.
//
// GPU flags mean what they mean in sbatch, with one rule of headroom's: a task is what runs on
// one node, so -N gives one task per node (a launcher such as torchrun starts the processes
// within it). -G/--gpus is the job's total; --gpus-per-task and --gpus-per-node the size of
// each task; -n/--ntasks and -N/--nodes the gang size. -G 64 on 8-GPU nodes is 8 tasks of 8;
// with neither a count nor a per-task size, -G above 1 needs node_gpus (the command asks the
// daemon for its largest node).
// Any thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace headroom::cli {

struct SubmitFlags {
  std::string name;                      // metadata.name; default: the command's program name
  std::optional<int64_t> gpus;           // -G: whole devices of the whole job
  std::optional<int64_t> gpus_per_task;  // whole devices per task
  std::optional<int64_t> gpus_per_node;  // the same (a task per node)
  std::optional<int64_t> nodes;          // -N: gang size, one task per node
  std::optional<int64_t> min_nodes;      // -N MIN-MAX: the fewest an elastic job runs on
  std::optional<int64_t> node_gpus;      // devices of the cluster's largest node (for -G alone)
  std::string topology_required;         // spec.topology.required: a fabric level name
  std::string topology_preferred;        // spec.topology.preferred
  std::string gpu_type;                  // becomes the selector `model == "<gpu_type>"`
  std::optional<int64_t> share_milli;    // a fraction of one device, 1..999
  bool accept_degraded = false;          // the request's acceptDegraded
  std::optional<int64_t> tasks;          // -n: gang size
  std::optional<int64_t> replicas;       // makes it a Service of this many replicas
  std::string time_limit;       // 2h, 90m, 45s, 1d, HH:MM:SS, MM:SS, D-HH[:MM[:SS]], minutes
  std::string runtime;          // simulated backend only; same forms as time_limit
  std::string checkpoint_cost;  // how long one checkpoint pauses the job; same forms
  std::optional<int64_t> priority;
  std::string tenant;
  std::string cpus;                  // cores per task: "16" or "500m"
  std::string mem;                   // per task: 64G, 500M, 2T, 4096 (MiB), or 64Gi
  std::vector<std::string> env;      // KEY=VALUE
  std::vector<std::string> command;  // everything after `--`
};

// Parses a duration in the forms above into seconds. Bare numbers are minutes, as in sbatch.
Result<int64_t> ParseDurationSeconds(std::string_view text);

// Parses a memory size in the forms above into the API's quantity ("64Gi").
Result<std::string> ParseMemory(std::string_view text);

// Reads -N's value, sbatch's `--nodes=<minnodes>[-maxnodes]`, into flags.nodes (the most) and,
// for a range, flags.min_nodes.
Result<void> ParseNodeCount(std::string_view text, SubmitFlags& flags);

// Whether -G is given alone, so that its split into tasks needs node_gpus.
bool NeedsNodeGpus(const SubmitFlags& flags);

// The job spec JSON for POST /v1/jobs.
Result<nlohmann::json> BuildJobSpec(const SubmitFlags& flags);

}  // namespace headroom::cli
