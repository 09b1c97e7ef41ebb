// Engine::SnapshotPending: why every pending job waits, for a view the daemon publishes to its
// readers and for metrics. Jobs of one request shape and one recorded outcome wait for the
// same reasons, so the shared part of Explain runs once per such group, not once per job
// (190,000 pending jobs made a scrape a second of work when it ran per job).
#include <unordered_map>
#include <unordered_set>

#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

PendingSnapshot Engine::SnapshotPending(std::span<const JobId> excluded, bool with_nodes) const {
  struct Group {
    Shape shape;
    PendingCode code;
    bool never_fits;
    bool unknown_level;
    uint32_t quota_queue;  // Quota verdicts differ by queue.
    bool operator==(const Group&) const = default;
  };
  struct GroupHash {
    size_t operator()(const Group& g) const {
      return ShapeHash()(g.shape) * 31 + static_cast<size_t>(g.code) * 4 + (g.never_fits ? 2 : 0) +
             (g.unknown_level ? 1 : 0) + size_t{g.quota_queue} * 977;
    }
  };
  const std::unordered_set<uint32_t> skip = [&] {
    std::unordered_set<uint32_t> ids;
    for (const JobId id : excluded) ids.insert(id.value());
    return ids;
  }();
  PendingSnapshot snapshot{.as_of_us = last_now_us_};
  snapshot.jobs.reserve(queue_.size() + arrivals_.size() + held_.size());
  std::unordered_map<Group, uint32_t, GroupHash> group_of;
  const std::unordered_map<uint32_t, TimeUs>& plan = ExpectedStarts();
  for (const JobId id : held_) {  // Each held for its own reason.
    if (skip.contains(id.value())) continue;
    std::string no_nodes;
    snapshot.groups.push_back(
        PendingGroup{.status = ExplainShared(jobs_[id.value()], false, no_nodes)});
    snapshot.jobs.push_back(
        PendingJob{.job = id, .group = static_cast<uint32_t>(snapshot.groups.size() - 1)});
  }
  for (const std::vector<JobId>* pending : {&queue_, &arrivals_}) {
    for (const JobId id : *pending) {
      if (skip.contains(id.value())) continue;
      const JobRecord& r = jobs_[id.value()];
      if (r.state != JobState::kPending) continue;
      auto [it, inserted] =
          group_of.try_emplace(Group{r.shape(), r.code, r.never_fits, r.unknown_level,
                                     r.code == PendingCode::kQuota ? r.quota_queue : 0},
                               static_cast<uint32_t>(snapshot.groups.size()));
      if (inserted) {
        PendingGroup& group = snapshot.groups.emplace_back();
        group.status = ExplainShared(r, with_nodes, group.nodes_sentence);
      }
      PendingJob& job = snapshot.jobs.emplace_back(PendingJob{.job = id, .group = it->second});
      job.queue_position = r.position;
      if (r.never_fits || r.unknown_level) continue;
      job.reserved = id == blocked_head_ && reserved_start_us_ != kNever;
      if (job.reserved) {
        job.expected_start_us = reserved_start_us_;
      } else if (auto start = plan.find(id.value()); start != plan.end()) {
        job.expected_start_us = start->second;
      }
    }
  }
  return snapshot;
}

}  // namespace headroom::engine
