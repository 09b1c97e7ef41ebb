#include "cli/client/job_spec.h"

#include <cctype>
#include <charconv>
#include <filesystem>

namespace headroom::cli {
namespace {

std::optional<int64_t> ParseInt(std::string_view text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// Splits "a:b:c" into its parts.
std::vector<std::string_view> SplitColons(std::string_view text) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    const size_t colon = text.find(':', start);
    parts.push_back(text.substr(start, colon - start));
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return parts;
}

}  // namespace

Result<int64_t> ParseDurationSeconds(std::string_view text) {
  const auto bad = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "duration '{}': expected 90s, 30m, 2h, 1d, HH:MM:SS, D-HH:MM:SS or minutes",
                     text);
  };
  if (text.empty()) return bad();
  constexpr std::string_view kSuffixes = "smhd";
  constexpr int64_t kUnitSeconds[] = {1, 60, 3600, 86400};
  if (const size_t unit = kSuffixes.find(text.back()); unit != std::string_view::npos) {
    const auto count = ParseInt(text.substr(0, text.size() - 1));
    if (!count || *count <= 0) return bad();
    return *count * kUnitSeconds[unit];
  }
  // Slurm's forms: "minutes", "minutes:seconds", "hours:minutes:seconds", "days-hours",
  // "days-hours:minutes", "days-hours:minutes:seconds".
  int64_t days = 0;
  std::string_view clock = text;
  const size_t dash = text.find('-');
  if (dash != std::string_view::npos) {
    const auto parsed = ParseInt(text.substr(0, dash));
    if (!parsed || *parsed < 0) return bad();
    days = *parsed;
    clock = text.substr(dash + 1);
  }
  std::vector<int64_t> fields;
  for (const std::string_view part : SplitColons(clock)) {
    const auto parsed = ParseInt(part);
    if (!parsed || *parsed < 0) return bad();
    fields.push_back(*parsed);
  }
  if (fields.size() > 3) return bad();
  int64_t seconds = 0;
  if (dash != std::string_view::npos) {
    // days-hours[:minutes[:seconds]]
    const int64_t units[] = {3600, 60, 1};
    for (size_t i = 0; i < fields.size(); ++i) seconds += fields[i] * units[i];
  } else if (fields.size() == 1) {
    seconds = fields[0] * 60;
  } else if (fields.size() == 2) {
    seconds = fields[0] * 60 + fields[1];
  } else {
    seconds = fields[0] * 3600 + fields[1] * 60 + fields[2];
  }
  seconds += days * 86400;
  if (seconds <= 0) return bad();
  return seconds;
}

Result<std::string> ParseMemory(std::string_view text) {
  const auto bad = [&] {
    return MakeError(ErrorCode::kInvalidArgument,
                     "memory '{}': expected a size like 64G, 500M, 2T or 64Gi (a bare number is "
                     "MiB)",
                     text);
  };
  std::string_view number = text;
  std::string unit = "Mi";
  if (number.size() >= 2 && number.back() == 'i') number.remove_suffix(1);
  if (!number.empty() &&
      std::string_view("KkMmGgTt").find(number.back()) != std::string_view::npos) {
    const char letter = static_cast<char>(std::toupper(static_cast<unsigned char>(number.back())));
    number.remove_suffix(1);
    unit = std::string(1, letter) + "i";
  }
  const auto count = ParseInt(number);
  if (!count || *count <= 0) return bad();
  if (unit == "Ki") {
    // The API's smallest unit is Mi; round up so the job never gets less than it asked for.
    return fmt::format("{}Mi", (*count + 1023) / 1024);
  }
  return fmt::format("{}{}", *count, unit);
}

