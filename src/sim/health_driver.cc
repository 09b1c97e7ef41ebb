#include "sim/health_driver.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "engine/cluster_state.h"

namespace headroom::sim {

namespace {

// A false warning's node returns after an hour without diagnostics: headroomd's suspect_clear
// (control/device_health.h).
constexpr TimeUs kSuspectClearUs = 3600 * kUsPerSecond;

}  // namespace

HealthDriver::HealthDriver(const FailureModel& model, const engine::ReadinessConfig& readiness,
                           bool evacuate, const model::Cluster& cluster, TimeUs origin_us)
    : model_(&model),
      readiness_(readiness),
      cluster_(&cluster),
      faults_(model, cluster, origin_us),
      check_rng_(model.seed ^ 0x636865636b73ULL),  // "checks": a stream of its own.
      verified_us_(cluster.nodes().size(), -1),
      evacuate_(evacuate),
      fires_us_(cluster.nodes().size(), -1),
      suspect_(cluster.nodes().size(), Suspect::kNone),
      false_warning_rng_(model.seed ^ 0x66616c7365ULL) {  // "false"
  const double per_day = model.false_warnings_per_day *
                         static_cast<double>(cluster.devices().size()) / kDevicesPerRateNode;
  if (per_day > 0) false_warning_gap_s_ = kSecondsPerDay / per_day;
  ScheduleFalseWarning(origin_us);
}

TimeUs HealthDriver::NextUs() const {
  TimeUs next = std::min(faults_.NextUs(), found_.empty() ? kNever : found_.top().at_us);
  if (!due_.empty()) next = std::min(next, due_.top().at_us);
  return std::min(next, next_false_warning_us_);
}

void HealthDriver::ScheduleFalseWarning(TimeUs from_us) {
  next_false_warning_us_ = kNever;
  if (false_warning_gap_s_ <= 0) return;
  const double gap_us = false_warning_rng_.Exponential(false_warning_gap_s_) * kUsPerSecond;
  if (gap_us < 1e16) next_false_warning_us_ = from_us + std::max<TimeUs>(std::llround(gap_us), 1);
}

void HealthDriver::Warn(NodeId node, TimeUs now_us, std::vector<engine::Event>& events) {
  const uint32_t n = node.value();
  if (!evacuate_ || suspect_[n] != Suspect::kNone || faults_.down(node)) return;
  suspect_[n] = Suspect::kWaiting;
  waiting_.insert(n);
  WithdrawDevices(node, true, events);
  due_.push(Due{now_us + kSuspectClearUs, sequence_++, n, Timed::kClear});
}

void HealthDriver::Clear(NodeId node, std::vector<engine::Event>& events) {
  const uint32_t n = node.value();
  suspect_[n] = Suspect::kNone;
  waiting_.erase(n);
  WithdrawDevices(node, false, events);
}

void HealthDriver::WithdrawDevices(NodeId node, bool withdrawn,
                                   std::vector<engine::Event>& events) const {
  const model::Node& spec = cluster_->nodes()[node.value()];
  for (uint32_t d = spec.first_device; d < spec.first_device + spec.device_count; ++d) {
    events.push_back(engine::DeviceWithdrawn{DeviceId(d), withdrawn, false});
  }
}

void HealthDriver::DiagnoseIdle(TimeUs now_us, const engine::ClusterState& state) {
  if (waiting_.empty() || readiness_.diagnostics_us <= 0) return;
  for (auto it = waiting_.begin(); it != waiting_.end();) {
    const model::Node& spec = cluster_->nodes()[*it];
    // Found meanwhile: it waits no more, out until its repair ends.
    if (faults_.down(spec.id)) {
      it = waiting_.erase(it);
      continue;
    }
    // A withdrawn device holds what its work released: all of it once no work is left.
    bool idle = true;
    for (uint32_t d = spec.first_device; idle && d < spec.first_device + spec.device_count; ++d) {
      idle = state.held_milli(DeviceId(d)) == 1000;
    }
    if (!idle) {
      ++it;
      continue;
    }
    suspect_[*it] = Suspect::kDiagnosing;
    due_.push(Due{now_us + readiness_.diagnostics_us, sequence_++, *it, Timed::kDiagnosed});
    ++diagnoses_;
    check_device_us_ += static_cast<double>(readiness_.diagnostics_us) * spec.device_count;
    it = waiting_.erase(it);
  }
}

void HealthDriver::Detect(NodeId node, TimeUs now_us, std::vector<engine::Event>& events) {
  faults_.Detect(node, now_us);
  fires_us_[node.value()] = -1;  // Found, a warned fault no longer shows later.
  verified_us_[node.value()] = -1;
  events.push_back(engine::NodeDrained{node, true});
}

std::vector<HealthDriver::Interruption> HealthDriver::Step(TimeUs now_us,
                                                           const engine::Engine& engine,
                                                           uint32_t job_ids,
                                                           std::vector<engine::Event>& events) {
  const auto runs_on = [&](uint32_t job, NodeId node) {
    if (engine.state(JobId(job)) != engine::JobState::kRunning) return false;
    const std::vector<engine::TaskAllocation>* tasks = engine.allocations(JobId(job));
    return tasks != nullptr &&
           std::any_of(tasks->begin(), tasks->end(),
                       [&](const engine::TaskAllocation& task) { return task.node == node; });
  };
  // The jobs on a node that a fault or a finding concerns, from one scan of the running jobs.
  const auto jobs_on = [&](NodeId node) {
    std::vector<JobId> jobs;
    for (uint32_t job = 0; job < job_ids; ++job) {
      if (runs_on(job, node)) jobs.push_back(JobId(job));
    }
    return jobs;
  };
  std::vector<Interruption> interrupted;
  // `checked`: the job whose readiness check found the fault before it worked there; its
  // interruption names no node, as no fault met its work (recovery.hold_after counts nodes).
  const auto detect = [&](NodeId node, const std::vector<JobId>& jobs,
                          std::optional<uint32_t> checked = std::nullopt) {
    Detect(node, now_us, events);
    for (JobId job : jobs) interrupted.push_back({job, job.value() == checked ? NodeId() : node});
  };
  for (const NodeChange& change : faults_.PopDue(now_us)) {
    if (!change.down) {
      events.push_back(engine::NodeDrained{change.node, false});
      if (suspect_[change.node.value()] != Suspect::kNone) Clear(change.node, events);
      continue;
    }
    if (change.warned) {
      ++warnings_;
      const TimeUs fires_us =
          change.at_us + std::max<TimeUs>(std::llround(model_->warning_lead_s * kUsPerSecond), 1);
      fires_us_[change.node.value()] = fires_us;
      due_.push(Due{fires_us, sequence_++, change.node.value(), Timed::kFire});
      Warn(change.node, now_us, events);
      continue;
    }
    const std::vector<JobId> jobs = jobs_on(change.node);
    if (!change.latent_if_idle || !jobs.empty()) detect(change.node, jobs);
  }
  while (next_false_warning_us_ <= now_us) {
    ++false_warnings_;
    const auto device = static_cast<uint32_t>(false_warning_rng_.Below(cluster_->devices().size()));
    Warn(cluster_->devices()[device].node, now_us, events);
    ScheduleFalseWarning(next_false_warning_us_);
  }
  while (!due_.empty() && due_.top().at_us <= now_us) {
    const Due due = due_.top();
    due_.pop();
    const NodeId node(due.node);
    const bool hidden = faults_.faulty(node) && !faults_.down(node);
    switch (due.what) {
      case Timed::kFire:
        if (fires_us_[due.node] != due.at_us || !hidden) break;  // Found before it showed.
        detect(node, jobs_on(node));
        break;
      case Timed::kDiagnosed:
        if (suspect_[due.node] != Suspect::kDiagnosing || faults_.down(node)) break;
        if (hidden && check_rng_.Uniform() < model_->check_catches) {
          ++diagnoses_found_;
          Detect(node, now_us, events);  // Out until its repair ends (Clear).
        } else {
          Clear(node, events);
        }
        break;
      case Timed::kClear:
        // A false warning's node, still waiting for its work to leave.
        if (suspect_[due.node] == Suspect::kWaiting && fires_us_[due.node] < 0 &&
            !faults_.down(node)) {
          Clear(node, events);
        }
        break;
    }
  }
  while (!found_.empty() && found_.top().at_us <= now_us) {
    const Found found = found_.top();
    found_.pop();
    // Found already (by a fault on a busy node or another finding), or repaired since.
    if (!faults_.faulty(found.node) || faults_.down(found.node)) continue;
    // A latent fault shows only in the attempt that met it; a check's finding stands anyway.
    const bool current = attempt_[found.job] == found.attempt && runs_on(found.job, found.node);
    if (current) detect(found.node, jobs_on(found.node));
    if (!current && found.attempt == 0) detect(found.node, jobs_on(found.node), found.job);
  }
  // A gang on two nodes found at once is interrupted once, by the first node found.
  std::stable_sort(interrupted.begin(), interrupted.end(),
                   [](const Interruption& a, const Interruption& b) { return a.job < b.job; });
  interrupted.erase(
      std::unique(interrupted.begin(), interrupted.end(),
                  [](const Interruption& a, const Interruption& b) { return a.job == b.job; }),
      interrupted.end());
  return interrupted;
}

TimeUs HealthDriver::Admit(JobId job, const std::vector<engine::TaskAllocation>& tasks,
                           TimeUs now_us) {
  const uint32_t attempt = ++attempt_[job.value()];
  std::vector<NodeId> nodes;
  for (const engine::TaskAllocation& task : tasks) nodes.push_back(task.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  // The node checks run side by side, then the check across a gang's nodes.
  std::vector<bool> checked(nodes.size(), false);
  TimeUs node_checks_us = 0;
  double devices = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const TimeUs verified = verified_us_[nodes[i].value()];
    const double node_devices = cluster_->nodes()[nodes[i].value()].device_count;
    devices += node_devices;
    checked[i] = readiness_.check_us > 0 &&
                 (verified < 0 || now_us - verified >= readiness_.verified_for_us);
    if (!checked[i]) continue;
    ++checks_;
    node_checks_us = readiness_.check_us;
    check_device_us_ += static_cast<double>(readiness_.check_us) * node_devices;
  }
  const bool gang = nodes.size() > 1;
  const bool gang_check = gang && readiness_.gang_check_us > 0;
  if (gang_check) {
    ++gang_checks_;
    check_device_us_ += static_cast<double>(readiness_.gang_check_us) * devices;
  }
  const TimeUs pause_us = node_checks_us + (gang_check ? readiness_.gang_check_us : 0);
  bool on_faulty = false;
  for (size_t i = 0; i < nodes.size(); ++i) {
    const NodeId node = nodes[i];
    const bool fabric = faults_.fabric(node);
    // A node's own check misses a fault of its links, and work on that node alone never
    // meets one.
    if (!faults_.faulty(node) || (fabric && !gang)) {
      if (checked[i]) verified_us_[node.value()] = now_us;
      continue;
    }
    const bool looked = fabric ? gang_check : checked[i];
    if (looked && check_rng_.Uniform() < model_->check_catches) {
      ++checks_failed_;
      // Attempt 0: the finding stands whatever the job does meanwhile.
      found_.push(Found{now_us + (fabric ? pause_us : readiness_.check_us), sequence_++,
                        job.value(), 0, node});
      continue;
    }
    if (checked[i]) verified_us_[node.value()] = now_us;  // Passed, wrongly.
    on_faulty = true;
    const TimeUs fails_us =
        now_us + pause_us +
        std::max<TimeUs>(std::llround(model_->latent_fail_after_s * kUsPerSecond), 1);
    found_.push(Found{fails_us, sequence_++, job.value(), attempt, node});
  }
  if (on_faulty) ++jobs_started_on_faulty_;
  return pause_us;
}

}  // namespace headroom::sim
