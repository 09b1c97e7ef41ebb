#include "model/cluster_builder.h"

#include <functional>
#include <map>

#include "base/check.h"

namespace headroom::model {

ClusterBuilder::ClusterBuilder(std::vector<std::string> level_names, std::string root_name)
    : level_names_(std::move(level_names)) {
  HR_CHECK(!level_names_.empty());
  domains_.push_back(PendingDomain{.name = std::move(root_name)});
}

DomainId ClusterBuilder::AddDomain(DomainId parent, std::string name) {
  HR_CHECK(parent.value() < domains_.size());
  const uint32_t id = static_cast<uint32_t>(domains_.size());
  domains_.push_back(PendingDomain{.name = std::move(name),
                                   .parent = parent.value(),
                                   .level = domains_[parent.value()].level + 1});
  domains_[parent.value()].children.push_back(id);
  return DomainId(id);
}

void ClusterBuilder::AddNode(DomainId domain, NodeSpec spec) {
  HR_CHECK(domain.value() < domains_.size());
  domains_[domain.value()].nodes.push_back(static_cast<uint32_t>(nodes_.size()));
  nodes_.push_back(std::move(spec));
}

Result<Cluster> ClusterBuilder::Build() && {
  Cluster cluster;
  cluster.level_names_ = level_names_;
  const uint32_t levels = static_cast<uint32_t>(level_names_.size());
  const uint32_t deepest = levels - 1;

  for (const PendingDomain& domain : domains_) {
    if (domain.level >= levels) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "domain '{}': expected at most {} topology levels ({}), got depth {}",
                       domain.name, levels, fmt::join(level_names_, " > "), domain.level + 1);
    }
    if (domain.level < deepest && !domain.nodes.empty()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "domain '{}': expected nodes only under the deepest level '{}', got nodes "
                       "under level '{}'",
                       domain.name, level_names_[deepest], level_names_[domain.level]);
    }
    if (domain.name.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "domain: expected a non-empty name");
    }
  }

  // Depth-first renumbering of domains and nodes (invariant 2).
  std::vector<uint32_t> new_domain_id(domains_.size());
  std::vector<uint32_t> node_order;
  node_order.reserve(nodes_.size());
  cluster.domains_.reserve(domains_.size());
  std::function<void(uint32_t, uint32_t)> visit = [&](uint32_t old_id, uint32_t new_parent) {
    const PendingDomain& pending = domains_[old_id];
    const uint32_t id = static_cast<uint32_t>(cluster.domains_.size());
    new_domain_id[old_id] = id;
    Domain domain;
    domain.id = DomainId(id);
    domain.name = pending.name;
    domain.level = pending.level;
    domain.parent = old_id == 0 ? DomainId() : DomainId(new_parent);
    domain.node_begin = static_cast<uint32_t>(node_order.size());
    cluster.domains_.push_back(std::move(domain));
    if (old_id != 0) cluster.domains_[new_parent].children.push_back(DomainId(id));
    for (uint32_t node : pending.nodes) node_order.push_back(node);
    for (uint32_t child : pending.children) visit(child, id);
    cluster.domains_[id].node_end = static_cast<uint32_t>(node_order.size());
  };
  visit(0, 0);

  cluster.domains_by_level_.resize(levels);
  for (const Domain& domain : cluster.domains_) {
    cluster.domains_by_level_[domain.level].push_back(domain.id);
    if (!cluster.domain_by_name_.emplace(domain.name, domain.id.value()).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "domain '{}': expected a unique name, got a "
                       "second domain of that name",
                       domain.name);
    }
  }

  // Nodes and devices, interning device classes by their attributes.
  std::map<std::vector<std::pair<std::string, AttributeValue>>, uint32_t> class_by_attributes;
  std::vector<uint32_t> node_domain(nodes_.size());
  for (const PendingDomain& pending : domains_) {
    const uint32_t old_id = static_cast<uint32_t>(&pending - domains_.data());
    for (uint32_t node : pending.nodes) node_domain[node] = new_domain_id[old_id];
  }
  cluster.nodes_.reserve(nodes_.size());
  for (uint32_t old_node : node_order) {
    NodeSpec& spec = nodes_[old_node];
    if (spec.name.empty()) {
      return MakeError(ErrorCode::kInvalidArgument, "node: expected a non-empty name");
    }
    if (spec.cpu_milli < 0 || spec.memory_mib < 0) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "node '{}': expected non-negative cpu and memory, got cpu_milli {} and "
                       "memory_mib {}",
                       spec.name, spec.cpu_milli, spec.memory_mib);
    }
    Node node;
    node.id = NodeId(static_cast<uint32_t>(cluster.nodes_.size()));
    node.name = spec.name;
    node.domain = DomainId(node_domain[old_node]);
    node.cpu_milli = spec.cpu_milli;
    node.memory_mib = spec.memory_mib;
    node.first_device = static_cast<uint32_t>(cluster.devices_.size());
    node.device_count = static_cast<uint32_t>(spec.devices.size());
    for (uint32_t i = 0; i < spec.devices.size(); ++i) {
      Attributes& attributes = spec.devices[i];
      auto [it, inserted] = class_by_attributes.emplace(
          attributes.entries(), static_cast<uint32_t>(cluster.device_classes_.size()));
      if (inserted) {
        DeviceClass device_class;
        device_class.id = DeviceClassId(it->second);
        if (const auto* model = attributes.Find("model")) {
          if (const auto* text = std::get_if<std::string>(model)) device_class.model = *text;
        }
        device_class.attributes = attributes;
        cluster.device_classes_.push_back(std::move(device_class));
      }
      cluster.devices_.push_back(
          Device{.node = node.id, .device_class = DeviceClassId(it->second), .index_on_node = i});
    }
    cluster.max_devices_per_node_ = std::max(cluster.max_devices_per_node_, node.device_count);
    if (!cluster.node_by_name_.emplace(node.name, node.id.value()).second) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "node '{}': expected a unique name, got a second node of that name",
                       node.name);
    }
    cluster.nodes_.push_back(std::move(node));
  }

  cluster.ancestors_.resize(cluster.nodes_.size() * levels);
  for (const Node& node : cluster.nodes_) {
    DomainId domain = node.domain;
    for (int level = static_cast<int>(deepest); level >= 0; --level) {
      HR_CHECK(domain.valid() && cluster.domains_[domain.value()].level == uint32_t(level));
      cluster.ancestors_[static_cast<size_t>(node.id.value()) * levels + level] = domain;
      domain = cluster.domains_[domain.value()].parent;
    }
  }

  for (CoolingZone& zone : facility_.cooling_zones) {
    zone.domain = DomainId(new_domain_id[zone.domain.value()]);
  }
  for (PowerDomain& power : facility_.power_domains) {
    for (DomainId& domain : power.domains) domain = DomainId(new_domain_id[domain.value()]);
  }
  cluster.facility_ = std::move(facility_);
  return cluster;
}

Attributes DeviceAttributes(std::string model, double memory_gib) {
  Attributes attributes;
  attributes.Set("model", std::move(model));
  attributes.Set("memory_gib", memory_gib);
  return attributes;
}

}  // namespace headroom::model
