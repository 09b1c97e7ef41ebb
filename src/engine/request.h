// PlacementRequest: one gang as placement sees it — the task shape, how many tasks, which
// device classes its selector accepts (evaluated once per class, not per device), and the
// fabric levels it requires or prefers to stay inside (indices into the cluster's levels, root
// = 0; kNoLevel when not stated).
// SpreadCounts: how many tasks of each spread group run in each failure domain.
// ReservedCapacity: devices, CPU and memory promised to a reserved job; placements for work
// that would still run at the reservation's start must avoid them.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "base/ids.h"
#include "model/job.h"

namespace headroom::engine {

struct ClassMask {
  std::vector<uint8_t> matches;        // Indexed by device class id.
  std::vector<DeviceClassId> classes;  // The matching ones, ascending.
};

inline constexpr uint32_t kNoLevel = UINT32_MAX;

// Where the gangs of each spread group run: tasks per failure domain (a deepest-level domain).
class SpreadCounts {
 public:
  uint32_t TasksIn(uint32_t group, DomainId domain) const {
    const auto it = tasks_.find(Key(group, domain));
    return it == tasks_.end() ? 0 : it->second;
  }
  void Add(uint32_t group, DomainId domain, int delta);
  friend bool operator==(const SpreadCounts&, const SpreadCounts&) = default;

 private:
  static uint64_t Key(uint32_t group, DomainId domain) {
    return (uint64_t{group} << 32) | domain.value();
  }
  std::unordered_map<uint64_t, uint32_t> tasks_;
};

struct PlacementRequest {
  const model::TaskShape* shape = nullptr;
  uint32_t task_count = 1;
  const ClassMask* classes = nullptr;
  uint32_t required_level = kNoLevel;   // The gang inside one domain of this level, or no fit.
  uint32_t preferred_level = kNoLevel;  // Tried first; then each level above it in turn.
  // A one-task gang of a spread group goes to the failure domain with fewest of its group's
  // tasks (model::Job::spread_group); null: not spread.
  const SpreadCounts* spread = nullptr;
  uint32_t spread_group = 0;
  // By facility element (facility_ledger.h): 1 sets its nodes aside, the placer's answer to a
  // gang that overdraws it (filter.h); null: none.
  const std::vector<uint8_t>* excluded_elements = nullptr;
  // Budget filters admit every node: would the gang fit were the building no limit? (Explain.)
  bool ignore_budgets = false;
  // Its whole devices capped at this rung of the cap ladder (FacilityLedger::CapW); 0: not.
  uint32_t cap_rung = 0;

  bool whole_devices() const { return shape->devices > 0 && !shape->fractional(); }
  // Device demand in milli-devices (0 for CPU-only).
  uint64_t milli() const { return uint64_t{task_count} * shape->devices * shape->milli_per_device; }
};

struct ReservedCapacity {
  std::vector<uint8_t> device_reserved;  // By device id.
  std::vector<uint16_t> node_devices;    // Reserved devices per node.
  std::vector<int64_t> node_cpu_milli;   // Reserved CPU per node.
  std::vector<int64_t> node_memory_mib;  // Reserved memory per node.
  std::vector<uint32_t> touched_nodes;   // Nodes with any reservation, for cheap clearing.
  std::vector<uint32_t> touched_devices;

  void Resize(size_t nodes, size_t devices);
  void Clear();
  void Reserve(NodeId node, const std::vector<DeviceId>& devices, int64_t cpu_milli,
               int64_t memory_mib);
  bool empty() const { return touched_nodes.empty(); }
};

}  // namespace headroom::engine
