// LiveLoop's "why pending": one job's reason from the engine on demand, and the counts of
// pending jobs by reason that /metrics reads, published after steps at a bounded cost
// (live_loop.h).
#include "control/live_loop.h"

#include <chrono>

#include "engine/pending_reason.h"

namespace headroom::control {

PendingInfo LiveLoop::ExplainOne(uint64_t job, bool with_nodes) const {
  if (engine_ == nullptr) {
    return PendingInfo{
        .code = "unschedulable",
        .reasons = {"unschedulable"},
        .message = "No node is known yet: start headroom-agent on the nodes (agents backend)."};
  }
  auto it = engine_of_daemon_.find(job);
  if (it == engine_of_daemon_.end() || engine_->state(it->second) != JobState::kPending) {
    return PendingInfo{.code = "not_considered",
                       .reasons = {"not_considered"},
                       .message = "Not yet looked at by the scheduler."};
  }
  const engine::PendingStatus status = engine_->Explain(
      it->second, with_nodes ? engine::ExplainDetail::kNodes : engine::ExplainDetail::kBrief);
  PendingInfo info;
  info.code = status.reasons.empty() ? "not_considered"
                                     : std::string(engine::PendingCodeName(status.reasons.front()));
  for (engine::PendingCode code : status.reasons) {
    info.reasons.emplace_back(engine::PendingCodeName(code));
  }
  info.message = status.message;
  info.expected_start_us = status.expected_start_us;
  if (with_nodes) {
    info.nodes.emplace();
    for (const engine::NodeTally& tally : status.nodes) {
      info.nodes->emplace_back(tally.constraint, tally.nodes);
    }
    info.tasks_placeable = status.tasks_placeable;
  }
  return info;
}

std::map<uint64_t, PendingInfo> LiveLoop::Explain(const std::vector<uint64_t>& jobs,
                                                  bool with_nodes) {
  std::map<uint64_t, PendingInfo> out;
  RunCall([&] {
    for (uint64_t job : jobs) out[job] = ExplainOne(job, with_nodes);
  });
  return out;
}

void LiveLoop::PublishPendingReasons() {
  const auto start = clock_.SteadyNow();
  if (start - last_publish_ < 10 * last_publish_cost_) return;
  PublishedReasons published{.engine = engine_ != nullptr};
  if (engine_ != nullptr) {
    // Cancels the engine has not stepped yet are pending there only.
    std::vector<JobId> cancelled;
    for (const engine::Event& event : events_) {
      if (const auto* cancel = std::get_if<engine::JobCancelled>(&event)) {
        cancelled.push_back(cancel->id);
      }
    }
    for (const auto& [code, count] : engine_->PendingCodeCounts(cancelled)) {
      published.counts[code == engine::PendingCode::kNone
                           ? "not_considered"
                           : std::string(engine::PendingCodeName(code))] += count;
      published.explained += count;
    }
  }
  {
    std::lock_guard lock(published_mu_);
    published_ = std::move(published);
  }
  last_publish_ = clock_.SteadyNow();
  last_publish_cost_ = last_publish_ - start;
}

std::map<std::string, uint64_t> LiveLoop::PendingByReason() {
  PublishedReasons published;
  {
    std::lock_guard lock(published_mu_);
    published = published_;
  }
  uint64_t pending = 0;
  {
    std::lock_guard lock(state_.mu);
    pending = state_.jobs.CountIn(JobState::kPending);
  }
  std::map<std::string, uint64_t> out = std::move(published.counts);
  if (!published.engine) {
    if (pending > 0) out["unschedulable"] = pending;  // As ExplainOne says without an engine.
    return out;
  }
  // Pending jobs the engine had not been given yet (they arrive with its next step).
  if (pending > published.explained) out["not_considered"] += pending - published.explained;
  return out;
}

}  // namespace headroom::control
