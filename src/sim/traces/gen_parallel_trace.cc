#include "sim/traces/gen_parallel_trace.h"

#include <utility>

#include "base/check.h"
#include "base/csv.h"
#include "model/workload.h"
#include "sim/traces/gang_split.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

struct Columns {
  size_t u_id = 0;
  size_t user = 0;
  size_t gpu_num = 0;
  size_t cpu_num = 0;
  size_t node_num = 0;
  size_t interval = 0;
  size_t run_time = 0;
  size_t new_status = 0;
};

Result<Columns> FindColumns(const CsvTable& table) {
  Columns columns;
  for (auto [name, index] :
       {std::pair{"u_id", &columns.u_id}, std::pair{"user", &columns.user},
        std::pair{"gpu_num", &columns.gpu_num}, std::pair{"cpu_num", &columns.cpu_num},
        std::pair{"node_num", &columns.node_num}, std::pair{"interval", &columns.interval},
        std::pair{"run_time", &columns.run_time}, std::pair{"new_status", &columns.new_status}}) {
    auto column = table.Column(name);
    if (!column) return tl::unexpected(column.error());
    *index = *column;
  }
  return columns;
}

Result<model::TraceOutcome> OutcomeOf(const CsvTable& table, size_t row, size_t column) {
  const std::string_view status = table.Field(row, column);
  if (status == "Pass") return model::TraceOutcome::kCompleted;
  if (status == "Failed") return model::TraceOutcome::kFailed;
  if (status == "Killed") return model::TraceOutcome::kKilled;
  return MakeError(ErrorCode::kInvalidArgument,
                   "{}: expected one of Pass, Failed, Killed, got \"{}\"", table.Where(row, column),
                   status);
}

Result<LoadedWorkload> Parse(std::string_view text, std::string source, std::string_view format,
                             const WorkloadOptions& options) {
  HR_CHECK(options.max_devices_per_node >= 1);
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  auto columns = FindColumns(*table);
  if (!columns) return tl::unexpected(columns.error());

  LoadedWorkload loaded;
  loaded.workload.format = std::string(format);
  loaded.workload.source = std::move(source);
  loaded.workload.jobs.reserve(table->row_count());
  int64_t submit_s = 0;
  for (size_t row = 0; row < table->row_count(); ++row) {
    auto interval = ReadCount(*table, row, columns->interval, kMaxTraceSeconds);
    if (!interval) return tl::unexpected(interval.error());
    submit_s += *interval;
    if (submit_s > kMaxTraceSeconds) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected intervals summing to at most {} s, got a sum of {} s",
                       table->Where(row, columns->interval), kMaxTraceSeconds, submit_s);
    }
    auto run_time = ReadSignedInteger(*table, row, columns->run_time, kMaxTraceSeconds);
    if (!run_time) return tl::unexpected(run_time.error());
    auto user = ReadCount(*table, row, columns->user, kMaxTraceCount);
    if (!user) return tl::unexpected(user.error());
    auto gpu_num = ReadCount(*table, row, columns->gpu_num, kMaxTraceCount);
    if (!gpu_num) return tl::unexpected(gpu_num.error());
    auto node_num = ReadCount(*table, row, columns->node_num, kMaxTraceCount);
    if (!node_num) return tl::unexpected(node_num.error());
    auto cpu_num = ReadCount(*table, row, columns->cpu_num, kMaxTraceCount);
    if (!cpu_num) return tl::unexpected(cpu_num.error());
    auto outcome = OutcomeOf(*table, row, columns->new_status);
    if (!outcome) return tl::unexpected(outcome.error());
    if (*run_time <= 0) {
      CountSkipped(loaded, *run_time == 0 ? "zero runtime" : "negative runtime");
      continue;
    }

    const GangShape gang =
        SplitGang(static_cast<uint64_t>(*gpu_num), static_cast<uint64_t>(*node_num),
                  options.max_devices_per_node);
    model::Job job;
    job.name = fmt::format("{}-{}", format, table->Field(row, columns->u_id));
    job.tenant = fmt::format("user-{}", *user);
    job.submit_time_us = TraceSecondsToUs(submit_s);
    job.runtime_us = TraceSecondsToUs(*run_time);
    job.runtime_estimate_us = job.runtime_us;
    job.task_count = gang.task_count;
    job.task.devices = gang.devices_per_task;
    job.task.cpu_milli = CeilDiv(*cpu_num * 1000, gang.task_count);
    job.trace_outcome = *outcome;
    loaded.workload.jobs.push_back(std::move(job));
  }
  model::SortBySubmitTime(loaded.workload);
  return loaded;
}

}  // namespace

Result<LoadedWorkload> ParsePhillyTrace(std::string_view text, std::string source,
                                        const WorkloadOptions& options) {
  return Parse(text, std::move(source), "philly", options);
}

Result<LoadedWorkload> ParseHeliosTrace(std::string_view text, std::string source,
                                        const WorkloadOptions& options) {
  return Parse(text, std::move(source), "helios", options);
}

}  // namespace headroom::sim
