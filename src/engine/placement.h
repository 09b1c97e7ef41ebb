// Placement: finds where a gang goes, all-or-nothing, or says it does not fit now.
//
// Filter → score → pick. A node can take k tasks when every filter of the policy admits it
// (filter.h: not drained, a device class the selector accepts, ...) and it has k×cpu and
// k×memory free and k×devices free devices of a matching class (whole devices, or shares of
// single devices for fractional tasks), outside any reserved capacity it must avoid.
// Scoring uses the policy's weighted scorers (scorer.h); ties go to the lower id.
//
// Gang modes (PolicyConfig::gang_placement):
//  kPerTask        every task to the best node for it, one after another.
//  kTopologyBlock  the smallest fabric domain that holds the whole gang — trying the deepest
//                  level first (rack / NVLink domain), then its parents — with candidate domains
//                  ordered by the policy's FitOrder and at most `domains_tried_per_level` tried
//                  per level; inside it, recursively, a single child that holds the rest if one
//                  exists (best fit among those), else the largest children first. This is the
//                  tree best fit of Slurm's topology/tree plugin and Kueue TAS's BestFit.
// Spread groups (PlacementRequest::spread, model::Job::spread_group: a service's replicas): a
// one-task gang of a group goes to the failure domain — a deepest-level domain, the rack or
// NVLink domain that one switch and one power feed serve — holding fewest of the group's tasks
// among those with room, ties by the policy's FitOrder; inside it, to the node the scorers
// prefer. Soft, as Kubernetes' default topology spreading of a Service's pods is
// (PodTopologySpread, whenUnsatisfiable: ScheduleAnyway): a gang that fits anywhere is placed.
// Stated levels (PlacementRequest::required_level / preferred_level, Kueue Topology Aware
// Scheduling's required and preferred topology):
//  required R      the gang inside one domain of level R or deeper; never across two level-R
//                  domains. No fit otherwise.
//  preferred P     one domain of level P if any holds it, else one of level P-1, ... up to the
//                  root (the whole cluster).
//  In block mode the search still starts at the deepest level (a deeper domain lies inside a
//  level-P or level-R domain, so it honours the statement and is more compact), and every
//  candidate domain of a stated level is tried, not just `domains_tried_per_level`, so a fit
//  inside one such domain is never missed. In per-task mode the tasks go one by one to the
//  best nodes inside one domain of the stated level (candidates in the policy's FitOrder; the
//  first that can take the whole gang), falling back upwards as above for a preferred level.
// Budget filters (filter.h: facility, power_budget): a gang found is checked whole against
// each; one that overdraws an element is searched for again with that element's nodes set
// aside, at most kMaxBudgetRetries times.
// Cost: O(domains at a level) to filter by the per-domain free index, plus O(nodes) of the
// domains actually examined; with budget filters, that again per element set aside.
// Promise: on success the returned allocations fit the state as given, use each device share
// at most once, and leave the state unchanged (the search runs inside a rolled-back mark).
#pragma once

#include <optional>
#include <vector>

#include "engine/cluster_state.h"
#include "engine/decision.h"
#include "engine/filter.h"
#include "engine/policy_config.h"
#include "engine/request.h"
#include "engine/scorer.h"

namespace headroom::engine {

// Elements a gang that overdraws them sets aside before the placer gives up.
inline constexpr uint32_t kMaxBudgetRetries = 8;

struct PlacementOptions {
  GangPlacement gang = GangPlacement::kTopologyBlock;
  FitOrder domain_order = FitOrder::kBestFit;
  std::vector<std::shared_ptr<const NodeFilter>> filters;
  std::vector<WeightedScorer> scorers;  // At least one.
  uint32_t domains_tried_per_level = 8;
};

// The options a validated policy gives the placer: its pieces made from their names.
PlacementOptions PlacementOptionsOf(const PolicyConfig& policy);

class Placer {
 public:
  explicit Placer(PlacementOptions options);

