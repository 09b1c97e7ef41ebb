#include "engine/placement.h"

#include <algorithm>
#include <limits>

#include "base/check.h"

namespace headroom::engine {
namespace {

bool Reserved(const ReservedCapacity* avoid, uint32_t device) {
  return avoid != nullptr && avoid->device_reserved[device] != 0;
}

// Lexicographic comparison key for ordering candidates: smaller goes first.
struct Candidate {
  uint64_t key;
  uint32_t id;
  friend bool operator<(const Candidate& a, const Candidate& b) {
    return a.key != b.key ? a.key < b.key : a.id < b.id;
  }
};

uint64_t OrderKey(FitOrder order, uint64_t free, uint32_t id) {
  switch (order) {
    case FitOrder::kFirstFit:
      return id;
    case FitOrder::kBestFit:
      return free;
    case FitOrder::kWorstFit:
      return std::numeric_limits<uint64_t>::max() - free;
  }
  return id;
}

// The domains at `level` whose free capacity may hold the whole request, keyed for `order`.
void CandidatesAt(const ClusterState& state, const PlacementRequest& request, uint32_t level,
                  FitOrder order, std::vector<Candidate>& out) {
  out.clear();
  const uint64_t need_milli = request.milli();
  for (DomainId domain : state.cluster().domains_at_level(level)) {
    const uint64_t bound = Placer::DomainBoundMilli(state, domain, request);
    if (bound < need_milli) continue;
    out.push_back(
        {OrderKey(order, bound == UINT64_MAX ? 0 : bound, domain.value()), domain.value()});
  }
}

}  // namespace

PlacementOptions PlacementOptionsOf(const PolicyConfig& policy) {
  PlacementOptions options;
  options.gang = policy.gang_placement;
  options.domain_order = policy.domain_order;
  options.domains_tried_per_level = std::max<uint32_t>(policy.domains_tried_per_level, 1);
  // ValidatePolicy ran before: every name is registered.
  for (const NamedWeight& scorer : policy.node_scorers) {
    auto made = Scorers().Make(scorer.name);
    HR_CHECK(made.has_value());
    options.scorers.push_back({std::move(*made), scorer.weight});
  }
  auto filters = PolicyFilters(policy.filters);
  HR_CHECK(filters.has_value());
  options.filters = std::move(*filters);
  return options;
}

Placer::Placer(PlacementOptions options) : options_(std::move(options)) {
  first_fit_only_ =
      options_.scorers.size() == 1 && options_.scorers[0].scorer->name() == "first_fit";
  for (const auto& filter : options_.filters) {
    if (filter->budget()) budget_filters_.push_back(filter.get());
  }
}

bool Placer::AdmitsInDomain(const ClusterState& state, DomainId domain,
                            const PlacementRequest& request) const {
  for (const NodeFilter* filter : budget_filters_) {
    if (!filter->AdmitsInDomain(state, domain, request)) return false;
  }
  return true;
}

bool Placer::Admits(const ClusterState& state, NodeId node, const PlacementRequest& request) const {
  for (const auto& filter : options_.filters) {
    if (!filter->Admits(state, node, request)) return false;
  }
  return true;
}

uint32_t Placer::NodeCapacity(const ClusterState& state, NodeId node,
                              const PlacementRequest& request,
                              const ReservedCapacity* avoid) const {
  // Capacity first: on a busy floor most nodes are full, and then no filter need be asked.
  const uint32_t capacity = FreeCapacity(state, node, request, avoid);
  return capacity > 0 && Admits(state, node, request) ? capacity : 0;
}

uint32_t Placer::FreeCapacity(const ClusterState& state, NodeId node_id,
                              const PlacementRequest& request, const ReservedCapacity* avoid) {
  const model::TaskShape& shape = *request.shape;
  const uint32_t n = node_id.value();
  const bool reserved_here = avoid != nullptr && !avoid->empty() &&
                             (avoid->node_devices[n] != 0 || avoid->node_cpu_milli[n] != 0 ||
                              avoid->node_memory_mib[n] != 0);
  uint64_t capacity = request.task_count;
  if (shape.cpu_milli > 0) {
    int64_t free = state.free_cpu_milli(node_id);
    if (reserved_here) free -= avoid->node_cpu_milli[n];
    capacity = std::min<uint64_t>(capacity, free <= 0 ? 0 : free / shape.cpu_milli);
  }
  if (shape.memory_mib > 0) {
    int64_t free = state.free_memory_mib(node_id);
    if (reserved_here) free -= avoid->node_memory_mib[n];
    capacity = std::min<uint64_t>(capacity, free <= 0 ? 0 : free / shape.memory_mib);
  }
  if (shape.devices == 0 || capacity == 0) return static_cast<uint32_t>(capacity);

  const model::Cluster& cluster = state.cluster();
  const model::Node& node = cluster.node(node_id);
  const ClassMask& mask = *request.classes;
  if (!shape.fractional()) {
    uint64_t free = 0;
    if (reserved_here && avoid->node_devices[n] != 0) {
      for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
        if (mask.matches[cluster.devices()[d].device_class.value()] &&
            state.free_milli(DeviceId(d)) == model::kMilliPerDevice && !Reserved(avoid, d)) {
          ++free;
        }
      }
    } else {
      for (DeviceClassId device_class : mask.classes)
        free += state.whole_free(node_id, device_class);
    }
    return static_cast<uint32_t>(std::min<uint64_t>(capacity, free / shape.devices));
  }
  uint64_t shares = 0;
  for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
    if (mask.matches[cluster.devices()[d].device_class.value()] && !Reserved(avoid, d)) {
      shares += state.free_milli(DeviceId(d)) / shape.milli_per_device;
    }
  }
  return static_cast<uint32_t>(std::min<uint64_t>(capacity, shares));
}

