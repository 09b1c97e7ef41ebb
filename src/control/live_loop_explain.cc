// LiveLoop's "why pending": after steps, at a bounded cost, the loop publishes an immutable
// view of why every pending job waits (Engine::SnapshotPending, with node tallies); the API's
// job pages and /metrics read it on their own threads, never waiting for the loop
// (live_loop.h).
#include <algorithm>
#include <chrono>

#include "control/live_loop.h"
#include "engine/pending_reason.h"

namespace headroom::control {

void LiveLoop::PublishPending() {
  const auto start = clock_.SteadyNow();
  if (start - last_publish_ < 10 * last_publish_cost_) return;
  auto view = std::make_shared<PendingView>();
  view->engine = engine_ != nullptr;
  if (engine_ != nullptr) {
    // Cancels the engine has not stepped yet are pending there only.
    std::vector<JobId> cancelled;
    for (const engine::Event& event : events_) {
      if (const auto* cancel = std::get_if<engine::JobCancelled>(&event)) {
        cancelled.push_back(cancel->id);
      }
    }
    view->snapshot = engine_->SnapshotPending(cancelled, /*with_nodes=*/true);
    std::vector<uint64_t> per_group(view->snapshot.groups.size(), 0);
    view->by_job.reserve(view->snapshot.jobs.size());
    for (uint32_t i = 0; i < view->snapshot.jobs.size(); ++i) {
      const engine::PendingJob& job = view->snapshot.jobs[i];
      ++per_group[job.group];
      view->by_job.emplace_back(daemon_of_engine_[job.job.value()], i);
    }
    std::sort(view->by_job.begin(), view->by_job.end());
    for (size_t g = 0; g < per_group.size(); ++g) {
      const auto& reasons = view->snapshot.groups[g].status.reasons;
      view->counts[reasons.empty() ? "not_considered"
                                   : std::string(engine::PendingCodeName(reasons.front()))] +=
          per_group[g];
    }
    view->explained = view->snapshot.jobs.size();
    view->tenants = engine_->TenantFairShares();
    view->queue_shares = engine_->QueueFairShares();
    view->queues = engine_->quotas();
  }
  {
    std::lock_guard lock(published_mu_);
    published_ = std::move(view);
  }
  last_publish_ = clock_.SteadyNow();
  last_publish_cost_ = last_publish_ - start;
}

std::shared_ptr<const LiveLoop::PendingView> LiveLoop::Published() const {
  std::lock_guard lock(published_mu_);
  return published_;
}

std::vector<engine::Engine::TenantFairShare> LiveLoop::TenantFairShares() const {
  const std::shared_ptr<const PendingView> view = Published();
  return view == nullptr ? std::vector<engine::Engine::TenantFairShare>{} : view->tenants;
}

std::vector<engine::Engine::QueueFairShare> LiveLoop::QueueFairShares() const {
  const std::shared_ptr<const PendingView> view = Published();
  return view == nullptr ? std::vector<engine::Engine::QueueFairShare>{} : view->queue_shares;
}

engine::QuotaTree LiveLoop::Queues() const {
  const std::shared_ptr<const PendingView> view = Published();
  return view == nullptr ? engine::QuotaTree() : view->queues;
}

std::map<uint64_t, PendingInfo> LiveLoop::Explain(const std::vector<uint64_t>& jobs,
                                                  bool with_nodes) const {
  const std::shared_ptr<const PendingView> view = Published();
  std::map<uint64_t, PendingInfo> out;
  for (uint64_t job : jobs) {
    PendingInfo& info = out[job];
    if (view == nullptr || !view->engine) {
      info = PendingInfo{.code = "unschedulable",
                         .reasons = {"unschedulable"},
                         .message =
                             "No node is known yet: start headroom-agent on the nodes "
                             "(agents backend)."};
      continue;
    }
    auto it = std::lower_bound(view->by_job.begin(), view->by_job.end(),
                               std::pair<uint64_t, uint32_t>{job, 0});
    if (it == view->by_job.end() || it->first != job) {
      info = PendingInfo{.code = "not_considered",
                         .reasons = {"not_considered"},
                         .message = "Not yet looked at by the scheduler."};
      continue;
    }
    const engine::PendingJob& pending = view->snapshot.jobs[it->second];
    const engine::PendingGroup& group = view->snapshot.groups[pending.group];
    const engine::PendingStatus& status = group.status;
    info.code = status.reasons.empty()
                    ? "not_considered"
                    : std::string(engine::PendingCodeName(status.reasons.front()));
    for (engine::PendingCode code : status.reasons) {
      info.reasons.emplace_back(engine::PendingCodeName(code));
    }
    info.message = status.message;
    if (with_nodes) info.message += group.nodes_sentence;
    info.message += engine::ExpectedStartSentence(pending.expected_start_us, pending.reserved,
                                                  view->snapshot.as_of_us);
    info.expected_start_us = pending.expected_start_us;
    if (with_nodes) {
      info.nodes.emplace();
      for (const engine::NodeTally& tally : status.nodes) {
        info.nodes->emplace_back(tally.constraint, tally.nodes);
      }
      info.tasks_placeable = status.tasks_placeable;
    }
  }
  return out;
}

std::map<std::string, uint64_t> LiveLoop::PendingByReason() {
  const std::shared_ptr<const PendingView> view = Published();
  uint64_t pending = 0;
  {
    std::lock_guard lock(state_.mu);
    pending = state_.jobs.CountIn(JobState::kPending);
  }
  if (view == nullptr || !view->engine) {
    if (pending > 0) return {{"unschedulable", pending}};  // As Explain says without an engine.
    return {};
  }
  std::map<std::string, uint64_t> out = view->counts;
  // Pending jobs the engine had not been given yet (they arrive with its next step).
  if (pending > view->explained) out["not_considered"] += pending - view->explained;
  return out;
}

}  // namespace headroom::control
