#include "sim/traces/itp_trace.h"

#include <algorithm>
#include <utility>

#include "base/check.h"
#include "base/csv.h"
#include "model/workload.h"
#include "sim/traces/gang_split.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {

Result<LoadedWorkload> ParseItpTrace(std::string_view text, std::string source,
                                     const WorkloadOptions& options) {
  HR_CHECK(options.max_devices_per_node >= 1);
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  size_t columns[4] = {};
  const char* const names[4] = {"job_id", "submission_time", "duration", "num_gpu"};
  for (size_t i = 0; i < 4; ++i) {
    auto column = table->Column(names[i]);
    if (!column) return tl::unexpected(column.error());
    columns[i] = *column;
  }
  const auto [job_id, submission_time, duration, num_gpu] = columns;

  LoadedWorkload loaded;
  loaded.workload.format = "itp";
  loaded.workload.source = std::move(source);
  loaded.workload.jobs.reserve(table->row_count());
  for (size_t row = 0; row < table->row_count(); ++row) {
    auto submit_s = ReadCount(*table, row, submission_time, kMaxTraceSeconds);
    if (!submit_s) return tl::unexpected(submit_s.error());
    auto duration_s = ReadSignedInteger(*table, row, duration, kMaxTraceSeconds);
    if (!duration_s) return tl::unexpected(duration_s.error());
    auto gpus = ReadCount(*table, row, num_gpu, kMaxTraceCount);
    if (!gpus) return tl::unexpected(gpus.error());
    if (*duration_s <= 0) {
      CountSkipped(loaded, *duration_s == 0 ? "zero runtime" : "negative runtime");
      continue;
    }
    const GangShape gang = SplitGang(static_cast<uint64_t>(*gpus), 0, options.max_devices_per_node);
    model::Job job;
    job.name = std::string(table->Field(row, job_id));
    job.submit_time_us = TraceSecondsToUs(*submit_s);
    job.runtime_us = TraceSecondsToUs(*duration_s);
    job.runtime_estimate_us = job.runtime_us;
    job.task_count = gang.task_count;
    job.task.devices = gang.devices_per_task;
    loaded.workload.jobs.push_back(std::move(job));
  }
  auto& jobs = loaded.workload.jobs;
  if (!jobs.empty()) {
    const TimeUs first =
        std::min_element(jobs.begin(), jobs.end(), [](const model::Job& a, const model::Job& b) {
          return a.submit_time_us < b.submit_time_us;
        })->submit_time_us;
    for (model::Job& job : jobs) job.submit_time_us -= first;
  }
  model::SortBySubmitTime(loaded.workload);
  return loaded;
}

}  // namespace headroom::sim