namespace {

struct Gang {
  int64_t tasks = 1;
  int64_t devices_per_task = 0;
};

tl::unexpected<Error> Bad(std::string message) {
  return tl::unexpected<Error>(Error{ErrorCode::kInvalidArgument, std::move(message)});
}

// sbatch's GPU flags as tasks × devices per task (job_spec.h).
Result<Gang> GangOf(const SubmitFlags& f) {
  for (const auto& [flag, value] :
       {std::pair{"--ntasks", f.tasks}, std::pair{"--nodes", f.nodes}}) {
    if (value && *value < 1) return Bad(fmt::format("{}: expected an integer >= 1", flag));
  }
  for (const auto& [flag, value] :
       {std::pair{"--gpus", f.gpus}, std::pair{"--gpus-per-task", f.gpus_per_task},
        std::pair{"--gpus-per-node", f.gpus_per_node}}) {
    if (value && *value < 0) return Bad(fmt::format("{}: expected an integer >= 0", flag));
  }
  if (f.tasks && f.nodes && *f.tasks != *f.nodes) {
    return Bad(fmt::format(
        "-n {} with -N {}: headroom runs one task per node when -N is given (start the processes "
        "within a node with a launcher such as torchrun --nproc-per-node); give -n or -N",
        *f.tasks, *f.nodes));
  }
  if (f.gpus_per_task && f.gpus_per_node) {
    return Bad("--gpus-per-task and --gpus-per-node exclude each other: a task runs on one node");
  }
  std::optional<int64_t> count = f.nodes ? f.nodes : f.tasks;
  std::optional<int64_t> per = f.gpus_per_task ? f.gpus_per_task : f.gpus_per_node;
  if (f.replicas) {
    // A service's replica is one task; -G is its size, as it is per replica in a Deployment.
    if (f.gpus && per && *f.gpus != *per) {
      return Bad(
          fmt::format("--replicas with -G {} and {} GPUs per task: give one", *f.gpus, *per));
    }
    return Gang{.tasks = 1, .devices_per_task = per.value_or(f.gpus.value_or(0))};
  }
  if (f.gpus) {
    const int64_t total = *f.gpus;
    if (per) {
      if (count && *count * *per != total) {
        return Bad(fmt::format("-G {} is not {} task(s) × {} GPUs", total, *count, *per));
      }
      if (!count) {
        if (*per == 0 ? total != 0 : total % *per != 0) {
          return Bad(fmt::format("-G {} is not a whole number of tasks of {} GPUs", total, *per));
        }
        count = *per == 0 ? 1 : total / *per;
      }
    } else if (count) {
      if (total % *count != 0) {
        return Bad(fmt::format("-G {} does not divide evenly over {} task(s); give --gpus-per-task",
                               total, *count));
      }
      per = total / *count;
    } else if (total == 1) {
      count = 1;  // Every GPU node holds one: no need to ask how large nodes are.
      per = 1;
    } else if (total > 0) {
      if (!f.node_gpus || *f.node_gpus < 1) {
        return Bad(fmt::format(
            "-G {}: give -N (nodes) or --gpus-per-node to say how the GPUs split into tasks (the "
            "daemon knows no node with GPUs yet)",
            total));
      }
      const int64_t node = *f.node_gpus;
      if (total > node && total % node != 0) {
        return Bad(
            fmt::format("-G {} is not a whole number of {}-GPU nodes; give -N and --gpus-per-node",
                        total, node));
      }
      count = total <= node ? 1 : total / node;
      per = total <= node ? total : node;
    }
  }
  if (f.gpus && *f.gpus == 0) per = 0;
  return Gang{.tasks = count.value_or(1), .devices_per_task = per.value_or(0)};
}

}  // namespace

Result<void> ParseNodeCount(std::string_view text, SubmitFlags& flags) {
  const auto number = [](std::string_view part) -> std::optional<int64_t> {
    int64_t value = 0;
    const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (error != std::errc() || end != part.data() + part.size() || value < 1) return std::nullopt;
    return value;
  };
  const size_t dash = text.find('-');
  const std::optional<int64_t> first = number(text.substr(0, dash));
  const std::optional<int64_t> last =
      dash == std::string_view::npos ? first : number(text.substr(dash + 1));
  if (!first || !last || *first > *last) {
    return Bad(fmt::format(
        "--nodes: expected an integer >= 1, or MIN-MAX with 1 <= MIN <= MAX, got '{}'", text));
  }
  flags.nodes = *last;
  flags.min_nodes.reset();
  if (*first < *last) flags.min_nodes = *first;
  return {};
}

bool NeedsNodeGpus(const SubmitFlags& flags) {
  return flags.gpus && *flags.gpus > 1 && !flags.tasks && !flags.nodes && !flags.gpus_per_task &&
         !flags.gpus_per_node && !flags.replicas;
}