uint64_t Placer::DomainBoundMilli(const ClusterState& state, DomainId domain,
                                  const PlacementRequest& request) {
  if (request.shape->devices == 0) return std::numeric_limits<uint64_t>::max();
  uint64_t bound = 0;
  for (DeviceClassId device_class : request.classes->classes) {
    bound += request.whole_devices()
                 ? uint64_t{state.domain_whole_free(domain, device_class)} * model::kMilliPerDevice
                 : state.domain_free_milli(domain, device_class);
  }
  return bound;
}

std::vector<TaskAllocation> AllocateOnNode(const ClusterState& state, NodeId node_id,
                                           const PlacementRequest& request, uint32_t tasks,
                                           const ReservedCapacity* avoid) {
  const model::Cluster& cluster = state.cluster();
  const model::Node& node = cluster.node(node_id);
  const model::TaskShape& shape = *request.shape;
  std::vector<TaskAllocation> allocations(tasks);
  for (TaskAllocation& task : allocations) {
    task.node = node_id;
    task.milli_per_device = shape.milli_per_device;
    task.cpu_milli = shape.cpu_milli;
    task.memory_mib = shape.memory_mib;
  }
  if (shape.devices == 0) return allocations;

  auto usable = [&](uint32_t d) {
    return request.classes->matches[cluster.devices()[d].device_class.value()] &&
           !Reserved(avoid, d);
  };
  if (!shape.fractional()) {
    uint32_t task = 0;
    for (uint32_t d = node.first_device; d < node.first_device + node.device_count && task < tasks;
         ++d) {
      if (!usable(d) || state.free_milli(DeviceId(d)) != model::kMilliPerDevice) continue;
      allocations[task].devices.push_back(DeviceId(d));
      if (allocations[task].devices.size() == shape.devices) ++task;
    }
    HR_CHECK(task == tasks);
    if (request.cap_rung != 0) {
      for (TaskAllocation& capped : allocations) {
        capped.power_cap_w = state.facility().CapW(
            cluster.device(capped.devices.front()).device_class, request.cap_rung);
      }
    }
    return allocations;
  }
  // Shares: each task on the device with the least free share that still holds it (best fit),
  // ties to the lower index.
  std::vector<uint32_t> free(node.device_count);
  for (uint32_t i = 0; i < node.device_count; ++i) {
    free[i] = state.free_milli(DeviceId(node.first_device + i));
  }
  for (TaskAllocation& task : allocations) {
    uint32_t best = node.device_count;
    for (uint32_t i = 0; i < node.device_count; ++i) {
      if (!usable(node.first_device + i) || free[i] < shape.milli_per_device) continue;
      if (best == node.device_count || free[i] < free[best]) best = i;
    }
    HR_CHECK(best < node.device_count);
    free[best] -= shape.milli_per_device;
    task.devices.push_back(DeviceId(node.first_device + best));
  }
  return allocations;
}

