// ClusterBuilder: the one way to make a Cluster. Loaders, importers, the generator and tests
// add domains and nodes in any order; Build() validates names and shape, interns device
// classes, renumbers nodes depth-first and computes the ranges the engine indexes by.
// Errors are values naming the offending domain or node.
#pragma once

#include <string>
#include <vector>

#include "base/result.h"
#include "model/cluster.h"

namespace headroom::model {

struct NodeSpec {
  std::string name;
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  // One entry per device, in the node's own order.
  std::vector<Attributes> devices;
};

class ClusterBuilder {
 public:
  // `level_names` top to bottom, e.g. {"cluster", "pod", "leaf", "rack"}; at least one. The
  // root domain (level 0) is created here and named `root_name`.
  explicit ClusterBuilder(std::vector<std::string> level_names, std::string root_name = "cluster");

  // Adds a domain under `parent` (returned ids are builder-local handles, stable after Build).
  DomainId AddDomain(DomainId parent, std::string name);
  DomainId root() const { return DomainId(0); }
  // Adds a node under a deepest-level domain.
  void AddNode(DomainId domain, NodeSpec spec);
  void SetFacility(Facility facility) { facility_ = std::move(facility); }

  Result<Cluster> Build() &&;

 private:
  struct PendingDomain {
    std::string name;
    uint32_t parent = 0;
    uint32_t level = 0;
    std::vector<uint32_t> children;
    std::vector<uint32_t> nodes;
  };

  std::vector<std::string> level_names_;
  std::vector<PendingDomain> domains_;
  std::vector<NodeSpec> nodes_;
  Facility facility_;
};

// Convenience for devices: {"model": model, "memory_gib": memory_gib}.
Attributes DeviceAttributes(std::string model, double memory_gib);

}  // namespace headroom::model
