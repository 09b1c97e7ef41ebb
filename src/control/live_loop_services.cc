// LiveLoop's calls on whole services: cancel one, or set its replica count (live_loop.h).
#include "control/live_loop.h"

#include <algorithm>

#include <fmt/format.h>

namespace headroom::control {

ApiResult<std::vector<JobRecord>> LiveLoop::CancelService(uint64_t service) {
  ApiResult<std::vector<JobRecord>> result = Fail(500, "the loop did not run the cancel");
  RunCall([&] {
    const TimeUs now = Now();
    std::vector<JobRecord> replicas;
    std::vector<bool> was_running;
    {
      std::lock_guard lock(state_.mu);
      if (!state_.services.contains(service)) {
        result =
            Fail(404, "service {} does not exist; list services with GET /v1/services", service);
        return;
      }
      for (const auto& [id, job] : state_.jobs) {
        if (job.service_id != service || IsFinal(job.state)) continue;
        was_running.push_back(job.state == JobState::kRunning);
        JobRecord cancelled = job;
        cancelled.state = JobState::kCancelled;
        cancelled.end_us = now;
        cancelled.message = fmt::format("service {} cancelled", service);
        replicas.push_back(std::move(cancelled));
      }
    }
    std::vector<StoreWrite> writes{ServiceRemoval{service}};
    writes.insert(writes.end(), replicas.begin(), replicas.end());
    if (auto ok = journal_.Commit(std::move(writes)); !ok) {
      result = StoreFailure(ok.error());
      return;
    }
    {
      std::lock_guard lock(state_.mu);
      state_.services.erase(service);
      state_.service_loads.erase(service);
    }
    ApplyCancelled(replicas, was_running, now);
    result = std::move(replicas);
  });
  Wake();
  return result;
}

ApiResult<ServiceScaled> LiveLoop::ScaleService(uint64_t service, uint32_t replicas) {
  ApiResult<ServiceScaled> result = Fail(500, "the loop did not run the scale");
  RunCall([&] {
    {
      std::lock_guard lock(state_.mu);
      auto found = state_.services.find(service);
      const std::optional<ServiceAutoscaling>& autoscaling =
          found == state_.services.end() ? std::nullopt : found->second.spec.autoscaling;
      if (autoscaling &&
          (replicas < autoscaling->min_replicas || replicas > autoscaling->max_replicas)) {
        result = Fail(409,
                      "service {} autoscales within [{}, {}] replicas (spec.autoscaling); a count "
                      "of {} is outside it",
                      service, autoscaling->min_replicas, autoscaling->max_replicas, replicas);
        return;
      }
    }
    result = ApplyScale(service, replicas, Now(), fmt::format("scaled to {} replicas", replicas));
  });
  Wake();
  return result;
}

ApiResult<ServiceScaled> LiveLoop::ApplyScale(uint64_t service, uint32_t replicas, TimeUs now,
                                              std::string_view why) {
  ServiceScaled scaled;
  std::vector<JobRecord> added, cancelled;
  std::vector<bool> was_running;
  {
    std::lock_guard lock(state_.mu);
    auto found = state_.services.find(service);
    if (found == state_.services.end()) {
      return Fail(404, "service {} does not exist; list services with GET /v1/services", service);
    }
    scaled.service = found->second;
    scaled.service.spec.replicas = replicas;
    std::vector<const JobRecord*> live;
    for (const auto& [id, job] : state_.jobs) {
      if (job.service_id == service && !IsFinal(job.state)) live.push_back(&job);
    }
    // Pending replicas serve nothing yet; of the running, the newest has the least to lose.
    std::sort(live.begin(), live.end(), [](const JobRecord* a, const JobRecord* b) {
      const bool a_pending = a->state == JobState::kPending;
      const bool b_pending = b->state == JobState::kPending;
      if (a_pending != b_pending) return a_pending;
      if (a->start_us != b->start_us) return a->start_us > b->start_us;
      return a->id > b->id;
    });
    const size_t surplus = live.size() > replicas ? live.size() - replicas : 0;
    for (size_t i = 0; i < surplus; ++i) {
      JobRecord job = *live[i];
      was_running.push_back(job.state == JobState::kRunning);
      job.state = JobState::kCancelled;
      job.end_us = now;
      job.message = fmt::format("service {} {}", service, why);
      cancelled.push_back(std::move(job));
    }
    const uint64_t adding = live.size() < replicas ? replicas - live.size() : 0;
    // New replicas are new pending work: admitted as submissions are (admission.h).
    if (auto admitted = state_.admission.Reserve(state_.jobs, scaled.service.spec.tenant, adding);
        !admitted) {
      return tl::unexpected(admitted.error());
    }
    for (size_t i = live.size(); i < replicas; ++i) {
      added.push_back(NewReplica(scaled.service, state_.next_job_id++, now));
    }
  }
  std::vector<StoreWrite> writes{scaled.service};
  writes.insert(writes.end(), added.begin(), added.end());
  writes.insert(writes.end(), cancelled.begin(), cancelled.end());
  if (auto ok = journal_.Commit(std::move(writes)); !ok) {
    std::lock_guard lock(state_.mu);
    state_.admission.Release(scaled.service.spec.tenant, added.size());
    return StoreFailure(ok.error());
  }
  {
    std::lock_guard lock(state_.mu);
    state_.services[service] = scaled.service;
    for (const JobRecord& job : added) state_.jobs.Put(job);
    state_.admission.Release(scaled.service.spec.tenant, added.size());
    state_.submissions_total += added.size();
  }
  ApplyCancelled(cancelled, was_running, now);
  for (const JobRecord& job : added) {
    EnqueueSubmit(job);
    scaled.added.push_back(job.id);
    Log("submitted", job.id, std::nullopt,
        fmt::format("job {} added to service {} ({})", job.id, service, why), now);
  }
  for (const JobRecord& job : cancelled) scaled.cancelled.push_back(job.id);
  return scaled;
}

}  // namespace headroom::control
