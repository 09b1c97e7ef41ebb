#include "control/simulated_backend.h"

#include <algorithm>
#include <cmath>

namespace headroom::control {

SimulatedBackend::SimulatedBackend(std::shared_ptr<const model::Cluster> cluster)
    : cluster_(std::move(cluster)), speed_(sim::SpeedModel::Default(*cluster_)) {}

void SimulatedBackend::OnStart(const JobRecord& job,
                               const std::vector<engine::TaskAllocation>& tasks,
                               const model::Cluster& cluster) {
  OnStop(job.id);
  Ending ending;
  if (job.spec.runtime_us == 0) {
    // No runtime given: it uses its whole time limit and completes there.
    ending.end_us = job.start_us + job.spec.time_limit_us;
    endings_[job.id] = ending;
    by_end_.insert({ending.end_us, job.id});
    return;
  }
  const double stretch = speed_.Stretch(cluster, tasks);
  const auto runtime_us =
      static_cast<TimeUs>(std::ceil(static_cast<double>(job.spec.runtime_us) * stretch));
  ending.timed_out = runtime_us > job.spec.time_limit_us;
  ending.end_us = job.start_us + std::min(runtime_us, job.spec.time_limit_us);
  endings_[job.id] = ending;
  by_end_.insert({ending.end_us, job.id});
}

void SimulatedBackend::OnStop(uint64_t job) {
  auto it = endings_.find(job);
  if (it == endings_.end()) return;
  by_end_.erase({it->second.end_us, job});
  endings_.erase(it);
}

BackendReport SimulatedBackend::Poll(TimeUs now_us) {
  BackendReport report;
  while (!by_end_.empty() && by_end_.begin()->first <= now_us) {
    const uint64_t job = by_end_.begin()->second;
    const bool timed_out = endings_.at(job).timed_out;
    by_end_.erase(by_end_.begin());
    endings_.erase(job);
    report.completions.push_back(timed_out ? Completion{job, 124, "time limit"}
                                           : Completion{job, 0, "completed"});
  }
  return report;
}

TimeUs SimulatedBackend::NextPollUs(TimeUs) const {
  return by_end_.empty() ? kNever : by_end_.begin()->first;
}

}  // namespace headroom::control