std::optional<NodeFilter::Overdraw> Placer::FirstOverdraw(
    const ClusterState& state, std::span<const TaskAllocation> gang) const {
  for (const NodeFilter* filter : budget_filters_) {
    if (auto over = filter->Overdraws(state, gang)) return over;
  }
  return std::nullopt;
}

std::optional<std::vector<TaskAllocation>> Placer::Place(ClusterState& state,
                                                         const PlacementRequest& request,
                                                         const ReservedCapacity* avoid) const {
  std::optional<std::vector<TaskAllocation>> found = PlaceOnce(state, request, avoid);
  if (!found || budget_filters_.empty() || request.ignore_budgets) return found;
  std::vector<uint8_t> excluded;
  PlacementRequest narrowed = request;
  for (uint32_t retry = 0;; ++retry) {
    const std::optional<NodeFilter::Overdraw> over = FirstOverdraw(state, *found);
    if (!over) return found;
    if (retry == kMaxBudgetRetries) return std::nullopt;
    if (excluded.empty()) {
      excluded = request.excluded_elements != nullptr
                     ? *request.excluded_elements
                     : std::vector<uint8_t>(state.facility().size(), 0);
      narrowed.excluded_elements = &excluded;
    }
    HR_CHECK(excluded[over->element] == 0);  // The node filter keeps a set-aside element out.
    excluded[over->element] = 1;
    found = PlaceOnce(state, narrowed, avoid);
    if (!found) return std::nullopt;
  }
}

std::optional<NodeFilter::Overdraw> Placer::BudgetBlock(ClusterState& state,
                                                        const PlacementRequest& request,
                                                        const ReservedCapacity* avoid) const {
  if (budget_filters_.empty()) return std::nullopt;
  PlacementRequest unlimited = request;
  unlimited.ignore_budgets = true;
  const std::optional<std::vector<TaskAllocation>> found = PlaceOnce(state, unlimited, avoid);
  if (!found) return std::nullopt;
  return FirstOverdraw(state, *found);
}

std::optional<std::vector<TaskAllocation>> Placer::PlaceOnce(ClusterState& state,
                                                             const PlacementRequest& request,
                                                             const ReservedCapacity* avoid) const {
  HR_CHECK(request.shape != nullptr && request.classes != nullptr && request.task_count > 0);
  if (request.shape->devices > 0 && request.classes->classes.empty()) return std::nullopt;
  const DomainId root(0);
  if (DomainBoundMilli(state, root, request) < request.milli()) return std::nullopt;
  if (request.spread != nullptr && request.task_count == 1) {
    return PlaceSpread(state, request, avoid);
  }
  if (options_.gang == GangPlacement::kTopologyBlock) return PlaceBlock(state, request, avoid);
  if (request.required_level == kNoLevel && request.preferred_level == kNoLevel) {
    return PlacePerTask(state, request, avoid, root);
  }
  return PlacePerTaskInLevel(state, request, avoid);
}

std::optional<std::vector<TaskAllocation>> Placer::PlacePerTaskInLevel(
    ClusterState& state, const PlacementRequest& request, const ReservedCapacity* avoid) const {
  const model::Cluster& cluster = state.cluster();
  const uint32_t deepest = cluster.deepest_level();
  const uint32_t stop =
      request.required_level == kNoLevel ? 0 : std::min(request.required_level, deepest);
  uint32_t start = request.preferred_level == kNoLevel ? stop : request.preferred_level;
  start = std::clamp(start, stop, deepest);
  std::vector<Candidate> candidates;
  for (int level = static_cast<int>(start); level >= static_cast<int>(stop); --level) {
    CandidatesAt(state, request, static_cast<uint32_t>(level), options_.domain_order, candidates);
    std::sort(candidates.begin(), candidates.end());
    for (const Candidate& candidate : candidates) {
      // Identical tasks go one by one to nodes with room, so the gang fits in a domain exactly
      // when the domain's nodes together take task_count tasks.
      if (!AdmitsInDomain(state, DomainId(candidate.id), request)) continue;
      const model::Domain& domain = cluster.domain(DomainId(candidate.id));
      uint64_t tasks = 0;
      for (uint32_t n = domain.node_begin; n < domain.node_end && tasks < request.task_count; ++n) {
        tasks += NodeCapacity(state, NodeId(n), request, avoid);
      }
      if (tasks < request.task_count) continue;
      return PlacePerTask(state, request, avoid, DomainId(candidate.id));
    }
  }
  return std::nullopt;
}

