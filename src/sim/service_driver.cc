#include "sim/service_driver.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "base/check.h"
#include "sim/stats.h"

namespace headroom::sim {
namespace {

// Replicas never complete: they run until withdrawn. Finite, so that plans which add it to a
// start time do not overflow (ten years).
constexpr TimeUs kReplicaRuntimeUs = 10LL * 365 * 24 * 3600 * kUsPerSecond;

model::Job ReplicaJob(const model::Service& service) {
  model::Job job;
  job.name = service.name + "-replica";
  job.tenant = service.tenant;
  job.priority = service.priority;
  job.runtime_estimate_us = kReplicaRuntimeUs;
  job.runtime_us = kReplicaRuntimeUs;
  job.task_count = 1;
  job.task.devices = service.devices_per_replica;
  job.spread_group = "service/" + service.name;  // Its replicas spread across racks.
  job.serving = true;
  auto selector = model::Selector::Parse(fmt::format("model == \"{}\"", service.device_model));
  HR_CHECK(selector.has_value());
  job.task.selector = std::move(*selector);
  return job;
}

}  // namespace

ServiceDriver::ServiceDriver(std::vector<ServiceLoad> loads,
                             const engine::AutoscalingConfig& policy, TimeUs origin_us,
                             uint32_t first_job_id)
    : origin_us_(origin_us), first_job_id_(first_job_id), next_sync_us_(origin_us) {
  services_.reserve(loads.size());
  for (ServiceLoad& load : loads) {
    const bool scheduled = !load.replica_schedule.empty();
    // A scheduled service serves no requests: its pool only tracks its replicas, whatever they
    // could serve.
    auto capacity = scheduled ? model::ServingCapacity{.prefill_tokens_per_s = 1,
                                                       .kv_capacity_tokens = 1,
                                                       .weight_read_s = 1,
                                                       .kv_read_s_per_token = 0}
                              : model::ReplicaCapacity(load.service);
    HR_CHECK(capacity.has_value());
    double input = 0, output = 0;
    for (const InferenceRequest& request : load.trace.requests) {
      input += request.input_tokens;
      output += request.output_tokens;
    }
    const double count = std::max<double>(static_cast<double>(load.trace.requests.size()), 1);
    engine::AutoscalerConfig autoscaler = load.autoscaler;
    autoscaler.min_replicas = load.service.min_replicas;
    autoscaler.max_replicas = load.service.max_replicas;
    autoscaler.target_utilization = load.service.target_utilization;
    if (policy.forecast) autoscaler.predict_us = load.service.startup_us + kSyncPeriodUs;
    HR_CHECK(engine::ValidateAutoscalerConfig(autoscaler).has_value());
    model::Job replica_job = ReplicaJob(load.service);
    replica_job.task.cpu_milli = load.replica_cpu_milli;
    replica_job.task.memory_mib = load.replica_memory_mib;
    const model::LatencySlo slo = load.service.slo;
    RequestStream stream(std::move(load.trace), load.curve, load.span_us, load.seed);
    traces_end_us_ =
        std::max(traces_end_us_,
                 origin_us + (scheduled ? load.replica_schedule.back().first : stream.span_us()));
    services_.push_back(
        Running{.load = std::move(load),
                .pool = ReplicaPool(*capacity, slo),
                .autoscaler = engine::Autoscaler(autoscaler),
                .replica_job = std::move(replica_job),
                .capacity_per_s =
                    scheduled ? 0 : capacity->SustainedRequestsPerS(input / count, output / count),
                .stream = std::move(stream),
                .settled = {}});
    Running& added = services_.back();
    if (scheduled) {
      auto& schedule = added.load.replica_schedule;
      HR_CHECK(std::is_sorted(schedule.begin(), schedule.end()) && schedule.front().first == 0 &&
               schedule.size() >= 2 && schedule.back().second == 0);
      if (policy.fixed_at_peak) {
        // A pool of its busiest count, from the origin to the schedule's end.
        const uint32_t peak =
            std::max_element(schedule.begin(), schedule.end(), [](const auto& a, const auto& b) {
              return a.second < b.second;
            })->second;
        schedule = {{0, peak}, {schedule.back().first, 0}};
      }
      added.warm_replicas = schedule.front().second;
      added.schedule_next = 1;
      continue;
    }
    if (policy.fixed_at_peak) {
      added.fixed_replicas = std::max<uint32_t>(
          ReplicasFor(added, BusiestRatePerS(added.stream.trace().requests, kNever)), 1);
    }
    // What it runs at the origin: what the HPA holds once a burst has passed, the busiest sync
    // period of one scale-down window (of its first repetition, all it has made yet).
    added.warm_rate_per_s =
        BusiestRatePerS(added.stream.upcoming(), autoscaler.scale_down_window_us);
    added.warm_replicas =
        added.fixed_replicas > 0 ? added.fixed_replicas : ReplicasFor(added, added.warm_rate_per_s);
  }
}

TimeUs ServiceDriver::NextEventUs() const {
  if (next_sync_us_ > traces_end_us_) {
    const bool live = std::any_of(services_.begin(), services_.end(),
                                  [](const Running& service) { return !service.replicas.empty(); });
    if (!live) return kNever;
  }
  TimeUs next_us = next_sync_us_;
  for (const Running& service : services_) {
    if (warmed_ && service.schedule_next < service.load.replica_schedule.size()) {
      next_us = std::min(next_us,
                         origin_us_ + service.load.replica_schedule[service.schedule_next].first);
    }
  }
  return next_us;
}

void ServiceDriver::Step(TimeUs now_us, std::vector<engine::Event>& events) {
  for (Running& service : services_) Replay(service, now_us);
  if (warmed_) {
    for (size_t index = 0; index < services_.size(); ++index) {
      if (scheduled(services_[index])) FollowSchedule(index, now_us, events);
    }
  }
  if (now_us < next_sync_us_) return;
  for (size_t index = 0; index < services_.size(); ++index) Sync(index, now_us, events);
  warmed_ = true;
  while (next_sync_us_ <= now_us) next_sync_us_ += kSyncPeriodUs;
}

void ServiceDriver::Replay(Running& service, TimeUs until_us) {
  for (; !service.stream.done() && origin_us_ + service.stream.next().arrival_us <= until_us;
       service.stream.Pop()) {
    InferenceRequest request = service.stream.next();
    request.arrival_us += origin_us_;
    service.pool.Arrive(request);
    ++service.arrivals_since_sync;
  }
}

void ServiceDriver::Sync(size_t index, TimeUs now_us, std::vector<engine::Event>& events) {
  Running& service = services_[index];
  if (!warmed_) {
    for (uint32_t added = 0; added < service.warm_replicas; ++added) {
      Submit(index, now_us, true, events);
    }
    // The HPA's history: it recommended this count, which its scale-down window now holds.
    if (service.fixed_replicas == 0 && !scheduled(service)) {
      service.autoscaler.Recommend(now_us, service.warm_rate_per_s, service.capacity_per_s,
                                   service.warm_replicas);
    }
    service.arrivals_since_sync = 0;
    return;
  }
  if (scheduled(service)) return;  // FollowSchedule sets its count.
  const double rate_per_s =
      static_cast<double>(service.arrivals_since_sync) / UsToSeconds(kSyncPeriodUs);
  service.arrivals_since_sync = 0;
  const auto current = static_cast<uint32_t>(service.replicas.size());
  service.pool.RetireSettled(service.settled);
  const bool replayed = service.stream.done() && now_us >= traces_end_us_;
  const uint32_t desired =
      replayed ? 0
      : service.fixed_replicas > 0
          ? service.fixed_replicas
          : service.autoscaler.Recommend(now_us, rate_per_s, service.capacity_per_s, current);
  Reconcile(index, desired, now_us, events);
}

void ServiceDriver::FollowSchedule(size_t index, TimeUs now_us,
                                   std::vector<engine::Event>& events) {
  Running& service = services_[index];
  const auto& schedule = service.load.replica_schedule;
  bool changed = false;
  for (; service.schedule_next < schedule.size() &&
         origin_us_ + schedule[service.schedule_next].first <= now_us;
       ++service.schedule_next) {
    changed = true;
  }
  if (changed) Reconcile(index, schedule[service.schedule_next - 1].second, now_us, events);
}

void ServiceDriver::Reconcile(size_t index, uint32_t desired, TimeUs now_us,
                              std::vector<engine::Event>& events) {
  Running& service = services_[index];
  const auto current = static_cast<uint32_t>(service.replicas.size());
  for (uint32_t added = current; added < desired; ++added) Submit(index, now_us, false, events);
  while (service.replicas.size() > desired) {
    // Pending replicas serve nothing yet; of the running, the newest has the least to lose.
    auto pending = std::find_if(
        service.replicas.rbegin(), service.replicas.rend(),
        [&](uint32_t replica) { return replicas_[replica].state == ReplicaState::kPending; });
    Withdraw(pending != service.replicas.rend() ? *pending : service.replicas.back(), now_us,
             events);
  }
}

double ServiceDriver::BusiestRatePerS(const std::vector<InferenceRequest>& requests,
                                      TimeUs within_us) {
  size_t busiest = 0;
  for (size_t begin = 0, end = 0; begin < requests.size() && requests[begin].arrival_us < within_us;
       begin = end) {
    const TimeUs period = requests[begin].arrival_us / kSyncPeriodUs;
    while (end < requests.size() && requests[end].arrival_us / kSyncPeriodUs == period) ++end;
    busiest = std::max(busiest, end - begin);
  }
  return static_cast<double>(busiest) / UsToSeconds(kSyncPeriodUs);
}

uint32_t ServiceDriver::ReplicasFor(const Running& service, double rate_per_s) const {
  const double wanted =
      std::ceil(rate_per_s / (service.capacity_per_s * service.load.service.target_utilization));
  return std::clamp(static_cast<uint32_t>(std::min(wanted, 1e6)), service.load.service.min_replicas,
                    service.load.service.max_replicas);
}

void ServiceDriver::Submit(size_t index, TimeUs now_us, bool warm,
                           std::vector<engine::Event>& events) {
  const auto replica = static_cast<uint32_t>(replicas_.size());
  replicas_.push_back(Replica{.service = index, .decided_us = now_us, .warm = warm});
  model::Job job = services_[index].replica_job;
  job.submit_time_us = now_us;
  events.push_back(engine::JobSubmitted{JobId(first_job_id_ + replica), std::move(job)});
  services_[index].replicas.push_back(replica);
}

void ServiceDriver::Withdraw(uint32_t replica, TimeUs now_us, std::vector<engine::Event>& events) {
  Replica& withdrawn = replicas_[replica];
  Running& service = services_[withdrawn.service];
  const JobId job(first_job_id_ + replica);
  events.push_back(engine::JobCancelled{job});
  if (withdrawn.state == ReplicaState::kRunning) {
    HoldDevices(now_us);
    held_devices_ -= service.load.service.devices_per_replica;
    service.pool.StopReplica(job.value(), now_us, /*drain=*/true);
  }
  withdrawn.state = ReplicaState::kGone;
  std::erase(service.replicas, replica);
}

void ServiceDriver::Started(JobId job, TimeUs now_us) {
  Replica& replica = replicas_.at(job.value() - first_job_id_);
  HR_CHECK(replica.state == ReplicaState::kPending);
  Running& service = services_[replica.service];
  HoldDevices(now_us);
  held_devices_ += service.load.service.devices_per_replica;
  replica.state = ReplicaState::kRunning;
  const bool loaded = replica.warm && !replica.served;
  const TimeUs serving_us = now_us + (loaded ? 0 : service.load.service.startup_us);
  service.pool.AddReplica(job.value(), serving_us);
  if (!replica.served) {
    replica.served = true;
    ++replicas_started_;
    if (!replica.warm) scale_up_s_.push_back(UsToSeconds(serving_us - replica.decided_us));
  }
}

void ServiceDriver::Preempted(JobId job, TimeUs now_us, bool by_fault) {
  Replica& replica = replicas_.at(job.value() - first_job_id_);
  HR_CHECK(replica.state == ReplicaState::kRunning);
  Running& service = services_[replica.service];
  HoldDevices(now_us);
  held_devices_ -= service.load.service.devices_per_replica;
  replica.state = ReplicaState::kPending;  // The engine requeues it.
  service.pool.StopReplica(job.value(), now_us, /*drain=*/false);
  if (!by_fault) ++replica_preemptions_;
}

void ServiceDriver::Moved(JobId job, TimeUs now_us) {
  Replica& replica = replicas_.at(job.value() - first_job_id_);
  HR_CHECK(replica.state == ReplicaState::kRunning);
  Running& service = services_[replica.service];
  service.pool.StopReplica(job.value(), now_us, /*drain=*/false);
  service.pool.AddReplica(job.value(), now_us + service.load.service.startup_us);
}

void ServiceDriver::HoldDevices(TimeUs now_us) {
  held_device_us_ += static_cast<double>(held_devices_) *
                     static_cast<double>(std::max<TimeUs>(now_us - held_since_us_, 0));
  held_since_us_ = now_us;
}

uint64_t ServiceDriver::replica_devices() const { return held_devices_; }

ServiceMetrics ServiceDriver::Finish(TimeUs now_us) {
  HoldDevices(now_us);
  ServingTally requests;
  for (Running& service : services_) {
    Replay(service, kNever);
    service.pool.Finish();
    service.pool.RetireSettled(service.settled);
    HR_CHECK(service.pool.outcomes().empty());
    requests.Merge(service.settled);
  }
  ServiceMetrics metrics;
  metrics.requests = requests.Summary();
  metrics.scale_up_to_serving_s = sim::Summarize(scale_up_s_);
  metrics.replicas_started = replicas_started_;
  metrics.replica_preemptions = replica_preemptions_;
  metrics.replica_device_hours = held_device_us_ / (3600.0 * kUsPerSecond);
  return metrics;
}

}  // namespace headroom::sim
