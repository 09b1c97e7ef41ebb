#include "sim/traces/openb_trace.h"

#include <algorithm>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "base/csv.h"
#include "model/selector.h"
#include "model/workload.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

// Largest CPU (milli-cores) and memory (MiB) a pod may ask for: far above any real node.
constexpr int64_t kMaxCpuMilli = int64_t{1} << 40;
constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;

struct Columns {
  size_t name = 0;
  size_t cpu_milli = 0;
  size_t memory_mib = 0;
  size_t num_gpu = 0;
  size_t gpu_milli = 0;
  std::optional<size_t> gpu_spec;
  std::optional<size_t> qos;
  std::optional<size_t> pod_phase;
  std::optional<size_t> creation_time;
  std::optional<size_t> deletion_time;
  std::optional<size_t> scheduled_time;
};

Result<Columns> FindColumns(const CsvTable& table) {
  Columns columns;
  for (auto [name, index] :
       {std::pair{"name", &columns.name}, std::pair{"cpu_milli", &columns.cpu_milli},
        std::pair{"memory_mib", &columns.memory_mib}, std::pair{"num_gpu", &columns.num_gpu},
        std::pair{"gpu_milli", &columns.gpu_milli}}) {
    auto column = table.Column(name);
    if (!column) return tl::unexpected(column.error());
    *index = *column;
  }
  for (auto [name, index] :
       {std::pair{"gpu_spec", &columns.gpu_spec}, std::pair{"qos", &columns.qos},
        std::pair{"pod_phase", &columns.pod_phase},
        std::pair{"creation_time", &columns.creation_time},
        std::pair{"deletion_time", &columns.deletion_time},
        std::pair{"scheduled_time", &columns.scheduled_time}}) {
    if (table.HasColumn(name)) *index = *table.Column(name);
  }
  if (columns.creation_time && !columns.deletion_time) {
    auto column = table.Column("deletion_time");
    return tl::unexpected(column.error());
  }
  return columns;
}

// "A|B|A" -> `model in ["A", "B"]`, one parse per distinct spec text.
class SpecSelectors {
 public:
  Result<model::Selector> Get(const CsvTable& table, size_t row, size_t column) {
    const std::string_view spec = table.Field(row, column);
    if (spec.empty()) return model::Selector();
    auto found = cache_.find(spec);
    if (found != cache_.end()) return found->second;
    std::vector<std::string_view> models;
    size_t start = 0;
    while (true) {
      const size_t bar = spec.find('|', start);
      const std::string_view part =
          spec.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
      if (part.empty()) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}: expected GPU model names separated by '|', got \"{}\"",
                         table.Where(row, column), spec);
      }
      // A repeated model is kept: the artifact tells pod shapes apart by the spec as written
      // ("V100M16|V100M32|V100M32" is not "V100M16|V100M32"), so the selector text must too.
      models.push_back(part);
      if (bar == std::string_view::npos) break;
      start = bar + 1;
    }
    std::string text = "model in [";
    for (size_t i = 0; i < models.size(); ++i) {
      if (i > 0) text += ", ";
      text += '"';
      for (const char c : models[i]) {
        if (c == '"' || c == '\\') text += '\\';
        text += c;
      }
      text += '"';
    }
    text += ']';
    auto selector = model::Selector::Parse(text);
    if (!selector) {
      return MakeError(ErrorCode::kInvalidArgument, "{}: expected GPU model names, got \"{}\" ({})",
                       table.Where(row, column), spec, selector.error().message);
    }
    cache_.emplace(std::string(spec), *selector);
    return *selector;
  }

 private:
  std::map<std::string, model::Selector, std::less<>> cache_;
};

Result<int32_t> PriorityOf(const CsvTable& table, size_t row, size_t column) {
  const std::string_view qos = table.Field(row, column);
  if (qos.empty() || qos == "BE") return 0;
  if (qos == "Burstable") return 1;
  if (qos == "LS") return 2;
  if (qos == "Guaranteed") return 3;
  return MakeError(ErrorCode::kInvalidArgument,
                   "{}: expected one of LS, BE, Burstable, Guaranteed, got \"{}\"",
                   table.Where(row, column), qos);
}

Result<model::TraceOutcome> OutcomeOf(const CsvTable& table, size_t row, size_t column) {
  const std::string_view phase = table.Field(row, column);
  if (phase == "Succeeded") return model::TraceOutcome::kCompleted;
  if (phase == "Failed") return model::TraceOutcome::kFailed;
  if (phase.empty() || phase == "Running" || phase == "Pending" || phase == "Unknown") {
    return model::TraceOutcome::kUnknown;
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "{}: expected one of Running, Pending, Succeeded, Failed, Unknown, got \"{}\"",
                   table.Where(row, column), phase);
}

