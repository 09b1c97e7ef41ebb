// Engine::PendingCodeCounts: the pending jobs counted by the first reason each waits, for
// /metrics. Jobs of one request shape and one recorded outcome wait for the same reason, so
// Explain runs once per such group, not once per job (190,000 pending jobs made a scrape a
// second of work).
#include <unordered_map>
#include <unordered_set>

#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

std::map<PendingCode, uint64_t> Engine::PendingCodeCounts(std::span<const JobId> excluded) const {
  struct Group {
    Shape shape;
    PendingCode code;
    bool never_fits;
    bool unknown_level;
    bool operator==(const Group&) const = default;
  };
  struct GroupHash {
    size_t operator()(const Group& g) const {
      return ShapeHash()(g.shape) * 31 + static_cast<size_t>(g.code) * 4 + (g.never_fits ? 2 : 0) +
             (g.unknown_level ? 1 : 0);
    }
  };
  const std::unordered_set<uint32_t> skip = [&] {
    std::unordered_set<uint32_t> ids;
    for (const JobId id : excluded) ids.insert(id.value());
    return ids;
  }();
  std::unordered_map<Group, std::pair<JobId, uint64_t>, GroupHash> groups;  // First job, count.
  for (const std::vector<JobId>* pending : {&queue_, &arrivals_}) {
    for (const JobId id : *pending) {
      if (skip.contains(id.value())) continue;
      const JobRecord& r = jobs_[id.value()];
      if (r.state != JobState::kPending) continue;
      auto [it, inserted] = groups.try_emplace(
          Group{r.shape(), r.code, r.never_fits, r.unknown_level}, std::pair{id, uint64_t{0}});
      ++it->second.second;
    }
  }
  std::map<PendingCode, uint64_t> counts;
  for (const auto& [group, first_and_count] : groups) {
    const PendingStatus status = Explain(first_and_count.first, ExplainDetail::kReasons);
    counts[status.reasons.empty() ? PendingCode::kNone : status.reasons.front()] +=
        first_and_count.second;
  }
  return counts;
}

}  // namespace headroom::engine
