// Engine holds: a pending job kept out of every pass until it is released (JobHeld). The
// engine holds a job itself when the policy's recovery.hold_after says it keeps failing: faults
// interrupted it on that many different nodes within recovery.hold_window_us, and the time it
// ran there (node-time, at the fault rate the floor's other jobs met, never below
// recovery.node_faults_per_day) makes that many interruptions less likely than one in a million
// by chance alone. A faulty job that takes down node after node
// is held after a few; a job of the building's size, which meets faults every few hours, is
// not held for its size (Poisson tail of its expected interruptions).
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {
namespace {

// Below this chance a job's interruptions are not bad luck.
constexpr double kHoldChance = 1e-6;

// P(X ≥ k) for X ~ Poisson(mean).
double PoissonTail(uint32_t k, double mean) {
  if (k == 0) return 1;
  double term = std::exp(-mean);  // P(X = 0)
  double below = term;
  for (uint32_t i = 1; i < k; ++i) {
    term *= mean / static_cast<double>(i);
    below += term;
  }
  return std::max(0.0, 1 - below);
}

std::string Hours(TimeUs us) {
  return fmt::format("{:.1f} h", static_cast<double>(us) / (3600.0 * kUsPerSecond));
}

}  // namespace

void Engine::Interrupt(JobId id, NodeId node, TimeUs now) {
  JobRecord& r = record(id);
  ++r.interruptions;
  r.expedited = policy_.recovery.expedite;
  r.requeued_by_fault = true;
  const double exposure_before_attempt_node_us = r.exposure_node_us;
  if (policy_.recovery.keep_nodes) KeepNodes(id, node);
  ReturnToQueue(id, now);
  WithdrawKept(r);
  if (!node.valid()) return;
  ++node_interruptions_;
  ++r.node_interruptions;
  if (policy_.recovery.hold_after == 0) return;
  std::erase_if(r.recent_interruptions, [&](const JobRecord::InterruptionMark& mark) {
    return mark.at_us < now - policy_.recovery.hold_window_us;
  });
  r.recent_interruptions.push_back({now, node, exposure_before_attempt_node_us});
  std::string reason = HoldAfterInterruption(r, now);
  if (!reason.empty()) Hold(id, std::move(reason));
}

std::string Engine::HoldAfterInterruption(const JobRecord& r, TimeUs now) const {
  const RecoveryConfig& recovery = policy_.recovery;
  std::vector<NodeId> nodes;
  for (const JobRecord::InterruptionMark& mark : r.recent_interruptions) nodes.push_back(mark.node);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  const auto count = static_cast<uint32_t>(nodes.size());
  if (count < recovery.hold_after) return {};
  // The node-time of the attempts the window's interruptions ended, the first one's in full.
  const double node_days = (r.exposure_node_us - r.recent_interruptions.front().exposure_node_us) /
                           (86400.0 * kUsPerSecond);
  const double rate = FaultsPerNodeDay(&r, now);
  const double expected = node_days * rate;
  if (PoissonTail(count, expected) >= kHoldChance) return {};
  std::string names;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (i == 3) {
      names += fmt::format(" and {} more", nodes.size() - 3);
      break;
    }
    names += (i == 0 ? "" : ", ") + cluster_.nodes()[nodes[i].value()].name;
  }
  return fmt::format(
      "Held: faults interrupted it on {} different nodes ({}) within {}, where the {:.1f} "
      "node-days it ran would meet {:.3f} at the floor's {:.2g} faults per node-day; a job that "
      "keeps failing waits for an operator to release it (recovery.hold_after: {}).",
      count, names, Hours(now - r.recent_interruptions.front().at_us), node_days, expected, rate,
      recovery.hold_after);
}

uint32_t Engine::DistinctNodes(const JobRecord& r) {
  std::vector<uint32_t> nodes;
  for (const TaskAllocation& task : r.tasks) nodes.push_back(task.node.value());
  std::sort(nodes.begin(), nodes.end());
  return static_cast<uint32_t>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
}

double Engine::AttemptNodeUs(const JobRecord& r, TimeUs now) {
  return static_cast<double>(DistinctNodes(r)) *
         static_cast<double>(std::max<TimeUs>(now - r.start_us, 0));
}

double Engine::FaultsPerNodeDay(const JobRecord* excluded, TimeUs now) const {
  double node_us = stopped_exposure_node_us_;
  uint64_t faults = node_interruptions_;
  if (excluded != nullptr) {
    node_us -= excluded->exposure_node_us;
    faults -= excluded->node_interruptions;
  }
  for (const auto& [end_us, id] : running_by_end_) node_us += AttemptNodeUs(jobs_[id], now);
  const double node_days = node_us / (86400.0 * kUsPerSecond);
  return std::max(policy_.recovery.node_faults_per_day,
                  node_days > 0 ? static_cast<double>(faults) / node_days : 0);
}

void Engine::Hold(JobId id, std::string reason) {
  JobRecord& r = record(id);
  HR_CHECK(r.state == JobState::kPending && r.job.hold_reason.empty() && !reason.empty());
  Unqueue(id);
  r.job.hold_reason = std::move(reason);
  r.code = PendingCode::kHeld;
  r.position = 0;
  held_.push_back(id);
  reservation_stale_ = true;
  dirty_ = true;
}

void Engine::Release(JobId id) {
  JobRecord& r = record(id);
  HR_CHECK(r.state == JobState::kPending && !r.job.hold_reason.empty());
  held_.erase(std::find(held_.begin(), held_.end(), id));
  r.job.hold_reason.clear();
  r.recent_interruptions.clear();
  r.code = PendingCode::kNotConsidered;
  arrivals_.push_back(id);
  dirty_ = true;
}

void Engine::Unqueue(JobId id) {
  if (auto it = std::find(queue_.begin(), queue_.end(), id); it != queue_.end()) {
    queue_.erase(it);
  } else if (auto held = std::find(held_.begin(), held_.end(), id); held != held_.end()) {
    held_.erase(held);
  } else {
    arrivals_.erase(std::find(arrivals_.begin(), arrivals_.end(), id));
  }
  if (blocked_head_ == id) reservation_stale_ = true;
  ReturnKept(record(id));  // Out of every pass, it waits for nothing kept.
}

bool Engine::expedited(JobId job) const {
  const JobRecord* r = find(job);
  return r != nullptr && r->state == JobState::kPending && r->expedited;
}

bool Engine::requeued_by_fault(JobId job) const {
  const JobRecord* r = find(job);
  return r != nullptr && r->state == JobState::kPending && r->requeued_by_fault;
}

std::string_view Engine::hold_reason(JobId job) const {
  const JobRecord* r = find(job);
  return r == nullptr || r->state != JobState::kPending ? std::string_view()
                                                        : std::string_view(r->job.hold_reason);
}

}  // namespace headroom::engine