std::optional<std::vector<TaskAllocation>> Placer::PlacePerTask(ClusterState& state,
                                                                const PlacementRequest& request,
                                                                const ReservedCapacity* avoid,
                                                                DomainId scope) const {
  const model::Cluster& cluster = state.cluster();
  PlacementRequest one = request;
  one.task_count = 1;
  const uint64_t one_milli = one.milli();
  // The deepest-level domains inside the scope: a contiguous run, as domains follow node order.
  const model::Domain& scope_domain = cluster.domain(scope);
  const std::vector<DomainId>& leaves = cluster.domains_at_level(cluster.deepest_level());
  const auto first_leaf = std::lower_bound(
      leaves.begin(), leaves.end(), scope_domain.node_begin,
      [&](DomainId leaf, uint32_t node) { return cluster.domain(leaf).node_begin < node; });
  std::vector<TaskAllocation> result;
  result.reserve(request.task_count);
  const ClusterState::Speculation speculation(state);
  for (uint32_t t = 0; t < request.task_count; ++t) {
    NodeId best;
    double best_score = 0;
    for (auto leaf = first_leaf;
         leaf != leaves.end() && cluster.domain(*leaf).node_begin < scope_domain.node_end; ++leaf) {
      const DomainId domain = *leaf;
      if (DomainBoundMilli(state, domain, one) < one_milli) continue;
      const model::Domain& d = cluster.domain(domain);
      for (uint32_t n = d.node_begin; n < d.node_end; ++n) {
        if (NodeCapacity(state, NodeId(n), one, avoid) == 0) continue;
        if (first_fit_only_) {
          best = NodeId(n);
          break;
        }
        const double score = ScoreNode(state, NodeId(n), one, 1, options_.scorers);
        if (!best.valid() || score > best_score) {
          best = NodeId(n);
          best_score = score;
        }
      }
      if (first_fit_only_ && best.valid()) break;
    }
    if (!best.valid()) return std::nullopt;
    std::vector<TaskAllocation> task = AllocateOnNode(state, best, one, 1, avoid);
    state.Allocate(task[0]);
    result.push_back(std::move(task[0]));
  }
  return result;
}

// Working memory of one block search: per-node task capacities of the domain being filled.
struct Placer::Search {
  const ClusterState& state;
  const PlacementRequest& request;
  const ReservedCapacity* avoid;
  const Placer& placer;
  const PlacementOptions& options;
  std::vector<std::pair<NodeId, uint32_t>> chosen;  // (node, tasks)

  uint32_t Capacity(NodeId node) const { return placer.NodeCapacity(state, node, request, avoid); }

  // Tasks the domain's nodes hold, counted in node order until `cap`. A child domain that
  // cannot hold one task by the per-domain free index is skipped whole (its nodes would each
  // count 0), so that on a full building a search of a large domain visits only the nodes
  // that have room.
  uint64_t DomainCapacity(DomainId domain_id, uint64_t cap) const {
    const model::Domain& domain = state.cluster().domain(domain_id);
    uint64_t total = 0;
    if (domain.children.empty()) {  // Nodes sit only in the deepest level's domains.
      for (uint32_t n = domain.node_begin; n < domain.node_end && total < cap; ++n) {
        total += Capacity(NodeId(n));
      }
      return total;
    }
    PlacementRequest one = request;
    one.task_count = 1;
    const uint64_t one_milli = one.milli();
    for (DomainId child : domain.children) {
      if (total >= cap) break;
      if (Placer::DomainBoundMilli(state, child, one) < one_milli) continue;
      total += DomainCapacity(child, cap - total);
    }
    return total;
  }

