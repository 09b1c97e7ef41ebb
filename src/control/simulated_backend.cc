#include "control/simulated_backend.h"

#include <algorithm>
#include <cmath>

#include "model/device_power.h"

namespace headroom::control {
namespace {

// Training's throughput under the tasks' power caps, a share of uncapped: its slowest device's
// (model/device_power.h, as the simulator's meter).
double CapSpeed(const model::Cluster& cluster, const std::vector<engine::TaskAllocation>& tasks) {
  double speed = 1;
  for (const engine::TaskAllocation& task : tasks) {
    if (task.power_cap_w == 0) continue;
    for (DeviceId device : task.devices) {
      const model::DevicePowerSpec& spec =
          model::PowerSpecOf(cluster.device_class(cluster.device(device).device_class).model);
      speed =
          std::min(speed, model::DrawUnder(spec, model::TrainingProfile(), task.power_cap_w).speed);
    }
  }
  return speed;
}

}  // namespace

SimulatedBackend::SimulatedBackend(std::shared_ptr<const model::Cluster> cluster)
    : cluster_(std::move(cluster)), speed_(sim::SpeedModel::Default(*cluster_)) {}

void SimulatedBackend::OnStart(const JobRecord& job,
                               const std::vector<engine::TaskAllocation>& tasks,
                               const model::Cluster& cluster) {
  // A restore of a job it runs (an engine rebuild) keeps its progress and any move's pause.
  if (endings_.contains(job.id)) return;
  Ending ending{.deadline_us = job.start_us + TimeLimitAtWidth(job.spec, tasks.size()),
                .work_start_us = job.start_us,
                .stretch = Stretch(job, tasks, cluster),
                .remaining_us = static_cast<double>(job.spec.runtime_us)};
  if (auto resume = resumes_.find(job.id); resume != resumes_.end()) {
    ending.remaining_us = resume->second.first;
    ending.work_start_us += resume->second.second;
    resumes_.erase(resume);
  }
  Schedule(job.id, ending);
}

void SimulatedBackend::OnPreempt(const JobRecord& job, const engine::PreemptJob& preemption,
                                 TimeUs now_us) {
  auto it = endings_.find(job.id);
  if (it == endings_.end()) return;  // Ended meanwhile; the loop learns it from Poll.
  const Ending ending = it->second;
  OnStop(job.id);
  double remaining_us = ending.remaining_us;
  if (remaining_us > 0) {
    const double done_us =
        static_cast<double>(std::max<TimeUs>(now_us - ending.work_start_us, 0)) / ending.stretch;
    const auto interval = static_cast<double>(preemption.checkpoint_interval_us);
    const double saved_us = interval > 0 ? std::floor(done_us / interval) * interval : 0;
    remaining_us = std::max(remaining_us - saved_us, 1.0);
  }
  resumes_[job.id] = {remaining_us, preemption.restart_us};
}

void SimulatedBackend::OnMigrate(const JobRecord& job, const engine::MigrateJob& move,
                                 TimeUs now_us, const model::Cluster& cluster) {
  auto it = endings_.find(job.id);
  if (it == endings_.end()) return;  // Ended meanwhile; the loop learns it from Poll.
  Ending ending = it->second;
  OnStop(job.id);
  if (ending.remaining_us > 0) {
    const double done_us =
        static_cast<double>(std::max<TimeUs>(now_us - ending.work_start_us, 0)) / ending.stretch;
    ending.remaining_us = std::max(ending.remaining_us - done_us, 1.0);
  }
  ending.work_start_us = now_us + move.pause_us;
  ending.stretch = Stretch(job, move.tasks, cluster);
  Schedule(job.id, ending);
}

void SimulatedBackend::OnCap(const JobRecord& job, const engine::CapJob& cap, TimeUs now_us,
                             const model::Cluster& cluster) {
  auto it = endings_.find(job.id);
  if (it == endings_.end()) return;  // Ended meanwhile; the loop learns it from Poll.
  Ending ending = it->second;
  OnStop(job.id);
  // The work done at the old pace is kept; the rest runs at the new one, without a pause.
  if (ending.remaining_us > 0 && now_us > ending.work_start_us) {
    const double done_us = static_cast<double>(now_us - ending.work_start_us) / ending.stretch;
    ending.remaining_us = std::max(ending.remaining_us - done_us, 1.0);
    ending.work_start_us = now_us;
  }
  ending.stretch = Stretch(job, cap.tasks, cluster);
  Schedule(job.id, ending);
}

double SimulatedBackend::Stretch(const JobRecord& job,
                                 const std::vector<engine::TaskAllocation>& tasks,
                                 const model::Cluster& cluster) const {
  // Narrower than the job asked (an elastic width), its work takes proportionally longer.
  const double width = static_cast<double>(std::max<size_t>(tasks.size(), 1));
  const double pace = speed_.Stretch(cluster, tasks) * std::max<double>(job.spec.tasks, width) /
                      width / CapSpeed(cluster, tasks);
  // A job that declares its checkpoint cost pauses that long after each interval of work: the
  // one its start was told (wall seconds at this pace), else its own (as the simulator).
  const auto cost_us = static_cast<double>(job.spec.checkpoint_cost_us);
  if (job.checkpoint_interval_us > 0) {
    return pace + cost_us * pace / static_cast<double>(job.checkpoint_interval_us);
  }
  if (job.spec.checkpoint_interval_us > 0) {
    return pace + cost_us / static_cast<double>(job.spec.checkpoint_interval_us);
  }
  return pace;
}

void SimulatedBackend::Schedule(uint64_t job, Ending ending) {
  if (ending.remaining_us == 0) {
    // No runtime given: it uses its whole time limit and completes there.
    ending.end_us = ending.deadline_us;
    ending.timed_out = false;
  } else {
    const auto end_us =
        ending.work_start_us + static_cast<TimeUs>(std::ceil(ending.remaining_us * ending.stretch));
    ending.timed_out = end_us > ending.deadline_us;
    ending.end_us = std::min(end_us, ending.deadline_us);
  }
  by_end_.insert({ending.end_us, job});
  endings_[job] = ending;
}

void SimulatedBackend::OnStop(uint64_t job) {
  resumes_.erase(job);
  auto it = endings_.find(job);
  if (it == endings_.end()) return;
  by_end_.erase({it->second.end_us, job});
  endings_.erase(it);
}

BackendReport SimulatedBackend::Poll(TimeUs now_us) {
  BackendReport report;
  while (!by_end_.empty() && by_end_.begin()->first <= now_us) {
    const auto [end_us, job] = *by_end_.begin();
    const bool timed_out = endings_.at(job).timed_out;
    by_end_.erase(by_end_.begin());
    endings_.erase(job);
    report.completions.push_back(timed_out ? Completion{job, 124, "time limit", end_us}
                                           : Completion{job, 0, "completed", end_us});
  }
  return report;
}

TimeUs SimulatedBackend::NextPollUs(TimeUs) const {
  return by_end_.empty() ? kNever : by_end_.begin()->first;
}

}  // namespace headroom::control
