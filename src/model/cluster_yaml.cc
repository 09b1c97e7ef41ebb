#include "model/cluster_yaml.h"

#include <algorithm>
#include <cfloat>
#include <map>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "base/csv.h"
#include "model/cluster_builder.h"
#include "model/cluster_yaml_names.h"
#include "model/facility_yaml.h"
#include "model/yaml_field.h"

namespace headroom::model {
namespace {

using Status = tl::expected<void, Error>;

constexpr int64_t kMaxLevels = 16;
constexpr int64_t kMaxFirst = 1'000'000'000;
constexpr int64_t kMaxCpuMilli = 1'000'000'000'000;  // A million cores: sums stay in int64.
constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;  // 1 EiB.
constexpr double kMaxDeviceMemoryGib = 1e9;
constexpr size_t kMaxNamesListed = 10;

struct DeviceGroup {
  int64_t count = 0;
  Attributes attributes;
};

// A node's shape as a template or a node entry gives it; absent fields come from elsewhere.
struct NodeShape {
  std::optional<int64_t> cpu_milli;
  std::optional<int64_t> memory_mib;
  std::optional<std::vector<DeviceGroup>> devices;
};

// The names an entry stands for: one `name`, or `count` names `name_prefix` + (first + i).
struct NameRange {
  std::string single;
  std::string prefix;
  int64_t first = 0;
  int64_t count = 1;
  bool repeated = false;

  std::string At(int64_t i) const { return repeated ? prefix + std::to_string(first + i) : single; }
};

template <typename Map>
std::string ListNames(const Map& named) {
  std::string out;
  size_t listed = 0;
  for (const auto& [name, unused] : named) {
    if (listed++ == kMaxNamesListed) {
      out += ", ...";
      break;
    }
    out += (out.empty() ? "" : ", ") + name;
  }
  return out.empty() ? "none defined" : out;
}

class Parser {
 public:
  Parser(std::string_view source, const ClusterYamlLimits& limits)
      : source_(source), limits_(limits) {}

  Result<Cluster> Parse(const YAML::Node& document) {
    const YamlField top = YamlField::Document(document, source_);
    if (top.IsNull()) {
      return tl::unexpected(top.Invalid("a cluster description with 'levels' and 'topology'"));
    }
    YAML_FIELD_TRY(map, top.Map({"levels", "name", "device_classes", "node_templates", "topology",
                                 "nodes", "facility"}));
    YAML_FIELD_TRY(levels_field, map->Require("levels", "a list of topology level names"));
    YAML_FIELD_TRY(levels_ok, ParseLevels(*levels_field));
    std::string root_name = "cluster";
    if (const YamlField* name = map->Find("name")) {
      YAML_FIELD_TRY(text, name->Name());
      root_name = *text;
    }
    ClusterBuilder builder(levels_, root_name);
    builder_ = &builder;
    topology_.level_names = levels_;
    topology_.domain_by_name.emplace(root_name, builder.root());
    topology_.domains_by_level.resize(levels_.size());
    topology_.domains_by_level[0].emplace_back(builder.root(), root_name);
    domain_count_ = 1;

    if (const YamlField* classes = map->Find("device_classes")) {
      YAML_FIELD_TRY(ok, ParseDeviceClasses(*classes));
    }
    if (const YamlField* templates = map->Find("node_templates")) {
      YAML_FIELD_TRY(ok, ParseNodeTemplates(*templates));
    }
    const YamlField* topology = map->Find("topology");
    const YamlField* nodes = map->Find("nodes");
    if (levels_.size() == 1) {
      if (topology != nullptr) {
        return tl::unexpected(topology->Invalid(
            fmt::format("no 'topology' with the single level '{}' (list the nodes under "
                        "'nodes')",
                        levels_[0])));
      }
      if (nodes != nullptr) {
        YAML_FIELD_TRY(ok, ParseNodes(*nodes, builder.root(), root_name));
      }
    } else {
      if (nodes != nullptr) {
        return tl::unexpected(nodes->Invalid(fmt::format(
            "nodes only at the deepest level '{}' (inside 'topology')", levels_.back())));
      }
      if (topology != nullptr) {
        YAML_FIELD_TRY(ok, ParseDomains(*topology, builder.root(), root_name, 1));
      }
    }
    if (const YamlField* facility = map->Find("facility")) {
      YAML_FIELD_TRY(parsed, ParseFacilityYaml(*facility, topology_));
      builder.SetFacility(std::move(*parsed));
    }
    auto cluster = std::move(builder).Build();
    if (!cluster) return tl::unexpected(WithContext(cluster.error(), source_));
    return cluster;
  }