Result<nlohmann::json> BuildJobSpec(const SubmitFlags& flags) {
  const auto bad = Bad;
  if (flags.time_limit.empty()) {
    return bad("--time is required (e.g. --time 2h); the scheduler plans with it");
  }
  if ((flags.tasks || flags.nodes) && flags.replicas) {
    return bad("--ntasks/--nodes and --replicas exclude each other");
  }
  if (flags.replicas && *flags.replicas < 1) return bad("--replicas: expected an integer >= 1");
  auto gang = GangOf(flags);
  if (!gang) return tl::unexpected(gang.error());
  if (flags.share_milli) {
    if (*flags.share_milli < 1 || *flags.share_milli > 999) {
      return bad("--share: expected milli of one device in 1..999 (use --gpus for whole devices)");
    }
    if ((flags.gpus || flags.gpus_per_task || flags.gpus_per_node) && gang->devices_per_task != 1) {
      return bad("--share is a part of one GPU per task: no other GPU count than 1 with it");
    }
  }
  if (!flags.gpu_type.empty() && flags.gpu_type.find_first_of("\"\\") != std::string::npos) {
    return bad(fmt::format("--gpu-type '{}': a model name cannot contain quotes or backslashes",
                           flags.gpu_type));
  }

  nlohmann::json spec = nlohmann::json::object();
  if (!flags.tenant.empty()) spec["tenant"] = flags.tenant;
  if (flags.priority) spec["priority"] = *flags.priority;
  if (flags.replicas) {
    spec["replicas"] = *flags.replicas;
  } else {
    spec["tasks"] = gang->tasks;
  }
  if (flags.min_nodes) {
    if (!flags.nodes || *flags.min_nodes < 1 || *flags.min_nodes >= *flags.nodes) {
      return bad("--nodes MIN-MAX: expected 1 <= MIN < MAX");
    }
    spec["elastic"] = {{"minTasks", *flags.min_nodes}, {"step", 1}};
  }
  const auto time_limit = ParseDurationSeconds(flags.time_limit);
  if (!time_limit) return bad("--time: " + time_limit.error().message);
  spec["timeLimit"] = *time_limit;
  if (!flags.runtime.empty()) {
    const auto runtime = ParseDurationSeconds(flags.runtime);
    if (!runtime) return bad("--runtime: " + runtime.error().message);
    spec["runtime"] = *runtime;
  }
  if (!flags.checkpoint_cost.empty()) {
    const auto cost = ParseDurationSeconds(flags.checkpoint_cost);
    if (!cost) return bad("--checkpoint-cost: " + cost.error().message);
    spec["checkpointCost"] = *cost;
  }
  if (!flags.command.empty()) spec["command"] = flags.command;
  if (!flags.env.empty()) {
    nlohmann::json env = nlohmann::json::object();
    for (const std::string& pair : flags.env) {
      const size_t equals = pair.find('=');
      if (equals == 0 || equals == std::string::npos) {
        return bad(fmt::format("--env '{}': expected KEY=VALUE", pair));
      }
      env[pair.substr(0, equals)] = pair.substr(equals + 1);
    }
    spec["env"] = std::move(env);
  }
  nlohmann::json resources = nlohmann::json::object();
  if (!flags.cpus.empty()) {
    const bool milli = flags.cpus.back() == 'm';
    const auto value =
        ParseInt(std::string_view(flags.cpus).substr(0, flags.cpus.size() - (milli ? 1 : 0)));
    if (!value || *value <= 0) {
      return bad(fmt::format("--cpus '{}': expected cores per task (16) or millicores (500m)",
                             flags.cpus));
    }
    resources["cpu"] = flags.cpus;
  }
  if (!flags.mem.empty()) {
    const auto memory = ParseMemory(flags.mem);
    if (!memory) return bad("--mem: " + memory.error().message);
    resources["memory"] = *memory;
  }
  if (!resources.empty()) spec["resources"] = std::move(resources);

  if (!flags.topology_required.empty() || !flags.topology_preferred.empty()) {
    nlohmann::json topology = nlohmann::json::object();
    if (!flags.topology_required.empty()) topology["required"] = flags.topology_required;
    if (!flags.topology_preferred.empty()) topology["preferred"] = flags.topology_preferred;
    spec["topology"] = std::move(topology);
  }
  const int64_t count = flags.share_milli ? 1 : gang->devices_per_task;
  if (count > 0) {
    nlohmann::json request = {{"name", "gpus"}, {"deviceClassName", "gpu"}, {"count", count}};
    if (flags.share_milli) request["share"] = *flags.share_milli;
    if (!flags.gpu_type.empty()) {
      request["selectors"] = nlohmann::json::array(
          {{{"cel", {{"expression", fmt::format("model == \"{}\"", flags.gpu_type)}}}}});
    }
    if (flags.accept_degraded) request["acceptDegraded"] = true;
    spec["devices"] = {{"requests", nlohmann::json::array({std::move(request)})}};
  } else if (!flags.gpu_type.empty()) {
    return bad("--gpu-type needs --gpus N or --share MILLI");
  } else if (flags.accept_degraded) {
    return bad("--accept-degraded needs --gpus N or --share MILLI");
  }

  std::string name = flags.name;
  if (name.empty() && !flags.command.empty()) {
    name = std::filesystem::path(flags.command.front()).filename().string();
  }
  nlohmann::json metadata = nlohmann::json::object();
  if (!name.empty()) metadata["name"] = name;
  return nlohmann::json{{"apiVersion", "headroom/v1"},
                        {"kind", flags.replicas ? "Service" : "Job"},
                        {"metadata", std::move(metadata)},
                        {"spec", std::move(spec)}};
}

}  // namespace headroom::cli