  const PlacementOptions& options() const { return options_; }
  // Whether the policy has a budget filter (filter.h).
  bool has_budgets() const { return !budget_filters_.empty(); }

  // `avoid` may be null. The state is only touched inside a mark that is rolled back.
  std::optional<std::vector<TaskAllocation>> Place(ClusterState& state,
                                                   const PlacementRequest& request,
                                                   const ReservedCapacity* avoid) const;

  // With budget filters, why the request does not fit now when it would were the building no
  // limit: the element a placement found without them overdraws first. nullopt otherwise.
  std::optional<NodeFilter::Overdraw> BudgetBlock(ClusterState& state,
                                                  const PlacementRequest& request,
                                                  const ReservedCapacity* avoid) const;

  // The first element a budget filter of the policy says `gang` (not allocated in `state`)
  // would take past its budget; nullopt without budget filters or when it keeps within them.
  std::optional<NodeFilter::Overdraw> FirstOverdraw(const ClusterState& state,
                                                    std::span<const TaskAllocation> gang) const;

  // True when every budget filter admits the whole gang inside `domain` (filter.h).
  bool AdmitsInDomain(const ClusterState& state, DomainId domain,
                      const PlacementRequest& request) const;

  // True when every filter of the policy admits the node for the request.
  bool Admits(const ClusterState& state, NodeId node, const PlacementRequest& request) const;
  // How many tasks of the request `node` could take now (capped at the request's count): 0 when
  // a filter rejects the node, else its free capacity.
  uint32_t NodeCapacity(const ClusterState& state, NodeId node, const PlacementRequest& request,
                        const ReservedCapacity* avoid) const;
  // The node's free capacity for the request, filters not asked.
  static uint32_t FreeCapacity(const ClusterState& state, NodeId node,
                               const PlacementRequest& request, const ReservedCapacity* avoid);

  // Upper bound on the request's device demand a domain can hold (milli-devices), from the
  // aggregates alone. CPU-only requests return UINT64_MAX.
  static uint64_t DomainBoundMilli(const ClusterState& state, DomainId domain,
                                   const PlacementRequest& request);

 private:
  struct Search;

  // The search, budget filters asked per node only.
  std::optional<std::vector<TaskAllocation>> PlaceOnce(ClusterState& state,
                                                       const PlacementRequest& request,
                                                       const ReservedCapacity* avoid) const;

  // Per-task placement on the nodes of `scope` (the root for the whole cluster).
  std::optional<std::vector<TaskAllocation>> PlacePerTask(ClusterState& state,
                                                          const PlacementRequest& request,
                                                          const ReservedCapacity* avoid,
                                                          DomainId scope) const;
  // Per-task placement inside one domain of a stated level, falling back upwards for a
  // preferred one.
  std::optional<std::vector<TaskAllocation>> PlacePerTaskInLevel(
      ClusterState& state, const PlacementRequest& request, const ReservedCapacity* avoid) const;
  // A one-task gang of a spread group: to the failure domain with fewest of its group's tasks.
  std::optional<std::vector<TaskAllocation>> PlaceSpread(ClusterState& state,
                                                         const PlacementRequest& request,
                                                         const ReservedCapacity* avoid) const;
  std::optional<std::vector<TaskAllocation>> PlaceBlock(ClusterState& state,
                                                        const PlacementRequest& request,
                                                        const ReservedCapacity* avoid) const;

  PlacementOptions options_;
  bool first_fit_only_ = false;  // The one scorer is first_fit: the first node that fits wins.
  std::vector<const NodeFilter*> budget_filters_;
};

// Picks devices on `node` for `tasks` tasks and returns one allocation per task. The node must
// have capacity for them (NodeCapacity >= tasks).
std::vector<TaskAllocation> AllocateOnNode(const ClusterState& state, NodeId node,
                                           const PlacementRequest& request, uint32_t tasks,
                                           const ReservedCapacity* avoid);

}  // namespace headroom::engine