 private:
  Status ParseLevels(const YamlField& field) {
    YAML_FIELD_TRY(items, field.Items());
    if (items->empty() || static_cast<int64_t>(items->size()) > kMaxLevels) {
      return tl::unexpected(
          field.Invalid(fmt::format("between 1 and {} level names, top to bottom", kMaxLevels),
                        fmt::format("{} names", items->size())));
    }
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(name, item.Name());
      if (std::find(levels_.begin(), levels_.end(), *name) != levels_.end()) {
        return tl::unexpected(
            item.Invalid("unique level names", "a second " + QuoteForMessage(*name)));
      }
      levels_.push_back(*name);
    }
    return {};
  }

  // `attributes: {key: value}` plus the `model` and `memory_gib` shorthands, over `base`.
  Result<Attributes> ParseAttributes(const YamlMap& map, Attributes base) {
    std::unordered_set<std::string> from_map;
    if (const YamlField* field = map.Find("attributes")) {
      YAML_FIELD_TRY(entries, field->FreeMap());
      for (const auto& [key, value] : entries->entries()) {
        if (!value.IsScalar()) return tl::unexpected(value.Invalid("a string or a number"));
        // A plain (unquoted) scalar that reads as a number is a number; anything else is text.
        if (value.node().Tag() == "?" && LooksNumeric(value.node().Scalar())) {
          YAML_FIELD_TRY(number, value.Number(-DBL_MAX, true, DBL_MAX, "a finite number"));
          base.Set(key, *number);
        } else {
          base.Set(key, value.node().Scalar());
        }
        from_map.insert(key);
      }
    }
    if (const YamlField* model = map.Find("model")) {
      if (from_map.count("model") != 0) {
        return tl::unexpected(model->Invalid("'model' once", "it under 'attributes' too"));
      }
      YAML_FIELD_TRY(text, model->Text());
      base.Set("model", *text);
    }
    if (const YamlField* memory = map.Find("memory_gib")) {
      if (from_map.count("memory_gib") != 0) {
        return tl::unexpected(memory->Invalid("'memory_gib' once", "it under 'attributes' too"));
      }
      YAML_FIELD_TRY(gib,
                     memory->Number(0, false, kMaxDeviceMemoryGib, "a positive number of GiB"));
      base.Set("memory_gib", *gib);
    }
    return base;
  }

  Status ParseDeviceClasses(const YamlField& field) {
    YAML_FIELD_TRY(map, field.FreeMap());
    for (const auto& [name, value] : map->entries()) {
      YAML_FIELD_TRY(entry, value.Map({"model", "memory_gib", "attributes"}));
      YAML_FIELD_TRY(attributes, ParseAttributes(*entry, Attributes()));
      classes_.emplace(name, std::move(*attributes));
    }
    return {};
  }

  Result<DeviceGroup> ParseDeviceGroup(const YamlField& field) {
    YAML_FIELD_TRY(map, field.Map({"count", "class", "model", "memory_gib", "attributes"}));
    YAML_FIELD_TRY(count_field, map->Require("count", "a positive integer"));
    YAML_FIELD_TRY(
        count, count_field->Integer(1, limits_.max_devices_per_node,
                                    fmt::format("a positive integer (at most {} devices per node)",
                                                limits_.max_devices_per_node)));
    Attributes base;
    if (const YamlField* class_field = map->Find("class")) {
      YAML_FIELD_TRY(name, class_field->Name());
      auto it = classes_.find(*name);
      if (it == classes_.end()) {
        return tl::unexpected(class_field->Invalid(
            fmt::format("a class defined under 'device_classes' ({})", ListNames(classes_))));
      }
      base = it->second;
    }
    YAML_FIELD_TRY(attributes, ParseAttributes(*map, std::move(base)));
    return DeviceGroup{.count = *count, .attributes = std::move(*attributes)};
  }

  Result<std::vector<DeviceGroup>> ParseDevices(const YamlField& field) {
    std::vector<DeviceGroup> groups;
    if (field.IsMap()) {
      YAML_FIELD_TRY(group, ParseDeviceGroup(field));
      groups.push_back(std::move(*group));
    } else if (field.IsList()) {
      YAML_FIELD_TRY(items, field.Items());
      int64_t total = 0;
      for (const YamlField& item : *items) {
        YAML_FIELD_TRY(group, ParseDeviceGroup(item));
        total += group->count;
        if (total > limits_.max_devices_per_node) {
          return tl::unexpected(field.Invalid(
              fmt::format("at most {} devices per node", limits_.max_devices_per_node),
              fmt::format("more than {}", limits_.max_devices_per_node)));
        }
        groups.push_back(std::move(*group));
      }
    } else {
      return tl::unexpected(
          field.Invalid("a device group {count, class or model, ...} or a list of them"));
    }
    return groups;
  }