// The device part of a pod's task: whole devices, a share of one, or none.
Result<std::pair<uint32_t, uint32_t>> DevicesOf(const CsvTable& table, size_t row,
                                                const Columns& columns) {
  auto num_gpu = ReadCount(table, row, columns.num_gpu, kMaxTraceCount);
  if (!num_gpu) return tl::unexpected(num_gpu.error());
  auto gpu_milli = ReadCount(table, row, columns.gpu_milli, kMaxTraceCount);
  if (!gpu_milli) return tl::unexpected(gpu_milli.error());
  if (*num_gpu == 0) return std::pair<uint32_t, uint32_t>{0, model::kMilliPerDevice};
  if (*num_gpu > 1) return std::pair{static_cast<uint32_t>(*num_gpu), model::kMilliPerDevice};
  if (*gpu_milli < 1 || *gpu_milli > model::kMilliPerDevice) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected an integer from 1 to 1000 for a one-GPU pod, got \"{}\"",
                     table.Where(row, columns.gpu_milli), table.Field(row, columns.gpu_milli));
  }
  return std::pair<uint32_t, uint32_t>{1, static_cast<uint32_t>(*gpu_milli)};
}

}  // namespace

Result<LoadedWorkload> ParseOpenbTrace(std::string_view text, std::string source,
                                       const WorkloadOptions& options) {
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  auto columns = FindColumns(*table);
  if (!columns) return tl::unexpected(columns.error());

  LoadedWorkload loaded;
  loaded.workload.format = "openb";
  loaded.workload.source = std::move(source);
  loaded.workload.jobs.reserve(table->row_count());
  SpecSelectors selectors;
  for (size_t row = 0; row < table->row_count(); ++row) {
    model::Job job;
    job.name = std::string(table->Field(row, columns->name));
    auto devices = DevicesOf(*table, row, *columns);
    if (!devices) return tl::unexpected(devices.error());
    job.task.devices = devices->first;
    job.task.milli_per_device = devices->second;
    auto cpu_milli = ReadCount(*table, row, columns->cpu_milli, kMaxCpuMilli);
    if (!cpu_milli) return tl::unexpected(cpu_milli.error());
    job.task.cpu_milli = *cpu_milli;
    auto memory_mib = ReadCount(*table, row, columns->memory_mib, kMaxMemoryMib);
    if (!memory_mib) return tl::unexpected(memory_mib.error());
    job.task.memory_mib = *memory_mib;
    if (columns->gpu_spec) {
      auto selector = selectors.Get(*table, row, *columns->gpu_spec);
      if (!selector) return tl::unexpected(selector.error());
      job.task.selector = std::move(*selector);
    }
    if (columns->qos) {
      auto priority = PriorityOf(*table, row, *columns->qos);
      if (!priority) return tl::unexpected(priority.error());
      job.priority = *priority;
    }
    if (columns->pod_phase) {
      auto outcome = OutcomeOf(*table, row, *columns->pod_phase);
      if (!outcome) return tl::unexpected(outcome.error());
      job.trace_outcome = *outcome;
    }
    if (columns->scheduled_time && !table->Field(row, *columns->scheduled_time).empty()) {
      auto scheduled = ReadCount(*table, row, *columns->scheduled_time, kMaxTraceSeconds);
      if (!scheduled) return tl::unexpected(scheduled.error());
    }
    if (columns->creation_time && !options.ignore_times) {
      auto created = ReadCount(*table, row, *columns->creation_time, kMaxTraceSeconds);
      if (!created) return tl::unexpected(created.error());
      auto deleted = ReadCount(*table, row, *columns->deletion_time, kMaxTraceSeconds);
      if (!deleted) return tl::unexpected(deleted.error());
      if (*deleted <= *created) {
        CountSkipped(loaded, *deleted == *created ? "zero runtime" : "negative runtime");
        continue;
      }
      job.submit_time_us = TraceSecondsToUs(*created);
      job.runtime_us = TraceSecondsToUs(*deleted - *created);
    } else {
      job.submit_time_us = 0;
      job.runtime_us = kOpenbUntimedRuntimeUs;
    }
    job.runtime_estimate_us = job.runtime_us;
    loaded.workload.jobs.push_back(std::move(job));
  }
  model::SortBySubmitTime(loaded.workload);
  return loaded;
}

}  // namespace headroom::sim
