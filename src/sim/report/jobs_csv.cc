#include "sim/report/jobs_csv.h"

#include <string_view>

#include <fmt/format.h>

namespace headroom::sim {
namespace {

void AppendField(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

// Seconds with millisecond precision; empty for a time that never came.
std::string Seconds(TimeUs us) { return us < 0 ? "" : fmt::format("{:.3f}", UsToSeconds(us)); }

}  // namespace

std::string WriteJobsCsv(const model::Workload& workload, const PolicyRun& run) {
  std::string out =
      "job,name,tenant,tasks,devices,submit_s,start_s,end_s,wait_s,run_s,preemptions,"
      "migrations\r\n";
  if (run.jobs.size() != workload.jobs.size()) return out;
  const TimeUs origin = workload.jobs.empty() ? 0 : workload.jobs.front().submit_time_us;
  for (size_t i = 0; i < workload.jobs.size(); ++i) {
    const model::Job& job = workload.jobs[i];
    const JobOutcome& outcome = run.jobs[i];
    const bool started = outcome.first_start_us >= 0;
    const bool ended = started && outcome.end_us >= 0;
    out += fmt::format("{},", i);
    AppendField(out, job.name);
    out += ',';
    AppendField(out, job.tenant);
    out += fmt::format(",{},{},{},{},{},{},{},{},{}\r\n", job.task_count, job.total_devices(),
                       Seconds(job.submit_time_us - origin),
                       started ? Seconds(outcome.first_start_us - origin) : "",
                       ended ? Seconds(outcome.end_us - origin) : "",
                       started ? Seconds(outcome.wait_us) : "",
                       ended ? Seconds(outcome.end_us - job.submit_time_us - outcome.wait_us) : "",
                       outcome.preemptions, outcome.migrations);
  }
  return out;
}

}  // namespace headroom::sim
