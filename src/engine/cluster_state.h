// ClusterState: the mutable side of the cluster — what is free, where. The topology itself
// (model::Cluster) is immutable and shared; this keeps flat arrays beside it and updates
// aggregates incrementally, so a query about a domain costs O(1) and an allocation costs
// O(devices touched + depth of the tree).
//
// Transactions: Mark() returns a point in the undo log; RollbackTo(mark) undoes every change
// made since, exactly; Commit(mark) keeps them. Placement, reservations, defragmentation and
// the start plan search speculatively inside a Speculation, which rolls back when its scope
// ends (STYLE.md §3).
//
// Invariants (CheckInvariants verifies them from scratch):
//  1. 0 <= free milli of a device <= 1000; free cpu/memory of a node within [0, capacity].
//  2. whole_free(node, class) = number of that node's devices of that class with 1000 free.
//  3. Domain aggregates = sums over the domain's non-drained nodes.
//  5. A withdrawn device (its health keeps new work off it) shows no free milli; what its
//     running work releases is held, not freed, until the device is returned:
//     free + held + milli held by running work = 1000 for every device.
//  4. VisitByWholeFree visits exactly the domains a scan of domain_whole_free would pick, in the
//     same order (tests/engine/cluster_state_test.cc checks it against such a scan).
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <functional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "base/ids.h"
#include "engine/decision.h"
#include "engine/facility_ledger.h"
#include "model/cluster.h"

namespace headroom::engine {

class ClusterState {
 public:
  explicit ClusterState(const model::Cluster& cluster);

  const model::Cluster& cluster() const { return *cluster_; }
  uint32_t class_count() const { return class_count_; }

  uint32_t free_milli(DeviceId device) const { return device_free_milli_[device.value()]; }
  int64_t free_cpu_milli(NodeId node) const { return node_free_cpu_[node.value()]; }
  int64_t free_memory_mib(NodeId node) const { return node_free_memory_[node.value()]; }
  bool drained(NodeId node) const { return node_drained_[node.value()] != 0; }
  bool withdrawn(DeviceId device) const { return device_withdrawn_[device.value()] != 0; }
  // Of a withdrawn device, the milli no running work holds (0 for others).
  uint32_t held_milli(DeviceId device) const { return device_held_milli_[device.value()]; }
  // What work already placed on the device may take again where it is (restored after a
  // rebuild, or reprieved after a speculative release): its free milli, or what a withdrawn
  // device holds back.
  uint32_t milli_in_place(DeviceId device) const {
    return device_free_milli_[device.value()] + device_held_milli_[device.value()];
  }
  // The power limit the work on a whole device runs it under, watts (TaskAllocation::power_cap_w);
  // 0: its default, or not held whole.
  uint32_t power_cap_w(DeviceId device) const { return device_cap_w_[device.value()]; }
  // Grows whenever anything of the node changes (an allocation, a release, a drain, or the
  // undoing of one), so a cache of a per-node computation stays valid while it is unchanged.
  uint64_t node_version(NodeId node) const { return node_version_[node.value()]; }
  uint32_t whole_free(NodeId node, DeviceClassId device_class) const {
    return node_whole_free_[Index(node.value(), device_class.value())];
  }
  // Devices of the class the node has, free or not; fixed.
  uint32_t class_devices(NodeId node, DeviceClassId device_class) const {
    return node_class_devices_[Index(node.value(), device_class.value())];
  }
  // Over the domain's schedulable (non-drained) nodes.
  uint32_t domain_whole_free(DomainId domain, DeviceClassId device_class) const {
    return domain_whole_free_[Index(domain.value(), device_class.value())];
  }
  uint64_t domain_free_milli(DomainId domain, DeviceClassId device_class) const {
    return domain_free_milli_[Index(domain.value(), device_class.value())];
  }

  // The domains at `level` with at least `min_whole` whole free devices of `device_class`, in
  // best-fit order (fewest first) or, with `most_first`, worst-fit order (most first); ties by
  // ascending id. Stops when `visit` returns false. The state must not change while it runs.
  // Costs O(log domains + visited) plus O(log domains) per domain changed since the last call:
  // an index of the level is built at its first call (O(domains log domains)) and kept up to
  // date lazily, so that placing one task on a building of 12,500 nodes does not read all of
  // them (the placer's candidate scan did).
  void VisitByWholeFree(uint32_t level, DeviceClassId device_class, uint32_t min_whole,
                        bool most_first, const std::function<bool(DomainId)>& visit) const;

  // Devices in the domain (drained or not); fixed.
  uint32_t domain_device_capacity(DomainId domain) const {
    return domain_device_capacity_[domain.value()];
  }
  uint64_t capacity_milli() const { return capacity_milli_; }
  uint64_t allocated_milli() const { return allocated_milli_; }

