// Hot spares (recovery.hot_spares): in every domain at the policy's spare level, a few idle
// nodes kept out of new work for the jobs faults requeue. Without them a large job that loses a
// node waits for that node's repair (days, as StepFun's were) or for other work to end before
// it has the node it lacks; with one in its fabric block it restarts at once, one hop from the
// rest of its gang.
//
// A spare's devices are withdrawn (ClusterState rule 5), so no start, move, growth, reservation
// or preemption search uses them, and a job a fault requeued sees them only when it fits
// nowhere else (PlaceAt). KeepSpares runs once a step, after its events and before its pass: a
// node that work frees in a domain short of spares becomes one before the queue sees it. A
// domain is scanned for idle nodes only when its free devices grew since it last found none
// (a node freed of CPU-only work alone waits for the domain's next release); the highest idle
// node is taken, leaving the low end of the domain to the placer's packing.
#include <algorithm>

#include "base/check.h"
#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

bool Engine::Idle(NodeId id) const {
  const model::Node& node = cluster_.node(id);
  if (node.device_count == 0 || state_.drained(id) || state_.free_cpu_milli(id) != node.cpu_milli ||
      state_.free_memory_mib(id) != node.memory_mib) {
    return false;
  }
  for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
    const DeviceId device(d);
    if (state_.withdrawn(device) || state_.free_milli(device) != model::kMilliPerDevice) {
      return false;
    }
  }
  return true;
}

size_t Engine::SpareDomainIndex(NodeId node) const {
  const std::vector<DomainId>& domains = cluster_.domains_at_level(spare_level_);
  const DomainId domain = cluster_.AncestorAt(node, spare_level_);
  const auto at = std::lower_bound(domains.begin(), domains.end(), domain);
  HR_CHECK(at != domains.end() && *at == domain);
  return static_cast<size_t>(at - domains.begin());
}

void Engine::SetNodeWithdrawn(NodeId id, bool withdrawn) {
  const model::Node& node = cluster_.node(id);
  for (uint32_t d = node.first_device; d < node.first_device + node.device_count; ++d) {
    state_.SetWithdrawn(DeviceId(d), withdrawn);
  }
}

bool Engine::SeesSpares(const JobRecord& r) const {
  return r.requeued_by_fault && spare_count_ > 0;
}

void Engine::KeepSpares() {
  const uint32_t wanted = policy_.recovery.spare_nodes;
  if (wanted == 0) return;
  const std::vector<DomainId>& domains = cluster_.domains_at_level(spare_level_);
  bool kept = false;
  for (size_t i = 0; i < domains.size(); ++i) {
    if (spares_in_domain_[i] >= wanted) continue;
    uint64_t free_milli = 0;
    for (uint32_t c = 0; c < state_.class_count(); ++c) {
      free_milli += state_.domain_free_milli(domains[i], DeviceClassId(c));
    }
    if (free_milli <= spare_scan_free_milli_[i]) {
      spare_scan_free_milli_[i] = free_milli;
      continue;
    }
    const model::Domain& domain = cluster_.domain(domains[i]);
    for (uint32_t n = domain.node_end; n-- > domain.node_begin && spares_in_domain_[i] < wanted;) {
      const NodeId node(n);
      if (spare_node_[n] != 0 || !Idle(node)) continue;
      spare_node_[n] = 1;
      ++spares_in_domain_[i];
      ++spare_count_;
      SetNodeWithdrawn(node, true);
      free_milli -= uint64_t{cluster_.node(node).device_count} * model::kMilliPerDevice;
      kept = true;
    }
    // What is free now holds no idle node (or the domain has its spares): scan again when more is.
    spare_scan_free_milli_[i] = free_milli;
  }
  // A reservation may have counted on the devices set aside.
  if (kept) reservation_stale_ = true;
}

void Engine::ForgetSpare(NodeId node) {
  if (!spare(node)) return;
  const size_t i = SpareDomainIndex(node);
  spare_node_[node.value()] = 0;
  --spares_in_domain_[i];
  --spare_count_;
  SetNodeWithdrawn(node, false);
  // The domain is short again: its next release may bring a spare.
  spare_scan_free_milli_[i] = 0;
  ++release_epoch_;
  reservation_stale_ = true;
  dirty_ = true;
}

}  // namespace headroom::engine
