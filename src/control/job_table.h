// JobTable: the daemon's jobs by id, with the aggregates that admission and /metrics read kept
// up to date as jobs are written, so that neither walks every job (190,000 pending jobs made
// each submission's limit check and each /metrics scrape a walk over all of them).
//
// Promises:
//  1. CountIn(state) is the number of jobs in that state; PendingOf(tenant) the number of
//     pending jobs of that tenant; running_ids() the ids of the running jobs, RunningOn(node)
//     those with a task on that node. All are exact
//     after every Put and Erase, which cost O(log n) more for them.
//  2. Jobs are read through const access only; the one way to change a job is Put (insert or
//     replace) or Erase, so no write can bypass the counts.
// Threading: none of its own; DaemonState's `mu` guards it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>

#include "control/records.h"

namespace headroom::control {

class JobTable {
 public:
  using Map = std::map<uint64_t, JobRecord>;
  using const_iterator = Map::const_iterator;

  // Read access as a const std::map, in id order.
  const_iterator begin() const { return jobs_.begin(); }
  const_iterator end() const { return jobs_.end(); }
  const_iterator find(uint64_t id) const { return jobs_.find(id); }
  const JobRecord& at(uint64_t id) const { return jobs_.at(id); }
  bool contains(uint64_t id) const { return jobs_.contains(id); }
  size_t size() const { return jobs_.size(); }
  bool empty() const { return jobs_.empty(); }

  // Inserts `job`, or replaces the job of its id.
  void Put(JobRecord job);
  // Removes the job of `id`, if there is one.
  void Erase(uint64_t id);

  uint64_t CountIn(JobState state) const { return count_by_state_[static_cast<size_t>(state)]; }
  uint64_t PendingOf(const std::string& tenant) const;
  // Ids of the running jobs, ascending: what placements and allocations are summed over.
  const std::set<uint64_t>& running_ids() const { return running_ids_; }
  // Ids of the running jobs with a task on `node`: what an agent's heartbeat answers with,
  // without a walk over every job (12,500 agents heartbeat ~1,250 times a second).
  const std::set<uint64_t>& RunningOn(const std::string& node) const;

 private:
  void Count(const JobRecord& job, int64_t delta);

  Map jobs_;
  std::array<uint64_t, static_cast<size_t>(JobState::kCancelled) + 1> count_by_state_{};
  // Tenants with at least one pending job.
  std::unordered_map<std::string, uint64_t> pending_by_tenant_;
  std::set<uint64_t> running_ids_;
  std::unordered_map<std::string, std::set<uint64_t>> running_by_node_;
};

}  // namespace headroom::control
