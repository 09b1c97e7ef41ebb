// Filter role: may this node take tasks of this request at all? The placer asks every filter
// of the policy before it counts a node's free capacity, and Explain counts the nodes each
// filter turned away. Filters see the node, not how much of it is free: capacity (CPU, memory,
// free devices of a matching class, reservations) is the placer's own arithmetic.
//
// The contract every filter keeps (tests/engine/filter_contract_test.cc runs it over each
// registered one): a pure function of the state, node and request (the same inputs give the
// same answer, and asking changes nothing); no placement ever puts a task on a node a filter
// of the policy rejects. A mandatory filter runs under every policy, listed or not: without it
// the engine's own books would be wrong (a drained node is outside the free aggregates).
//
// The built-in filters, one file each under filters/:
//  drained          The node is not drained (by an operator, or by its agent's health check).
//  device_selector  The node has a device whose class the request's selector accepts (CPU-only
//                   requests pass everywhere).
//  facility         Every power domain and cooling zone over the node has the headroom for one
//                   more task: its projected load (facility_ledger.h) plus the task's draw stays
//                   within its limit now less the policy's margin.
//  power_budget     Every power domain over the node has the budget for one more task at its
//                   devices' nominal power (Slurm's hierarchical resources, MODE_3).
//
// A budget filter (facility, power_budget) limits what nodes share: beyond one task per node, the
// placer asks it about each whole gang it finds (Overdraws) and searches again with the element
// it names set aside (PlacementRequest::excluded_elements), so no gang takes an element past it.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "engine/cluster_state.h"
#include "engine/registry.h"
#include "engine/request.h"

namespace headroom::engine {

class NodeFilter {
 public:
  virtual ~NodeFilter() = default;
  virtual std::string_view name() const = 0;
  // What a rejected node is, for "of 1,250 nodes: 200 <rejects>" ("drained").
  virtual std::string_view rejects() const = 0;
  virtual bool mandatory() const { return false; }
  virtual bool Admits(const ClusterState& state, NodeId node,
                      const PlacementRequest& request) const = 0;

  // A budget filter: the first element of the state's facility ledger that `gang` (not yet
  // allocated) would take past its budget, and by how much; nullopt when none. Others: nullopt.
  struct Overdraw {
    uint32_t element = 0;
    int64_t over_mw = 0;
  };
  virtual bool budget() const { return false; }
  // A budget filter: whether the whole gang placed anywhere inside `domain` could keep within
  // the budget of every element over all of it (a necessary condition, cheap: the placer asks
  // it before searching the domain's nodes). Others: true.
  virtual bool AdmitsInDomain(const ClusterState& /*state*/, DomainId /*domain*/,
                              const PlacementRequest& /*request*/) const {
    return true;
  }
  virtual std::optional<Overdraw> Overdraws(const ClusterState& /*state*/,
                                            std::span<const TaskAllocation> /*gang*/) const {
    return std::nullopt;
  }
};

// Every built-in filter, by name.
const Registry<NodeFilter>& Filters();

// The filters a policy runs: every mandatory one, then those `names` adds, in registry order,
// each once. Unknown names are errors.
Result<std::vector<std::shared_ptr<const NodeFilter>>> PolicyFilters(
    const std::vector<std::string>& names);

}  // namespace headroom::engine
