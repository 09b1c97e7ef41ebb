#include "sim/traces/synthetic_workload.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <utility>
#include <vector>

#include "base/check.h"
#include "base/csv.h"
#include "base/rng.h"
#include "base/time.h"
#include "model/selector.h"
#include "sim/traces/gang_split.h"

namespace headroom::sim {
namespace {

// Draws an index with probability proportional to its weight: one uniform draw and a scan of
// the cumulative weights (the lists are short).
class WeightedIndex {
 public:
  template <typename T>
  explicit WeightedIndex(const WeightedChoices<T>& choices) {
    double total = 0;
    for (const auto& [value, weight] : choices) {
      HR_CHECK(weight >= 0 && std::isfinite(weight));
      total += weight;
      cumulative_.push_back(total);
    }
    HR_CHECK(choices.empty() || total > 0);
  }

  size_t Draw(Rng& rng) const {
    if (cumulative_.size() <= 1) return 0;
    const double point = rng.Uniform() * cumulative_.back();
    const auto it = std::upper_bound(cumulative_.begin(), cumulative_.end(), point);
    const size_t index = static_cast<size_t>(it - cumulative_.begin());
    return std::min(index, cumulative_.size() - 1);
  }

 private:
  std::vector<double> cumulative_;
};

model::Selector ModelSelector(const std::string& model_name) {
  std::string text = "model == \"";
  for (const char c : model_name) {
    if (c == '"' || c == '\\') text += '\\';
    text += c;
  }
  text += '"';
  auto selector = model::Selector::Parse(text);
  HR_CHECK(selector.has_value());  // A quoted, escaped name always parses.
  return *selector;
}

// "syn-<i>" without going through a formatter (this runs a million times).
std::string JobName(uint64_t index) {
  char buffer[24] = {'s', 'y', 'n', '-'};
  const auto [end, error] = std::to_chars(buffer + 4, buffer + sizeof(buffer), index);
  HR_CHECK(error == std::errc());
  return std::string(buffer, end);
}

TimeUs SecondsToWholeUs(double seconds) {
  return static_cast<TimeUs>(std::llround(seconds * static_cast<double>(kUsPerSecond)));
}

}  // namespace

model::Workload GenerateSyntheticWorkload(const SyntheticSpec& spec, const WorkloadOptions& options,
                                          std::string source) {
  HR_CHECK(spec.jobs >= 1 && spec.jobs <= kMaxSyntheticJobs);
  HR_CHECK(spec.mean_interarrival_s > 0 && spec.mean_interarrival_s <= kMaxMeanInterarrivalS);
  HR_CHECK(spec.runtime_min_s > 0 && spec.runtime_min_s <= spec.runtime_max_s);
  HR_CHECK(spec.estimate_factor_min >= 1 && spec.estimate_factor_min <= spec.estimate_factor_max);
  HR_CHECK(spec.fractional_share >= 0 && spec.fractional_share <= 1);
  HR_CHECK(!spec.size_mix.empty() && !spec.tenants.empty() && !spec.priority_classes.empty());
  const uint32_t devices_per_node =
      spec.devices_per_node != 0 ? spec.devices_per_node : options.max_devices_per_node;
  HR_CHECK(devices_per_node >= 1);

  // Everything that depends only on the choice drawn is prepared once.
  std::vector<GangShape> gangs;
  for (const auto& [size, weight] : spec.size_mix) {
    HR_CHECK(size <= kMaxSyntheticJobDevices);
    gangs.push_back(SplitGang(size, 0, devices_per_node));
  }
  std::vector<model::Selector> selectors;
  for (const auto& [name, weight] : spec.models) selectors.push_back(ModelSelector(name));
  const WeightedIndex pick_size(spec.size_mix);
  const WeightedIndex pick_tenant(spec.tenants);
  const WeightedIndex pick_priority(spec.priority_classes);
  const WeightedIndex pick_model(spec.models);
  const double estimate_spread = spec.estimate_factor_max - spec.estimate_factor_min;

  Rng rng(spec.seed.value_or(options.seed));
  model::Workload workload;
  workload.format = "synthetic";
  workload.source = std::move(source);
  // Each job is built in place, in one pass: at a million jobs the cost is mostly memory
  // traffic, so a default-construct pass followed by a fill pass would double it.
  workload.jobs.reserve(spec.jobs);
  TimeUs submit_us = 0;
  for (uint64_t i = 0; i < spec.jobs; ++i) {
    model::Job& job = workload.jobs.emplace_back();
    submit_us += SecondsToWholeUs(rng.Exponential(spec.mean_interarrival_s));
    job.submit_time_us = submit_us;
    const GangShape gang = gangs[pick_size.Draw(rng)];
    job.task_count = gang.task_count;
    job.task.devices = gang.devices_per_task;
    if (gang.devices_per_task == 1 && spec.fractional_share > 0 &&
        rng.Uniform() < spec.fractional_share) {
      job.task.milli_per_device = static_cast<uint32_t>(100 * (1 + rng.Below(9)));
    }
    const double runtime_s = std::clamp(rng.LogNormal(spec.runtime_median_s, spec.runtime_sigma),
                                        spec.runtime_min_s, spec.runtime_max_s);
    job.runtime_us = std::max<TimeUs>(1, SecondsToWholeUs(runtime_s));
    const double factor =
        spec.estimate_factor_min + (estimate_spread > 0 ? rng.Uniform() * estimate_spread : 0);
    job.runtime_estimate_us =
        std::max(job.runtime_us, SecondsToWholeUs(UsToSeconds(job.runtime_us) * factor));
    job.tenant = spec.tenants[pick_tenant.Draw(rng)].first;
    job.priority = spec.priority_classes[pick_priority.Draw(rng)].first;
    if (!selectors.empty()) job.task.selector = selectors[pick_model.Draw(rng)];
    // Per-task CPU and memory follow the devices the task holds (a share holds milli/1000).
    const int64_t device_milli = gang.devices_per_task == 0
                                     ? model::kMilliPerDevice
                                     : int64_t{gang.devices_per_task} * job.task.milli_per_device;
    job.task.cpu_milli = spec.cpu_milli_per_device * device_milli / model::kMilliPerDevice;
    job.task.memory_mib = spec.memory_mib_per_device * device_milli / model::kMilliPerDevice;
    job.name = JobName(i);
    job.checkpoint_interval_us = SecondsToWholeUs(spec.checkpoint_interval_s);
    job.checkpoint_cost_us = SecondsToWholeUs(spec.checkpoint_cost_s);
    // Drawn only when a share is set, so specs without topology keep their exact jobs.
    if (job.task_count > 1 && spec.required_topology_share > 0 &&
        rng.Uniform() < spec.required_topology_share) {
      job.required_topology_level = spec.required_topology_level;
    }
    if (job.task_count > 1 && spec.preferred_topology_share > 0 &&
        rng.Uniform() < spec.preferred_topology_share) {
      job.preferred_topology_level = spec.preferred_topology_level;
    }
  }
  return workload;
}

Result<LoadedWorkload> LoadSyntheticWorkload(std::string_view name_or_path,
                                             const WorkloadOptions& options) {
  Result<SyntheticSpec> spec = IsSyntheticPreset(name_or_path) ? SyntheticPreset(name_or_path)
                                                               : [&]() -> Result<SyntheticSpec> {
    auto text = ReadTextFile(std::string(name_or_path));
    if (!text) return tl::unexpected(text.error());
    return ParseSyntheticSpec(*text, name_or_path);
  }();
  if (!spec) return tl::unexpected(spec.error());
  LoadedWorkload loaded;
  loaded.workload = GenerateSyntheticWorkload(*spec, options, std::string(name_or_path));
  return loaded;
}

}  // namespace headroom::sim