  // Places `tasks` tasks inside `domain_id`, which must hold them.
  void Fill(DomainId domain_id, uint32_t tasks) {
    const model::Cluster& cluster = state.cluster();
    const model::Domain& domain = cluster.domain(domain_id);
    if (domain.children.empty()) {
      FillNodes(NodeOptions(domain), tasks);
      return;
    }
    std::vector<std::pair<DomainId, uint64_t>> children;
    for (DomainId child : domain.children) {
      const uint64_t capacity = DomainCapacity(child, UINT64_MAX);
      if (capacity > 0) children.push_back({child, capacity});
    }
    uint32_t remaining = tasks;
    while (remaining > 0) {
      HR_CHECK(!children.empty());
      // A single child that holds the rest, chosen by the policy's order.
      size_t pick = children.size();
      for (size_t i = 0; i < children.size(); ++i) {
        if (children[i].second < remaining) continue;
        if (pick == children.size() ||
            Candidate{OrderKey(options.domain_order, children[i].second, i), 0} <
                Candidate{OrderKey(options.domain_order, children[pick].second, pick), 0}) {
          pick = i;
        }
      }
      if (pick < children.size()) {
        Fill(children[pick].first, remaining);
        return;
      }
      // Otherwise the largest child, to span as few domains as possible.
      size_t largest = 0;
      for (size_t i = 1; i < children.size(); ++i) {
        if (children[i].second > children[largest].second) largest = i;
      }
      const uint32_t take = static_cast<uint32_t>(children[largest].second);
      Fill(children[largest].first, take);
      remaining -= take;
      children.erase(children.begin() + static_cast<std::ptrdiff_t>(largest));
    }
  }

  struct NodeOption {
    NodeId node;
    uint32_t capacity;
  };

  // The devices of the chosen nodes, picked node by node inside a rolled-back mark of `scratch`
  // (the searched state), so that two entries for one node never pick the same devices.
  std::vector<TaskAllocation> Allocate(ClusterState& scratch) const {
    std::vector<TaskAllocation> result;
    result.reserve(request.task_count);
    const ClusterState::Speculation speculation(scratch);
    for (const auto& [node, tasks] : chosen) {
      for (TaskAllocation& task : AllocateOnNode(scratch, node, request, tasks, avoid)) {
        scratch.Allocate(task);
        result.push_back(std::move(task));
      }
    }
    return result;
  }

  // The nodes of a leaf domain with room for some tasks, and how many each takes.
  std::vector<NodeOption> NodeOptions(const model::Domain& leaf) const {
    std::vector<NodeOption> nodes;
    for (uint32_t n = leaf.node_begin; n < leaf.node_end; ++n) {
      const uint32_t capacity = Capacity(NodeId(n));
      if (capacity > 0) nodes.push_back({NodeId(n), capacity});
    }
    return nodes;
  }

  // Places `tasks` tasks on `nodes` (NodeOptions of one leaf), which must hold them.
  void FillNodes(std::vector<NodeOption> nodes, uint32_t tasks) {
    uint32_t remaining = tasks;
    while (remaining > 0) {
      HR_CHECK(!nodes.empty());
      size_t pick = nodes.size();
      double pick_score = 0;
      for (size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].capacity < remaining) continue;
        const double score = ScoreNode(state, nodes[i].node, request, remaining, options.scorers);
        if (pick == nodes.size() || score > pick_score) {
          pick = i;
          pick_score = score;
        }
      }
      if (pick < nodes.size()) {
        chosen.push_back({nodes[pick].node, remaining});
        return;
      }
      size_t largest = 0;
      for (size_t i = 1; i < nodes.size(); ++i) {
        if (nodes[i].capacity > nodes[largest].capacity) largest = i;
      }
      chosen.push_back({nodes[largest].node, nodes[largest].capacity});
      remaining -= nodes[largest].capacity;
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(largest));
    }
  }
};

