#include "model/cluster.h"

#include "base/check.h"

namespace headroom::model {

DomainId Cluster::AncestorAt(NodeId node, uint32_t level) const {
  HR_CHECK(level < domain_levels());
  return ancestors_[static_cast<size_t>(node.value()) * domain_levels() + level];
}

const Node* Cluster::FindNode(std::string_view name) const {
  auto it = node_by_name_.find(std::string(name));
  return it == node_by_name_.end() ? nullptr : &nodes_[it->second];
}

const Domain* Cluster::FindDomain(std::string_view name) const {
  auto it = domain_by_name_.find(std::string(name));
  return it == domain_by_name_.end() ? nullptr : &domains_[it->second];
}

}  // namespace headroom::model
