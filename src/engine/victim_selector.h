// Victim-selection role: which running work to take back first when a blocked job needs room.
// Defragmentation by migration (defrag.h) asks it in what order to release the movable jobs on
// a node; preemption will ask it which jobs to requeue or shrink. A selector maps each
// candidate to a key; smaller keys are taken first. What a move costs is not its business:
// the caller prices moves (checkpoint + restart device-time) and keeps within budget and gain.
//
// The contract every selector keeps (tests/engine/victim_selector_contract_test.cc runs it over
// each registered one): keys are a pure function of the candidate and its cost; distinct ids
// give distinct keys (a strict total order, so the order of the input does not matter).
//
// The built-in selectors, one file each under victim_selectors/:
//  cheapest_move    Least checkpoint + restart device-time first, then lower id.
//  lowest_priority  Lowest priority first, then cheapest, then lower id (Kubernetes and Slurm
//                   preempt the lowest priority first).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/decision.h"
#include "engine/registry.h"
#include "engine/request.h"

namespace headroom::engine {

// A running job the search may move. `tasks` must stay valid while it is in use.
struct MovableJob {
  JobId id;
  const std::vector<TaskAllocation>* tasks = nullptr;
  PlacementRequest request;
  uint64_t devices = 0;  // Whole devices held; a share counts as one.
  int64_t priority = 0;  // Its preemption rank: its priority, or its service rank under las.
  TimeUs start_us = 0;
};

struct VictimKey {
  int64_t primary = 0;
  int64_t secondary = 0;
  uint32_t id = 0;
  friend bool operator<(const VictimKey& a, const VictimKey& b) {
    return std::tie(a.primary, a.secondary, a.id) < std::tie(b.primary, b.secondary, b.id);
  }
  friend bool operator==(const VictimKey&, const VictimKey&) = default;
};

class VictimSelector {
 public:
  virtual ~VictimSelector() = default;
  virtual std::string_view name() const = 0;
  // `cost_device_us`: what moving the job costs (device-microseconds).
  virtual VictimKey Key(const MovableJob& job, int64_t cost_device_us) const = 0;
};

// Every built-in selector, by name.
const Registry<VictimSelector>& VictimSelectors();

}  // namespace headroom::engine
