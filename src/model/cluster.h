// Cluster: the building as the scheduler sees it — an immutable topology tree of fabric
// domains (e.g. cluster → spine pod → leaf → rack/NVLink domain), nodes at its leaves, devices
// on nodes, device classes (devices with identical attributes share one), and the facility
// (cooling and power limits) that later stages use.
//
// Invariants (established by ClusterBuilder::Build, relied upon everywhere):
//  1. Domain 0 is the root, at level 0; a domain's children are at level + 1; every domain at
//     the deepest level (`domain_levels() - 1`) holds nodes directly, no other domain does.
//  2. Nodes are numbered in depth-first order of the tree, so every domain covers a contiguous
//     node range [node_begin, node_end); likewise a node's devices are a contiguous range.
//  3. Names of nodes are unique; names of domains are unique.
// Threading: immutable after Build; share freely.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/ids.h"
#include "model/attributes.h"

namespace headroom::model {

struct DeviceClass {
  DeviceClassId id;
  // Includes "model" (string) and "memory_gib" (number) when known, plus any other keys.
  Attributes attributes;
  std::string model;  // Duplicated from attributes for display; may be empty.
};

struct Device {
  NodeId node;
  DeviceClassId device_class;
  uint32_t index_on_node = 0;  // As the node numbers it (CUDA_VISIBLE_DEVICES order).
};

struct Node {
  NodeId id;
  std::string name;
  DomainId domain;  // The deepest-level domain holding this node.
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  uint32_t first_device = 0;  // Devices [first_device, first_device + device_count).
  uint32_t device_count = 0;
};

struct Domain {
  DomainId id;
  std::string name;
  uint32_t level = 0;
  DomainId parent;  // Invalid for the root.
  std::vector<DomainId> children;
  uint32_t node_begin = 0;  // Nodes [node_begin, node_end).
  uint32_t node_end = 0;
};

// Facility limits, named after the topology domains they cover. Later stages (thermal and
// power headroom) read these; the loader validates them now so configurations stay honest.
struct CoolingZone {
  std::string name;
  DomainId domain;  // The topology domain (usually a rack) this cooling serves.
  int64_t cooling_capacity_w = 0;
};

struct PowerDomain {
  std::string name;
  std::vector<DomainId> domains;  // Topology domains fed by this power domain.
  int64_t limit_w = 0;
  std::string parent;  // Name of the enclosing power domain (feed → PDU → row), or empty.
};

struct Facility {
  std::vector<CoolingZone> cooling_zones;
  std::vector<PowerDomain> power_domains;
};

class Cluster {
 public:
  const std::vector<std::string>& level_names() const { return level_names_; }
  uint32_t domain_levels() const { return static_cast<uint32_t>(level_names_.size()); }
  uint32_t deepest_level() const { return domain_levels() - 1; }

  const std::vector<Domain>& domains() const { return domains_; }
  const std::vector<Node>& nodes() const { return nodes_; }
  const std::vector<Device>& devices() const { return devices_; }
  const std::vector<DeviceClass>& device_classes() const { return device_classes_; }
  const Facility& facility() const { return facility_; }

  const Domain& domain(DomainId id) const { return domains_[id.value()]; }
  const Node& node(NodeId id) const { return nodes_[id.value()]; }
  const Device& device(DeviceId id) const { return devices_[id.value()]; }
  const DeviceClass& device_class(DeviceClassId id) const { return device_classes_[id.value()]; }
  // Domains at one level, in id order (which is also node order).
  const std::vector<DomainId>& domains_at_level(uint32_t level) const {
    return domains_by_level_[level];
  }

  // The ancestor of `node` at `level` (level < domain_levels()).
  DomainId AncestorAt(NodeId node, uint32_t level) const;
  const Node* FindNode(std::string_view name) const;
  const Domain* FindDomain(std::string_view name) const;

  size_t device_count() const { return devices_.size(); }
  // The largest number of devices any node has (0 for a CPU-only cluster).
  uint32_t max_devices_per_node() const { return max_devices_per_node_; }

 private:
  friend class ClusterBuilder;

  std::vector<std::string> level_names_;
  std::vector<Domain> domains_;
  std::vector<std::vector<DomainId>> domains_by_level_;
  std::vector<Node> nodes_;
  std::vector<Device> devices_;
  std::vector<DeviceClass> device_classes_;
  Facility facility_;
  std::unordered_map<std::string, uint32_t> node_by_name_;
  std::unordered_map<std::string, uint32_t> domain_by_name_;
  // ancestors_[node * levels + level]: precomputed for O(1) AncestorAt.
  std::vector<DomainId> ancestors_;
  uint32_t max_devices_per_node_ = 0;
};

}  // namespace headroom::model