  // cpu_milli, memory_mib | memory_gib and devices of a template or node entry, over `shape`.
  Status ParseShapeFields(const YamlMap& map, NodeShape& shape) {
    if (const YamlField* cpu = map.Find("cpu_milli")) {
      YAML_FIELD_TRY(value, cpu->Integer(0, kMaxCpuMilli, "a non-negative integer"));
      shape.cpu_milli = *value;
    }
    const YamlField* mib = map.Find("memory_mib");
    const YamlField* gib = map.Find("memory_gib");
    if (mib != nullptr && gib != nullptr) {
      return tl::unexpected(gib->Invalid("only one of memory_mib and memory_gib", "both"));
    }
    if (mib != nullptr) {
      YAML_FIELD_TRY(value, mib->Integer(0, kMaxMemoryMib, "a non-negative integer"));
      shape.memory_mib = *value;
    }
    if (gib != nullptr) {
      YAML_FIELD_TRY(value, gib->Integer(0, kMaxMemoryMib / 1024, "a non-negative integer"));
      shape.memory_mib = *value * 1024;
    }
    if (const YamlField* devices = map.Find("devices")) {
      YAML_FIELD_TRY(groups, ParseDevices(*devices));
      shape.devices = std::move(*groups);
    }
    return {};
  }

  Status ParseNodeTemplates(const YamlField& field) {
    YAML_FIELD_TRY(map, field.FreeMap());
    for (const auto& [name, value] : map->entries()) {
      YAML_FIELD_TRY(entry, value.Map({"cpu_milli", "memory_mib", "memory_gib", "devices"}));
      NodeShape shape;
      YAML_FIELD_TRY(ok, ParseShapeFields(*entry, shape));
      templates_.emplace(name, std::move(shape));
    }
    return {};
  }

  Result<NameRange> ParseNameRange(const YamlMap& map, std::string default_prefix,
                                   uint64_t max_count, std::string_view what) {
    const YamlField* name = map.Find("name");
    const YamlField* count = map.Find("count");
    NameRange range;
    if (name != nullptr) {
      for (std::string_view key : {"count", "name_prefix", "first"}) {
        if (const YamlField* other = map.Find(key)) {
          return tl::unexpected(other->Invalid(
              fmt::format("either 'name' or 'count' (with 'name_prefix' and 'first') on one {}",
                          what),
              "both"));
        }
      }
      YAML_FIELD_TRY(text, name->Name());
      range.single = std::move(*text);
      return range;
    }
    if (count == nullptr) {
      return tl::unexpected(
          map.Missing("name", fmt::format("a {} name (or 'count' for repeated {}s)", what, what)));
    }
    range.repeated = true;
    YAML_FIELD_TRY(value,
                   count->Integer(1, static_cast<int64_t>(max_count),
                                  fmt::format("a positive integer (at most {})", max_count)));
    range.count = *value;
    range.prefix = std::move(default_prefix);
    if (const YamlField* prefix = map.Find("name_prefix")) {
      YAML_FIELD_TRY(text, prefix->Name());
      range.prefix = std::move(*text);
    }
    if (const YamlField* first = map.Find("first")) {
      YAML_FIELD_TRY(start, first->Integer(0, kMaxFirst, "a non-negative integer"));
      range.first = *start;
    }
    return range;
  }

  Status ParseNodes(const YamlField& list, DomainId domain, const std::string& domain_name) {
    YAML_FIELD_TRY(items, list.Items());
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(map, item.Map({"name", "count", "name_prefix", "first", "template",
                                    "cpu_milli", "memory_mib", "memory_gib", "devices"}));
      NodeShape shape;
      if (const YamlField* name = map->Find("template")) {
        YAML_FIELD_TRY(text, name->Name());
        auto it = templates_.find(*text);
        if (it == templates_.end()) {
          return tl::unexpected(name->Invalid(fmt::format(
              "a template defined under 'node_templates' ({})", ListNames(templates_))));
        }
        shape = it->second;
      }
      YAML_FIELD_TRY(ok, ParseShapeFields(*map, shape));
      if (!shape.cpu_milli) {
        return tl::unexpected(
            map->Missing("cpu_milli", "a non-negative integer (on the node or its template)"));
      }
      if (!shape.memory_mib) {
        return tl::unexpected(
            map->Missing("memory_gib", "memory_gib or memory_mib (on the node or its template)"));
      }
      NodeSpec spec{.cpu_milli = *shape.cpu_milli, .memory_mib = *shape.memory_mib};
      if (shape.devices) {
        for (const DeviceGroup& group : *shape.devices) {
          spec.devices.insert(spec.devices.end(), static_cast<size_t>(group.count),
                              group.attributes);
        }
      }
      YAML_FIELD_TRY(
          names, ParseNameRange(*map, DefaultNodePrefix(domain_name), limits_.max_nodes, "node"));
      const auto count = static_cast<uint64_t>(names->count);
      if (node_count_ + count > limits_.max_nodes) {
        return tl::unexpected(
            item.Invalid(fmt::format("at most {} nodes in one cluster", limits_.max_nodes),
                         fmt::format("{} or more", node_count_ + count)));
      }
      if (device_count_ + count * spec.devices.size() > limits_.max_devices) {
        return tl::unexpected(
            item.Invalid(fmt::format("at most {} devices in one cluster", limits_.max_devices),
                         fmt::format("{} or more", device_count_ + count * spec.devices.size())));
      }
      node_count_ += count;
      device_count_ += count * spec.devices.size();
      for (int64_t i = 0; i < names->count; ++i) {
        NodeSpec node = spec;
        node.name = names->At(i);
        if (!node_names_.insert(node.name).second) {
          return tl::unexpected(item.Invalid("unique node names",
                                             "a second node named " + QuoteForMessage(node.name)));
        }
        builder_->AddNode(domain, std::move(node));
      }
    }
    return {};
  }