  // What placements put on the building's power domains and cooling zones (facility_ledger.h).
  const FacilityLedger& facility() const { return facility_; }
  // An element's limit now (a FacilityLimit event). Not undone by RollbackTo: no search
  // changes a limit.
  void SetFacilityLimit(uint32_t element, int64_t limit_mw) {
    facility_.SetLimit(element, limit_mw);
  }
  void SetFacilityMargin(double share) { facility_.SetMargin(share); }

  void Allocate(const TaskAllocation& task);
  void Release(const TaskAllocation& task);
  void SetDrained(NodeId node, bool drained);
  void SetWithdrawn(DeviceId device, bool withdrawn);

  using Mark = size_t;
  Mark mark() const { return undo_log_.size(); }
  // A speculative search: everything changed while it lives is undone when it ends, on every
  // path out of the scope (the mark/rollback pair written once).
  class Speculation {
   public:
    explicit Speculation(ClusterState& state) : state_(state), mark_(state.mark()) {}
    ~Speculation() { state_.RollbackTo(mark_); }
    Speculation(const Speculation&) = delete;
    Speculation& operator=(const Speculation&) = delete;

   private:
    ClusterState& state_;
    Mark mark_;
  };
  void RollbackTo(Mark mark);
  // Forgets the undo records after `mark` (they can no longer be rolled back). Commit(0)
  // empties the log; the engine does so at the end of every step.
  void Commit(Mark mark);

  // Returns an empty string when every invariant holds, else a description of the first
  // violation. Costs O(devices); for tests and the simulator's paranoid mode.
  std::string CheckInvariants() const;

 private:
  struct UndoRecord {
    enum class Kind : uint8_t { kAllocate, kRelease, kDrain, kWithdraw } kind;
    TaskAllocation task;            // For allocate/release.
    NodeId node;                    // For drain.
    bool previous_drained = false;  // For drain and withdraw.
    DeviceId device;                // For withdraw.
  };

  size_t Index(uint32_t entity, uint32_t device_class) const {
    return static_cast<size_t>(entity) * class_count_ + device_class;
  }
  void Apply(const TaskAllocation& task, int sign);
  void ApplyDrain(NodeId node, bool drained);
  void ApplyWithdraw(DeviceId device, bool withdrawn);
  // Adds the deltas of one device class to the aggregates of the domains above `node`.
  void AddToAncestors(NodeId node, uint32_t device_class, int whole_delta, int64_t milli_delta);
  // Adds `sign` × the node's free capacity to its ancestors' aggregates.
  void AddNodeToAggregates(NodeId node, int sign);
  // domain_whole_free_[i] changed: the index, if any level has one, catches up at its next use.
  void WholeFreeChanged(size_t i) {
    if (indexing_ && index_dirty_flag_[i] == 0) {
      index_dirty_flag_[i] = 1;
      index_dirty_.push_back(i);
    }
  }
  void SyncIndex() const;

  const model::Cluster* cluster_;
  uint32_t class_count_ = 0;
  std::vector<uint16_t> device_free_milli_;
  std::vector<uint8_t> device_withdrawn_;
  std::vector<uint16_t> device_held_milli_;
  std::vector<uint32_t> device_cap_w_;
  std::vector<int64_t> node_free_cpu_;
  std::vector<int64_t> node_free_memory_;
  std::vector<uint8_t> node_drained_;
  std::vector<uint64_t> node_version_;
  std::vector<uint32_t> node_whole_free_;
  std::vector<uint32_t> node_class_devices_;
  std::vector<uint32_t> domain_whole_free_;
  std::vector<uint64_t> domain_free_milli_;
  std::vector<uint32_t> domain_device_capacity_;
  uint64_t capacity_milli_ = 0;
  uint64_t allocated_milli_ = 0;
  FacilityLedger facility_;
  std::vector<UndoRecord> undo_log_;

  // VisitByWholeFree's index: per (level, class), the level's domains ordered by (whole free,
  // id), with the value each is filed under; entries changed since are listed in index_dirty_.
  struct LevelIndex {
    bool built = false;
    std::set<std::pair<uint32_t, uint32_t>> by_whole_free;
  };
  mutable bool indexing_ = false;
  mutable std::vector<LevelIndex> index_;        // By level * class_count_ + class.
  mutable std::vector<uint32_t> indexed_whole_;  // By Index(domain, class).
  mutable std::vector<uint8_t> index_dirty_flag_;
  mutable std::vector<size_t> index_dirty_;
};

}  // namespace headroom::engine