std::optional<std::vector<TaskAllocation>> Placer::PlaceSpread(
    ClusterState& state, const PlacementRequest& request, const ReservedCapacity* avoid) const {
  const model::Cluster& cluster = state.cluster();
  std::vector<Candidate> candidates;
  CandidatesAt(state, request, cluster.deepest_level(), options_.domain_order, candidates);
  // Fewest of the group's tasks first, then the policy's fit order.
  std::vector<std::pair<uint32_t, Candidate>> ranked;
  ranked.reserve(candidates.size());
  for (const Candidate& candidate : candidates) {
    ranked.push_back(
        {request.spread->TasksIn(request.spread_group, DomainId(candidate.id)), candidate});
  }
  std::sort(ranked.begin(), ranked.end());
  Search search{state, request, avoid, *this, options_, {}};
  for (const auto& entry : ranked) {
    std::vector<Search::NodeOption> nodes =
        search.NodeOptions(cluster.domain(DomainId(entry.second.id)));
    if (nodes.empty()) continue;
    search.FillNodes(std::move(nodes), 1);
    return search.Allocate(state);
  }
  return std::nullopt;
}

std::optional<std::vector<TaskAllocation>> Placer::PlaceBlock(ClusterState& state,
                                                              const PlacementRequest& request,
                                                              const ReservedCapacity* avoid) const {
  const model::Cluster& cluster = state.cluster();
  Search search{state, request, avoid, *this, options_, {}};
  // Fills `domain` if it holds the gang.
  auto try_domain = [&](DomainId domain) -> std::optional<std::vector<TaskAllocation>> {
    const model::Domain& d = cluster.domain(domain);
    if (d.children.empty()) {
      // A leaf: its nodes' capacities are asked once, for the check and for the fill.
      std::vector<Search::NodeOption> nodes = search.NodeOptions(d);
      uint64_t capacity = 0;
      for (const Search::NodeOption& node : nodes) capacity += node.capacity;
      if (capacity < request.task_count) return std::nullopt;
      search.FillNodes(std::move(nodes), request.task_count);
    } else {
      if (search.DomainCapacity(domain, request.task_count) < request.task_count) {
        return std::nullopt;
      }
      search.Fill(domain, request.task_count);
    }
    return search.Allocate(state);
  };
  // Whole devices of one class, best or worst fit: the candidates in order come from the
  // state's index instead of a scan of every domain of the level (the same domains in the same
  // order: ClusterState promise 4).
  const bool indexed = request.whole_devices() && request.classes->classes.size() == 1 &&
                       options_.domain_order != FitOrder::kFirstFit;
  std::vector<Candidate> candidates;
  if (!indexed) candidates.reserve(cluster.domains_at_level(cluster.deepest_level()).size());
  // A required level is the highest the gang may span; stated levels are searched in full.
  const int stop =
      request.required_level == kNoLevel
          ? 0
          : static_cast<int>(std::min(request.required_level, cluster.deepest_level()));
  for (int level = static_cast<int>(cluster.deepest_level()); level >= stop; --level) {
    const bool stated = level == stop || static_cast<uint32_t>(level) == request.preferred_level;
    const size_t budget = stated ? SIZE_MAX : options_.domains_tried_per_level;
    if (indexed) {
      std::optional<std::vector<TaskAllocation>> result;
      size_t tried = 0;
      const auto min_whole = static_cast<uint32_t>(request.milli() / model::kMilliPerDevice);
      state.VisitByWholeFree(static_cast<uint32_t>(level), request.classes->classes.front(),
                             min_whole, options_.domain_order == FitOrder::kWorstFit,
                             [&](DomainId domain) {
                               if (tried++ == budget) return false;
                               // A domain the building's budget rules out costs no search.
                               if (!AdmitsInDomain(state, domain, request)) return true;
                               result = try_domain(domain);
                               return !result.has_value();
                             });
      if (result) return result;
      continue;
    }
    CandidatesAt(state, request, static_cast<uint32_t>(level), options_.domain_order, candidates);
    // Selection instead of sorting: the first candidate usually fits, so finding the next best
    // one on demand costs O(candidates) per try rather than a sort of all of them.
    for (size_t i = 0; i < std::min(budget, candidates.size()); ++i) {
      const auto next = candidates.begin() + static_cast<std::ptrdiff_t>(i);
      std::iter_swap(next, std::min_element(next, candidates.end()));
      if (!AdmitsInDomain(state, DomainId(candidates[i].id), request)) continue;
      if (auto result = try_domain(DomainId(candidates[i].id))) return result;
    }
  }
  return std::nullopt;
}

}  // namespace headroom::engine