  Status ParseDomains(const YamlField& list, DomainId parent, const std::string& parent_name,
                      uint32_t level) {
    YAML_FIELD_TRY(items, list.Items());
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(map, item.Map({"name", "count", "name_prefix", "first", "children", "nodes"}));
      YAML_FIELD_TRY(
          names, ParseNameRange(*map, DefaultDomainPrefix(parent_name, level == 1, levels_[level]),
                                limits_.max_domains, levels_[level]));
      const auto count = static_cast<uint64_t>(names->count);
      if (domain_count_ + count > limits_.max_domains) {
        return tl::unexpected(
            item.Invalid(fmt::format("at most {} domains in one cluster", limits_.max_domains),
                         fmt::format("{} or more", domain_count_ + count)));
      }
      domain_count_ += count;
      for (int64_t i = 0; i < names->count; ++i) {
        std::string name = names->At(i);
        if (topology_.domain_by_name.count(name) != 0) {
          return tl::unexpected(item.Invalid("unique domain names",
                                             "a second domain named " + QuoteForMessage(name)));
        }
        const DomainId id = builder_->AddDomain(parent, name);
        topology_.domain_by_name.emplace(name, id);
        topology_.domains_by_level[level].emplace_back(id, name);
        YAML_FIELD_TRY(ok, ParseDomainBody(*map, id, name, level));
      }
    }
    return {};
  }

  Status ParseDomainBody(const YamlMap& map, DomainId id, const std::string& name, uint32_t level) {
    const YamlField* children = map.Find("children");
    const YamlField* nodes = map.Find("nodes");
    const auto deepest = static_cast<uint32_t>(levels_.size() - 1);
    if (level == deepest) {
      if (children != nullptr) {
        return tl::unexpected(
            children->Invalid(fmt::format("no 'children' at the deepest level '{}' (levels: {})",
                                          levels_[level], fmt::join(levels_, " > "))));
      }
      if (nodes != nullptr) return ParseNodes(*nodes, id, name);
      return {};
    }
    if (nodes != nullptr) {
      return tl::unexpected(nodes->Invalid(
          fmt::format("nodes only at the deepest level '{}', not at level '{}' (levels: {})",
                      levels_[deepest], levels_[level], fmt::join(levels_, " > "))));
    }
    if (children != nullptr) return ParseDomains(*children, id, name, level + 1);
    return {};
  }

  std::string_view source_;
  ClusterYamlLimits limits_;
  std::vector<std::string> levels_;
  std::map<std::string, Attributes> classes_;
  std::map<std::string, NodeShape> templates_;
  ClusterBuilder* builder_ = nullptr;
  FacilityTopology topology_;  // Names and levels of the domains made so far.
  std::unordered_set<std::string> node_names_;
  uint64_t node_count_ = 0;
  uint64_t device_count_ = 0;
  uint64_t domain_count_ = 0;
};

}  // namespace

Result<Cluster> ParseClusterYaml(std::string_view text, const std::string& source_name,
                                 const ClusterYamlLimits& limits) {
  YAML_FIELD_TRY(document, LoadYamlDocument(text, source_name));
  try {
    Parser parser(source_name, limits);
    return parser.Parse(*document);
  } catch (const std::exception& e) {
    // Nothing above throws by design; this keeps a library surprise from ending the process.
    return MakeError(ErrorCode::kInvalidArgument, "{}:1: cannot read the cluster: {}", source_name,
                     e.what());
  }
}

Result<Cluster> LoadClusterYaml(const std::string& path, const ClusterYamlLimits& limits) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseClusterYaml(*text, path, limits);
}

}  // namespace headroom::model
