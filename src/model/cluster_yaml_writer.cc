#include "model/cluster_yaml_writer.h"

#include <array>
#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "model/cluster_yaml_names.h"
#include "model/facility_yaml.h"
#include "model/yaml_field.h"

namespace headroom::model {
namespace {

constexpr double kMaxShorthandMemoryGib = 1e9;  // As the parser accepts for `memory_gib`.

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// True when `text` can be written unquoted and reads back as the same string, never as a
// number, boolean or null (in this parser or any other YAML reader).
bool IsPlainSafe(std::string_view text) {
  if (text.empty() || !(IsAsciiAlnum(text[0]) || text[0] == '_')) return false;
  for (const char c : text) {
    if (!(IsAsciiAlnum(c) || c == '_' || c == '-' || c == '.' || c == '/' || c == '+')) {
      return false;
    }
  }
  if (LooksNumeric(text)) return false;
  std::string lower;
  for (const char c : text) lower += (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c;
  static constexpr std::array<std::string_view, 12> kSpecial = {
      "true", "false", "yes", "no", "on", "off", "y", "n", "null", "nan", "inf", "infinity"};
  for (std::string_view word : kSpecial) {
    if (lower == word) return false;
  }
  return true;
}

// A YAML scalar for `text`: plain when safe, else double-quoted with escapes.
std::string Scalar(std::string_view text) {
  if (IsPlainSafe(text)) return std::string(text);
  std::string out = "\"";
  for (const char c : text) AppendEscapedChar(out, c);
  out += '"';
  return out;
}

std::string Value(const AttributeValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return Scalar(*text);
  return fmt::format("{}", std::get<double>(value));  // Shortest form that reads back exactly.
}

// 10200 W → "10.2": exact, so the parser's round(kW * 1000) gives the watts back.
std::string Kilowatts(int64_t watts) {
  const bool negative = watts < 0;
  const uint64_t magnitude = negative ? 0 - static_cast<uint64_t>(watts) : watts;
  std::string out = fmt::format("{}{}", negative ? "-" : "", magnitude / 1000);
  if (const uint64_t milli = magnitude % 1000; milli != 0) {
    std::string fraction = fmt::format("{:03}", milli);
    while (fraction.back() == '0') fraction.pop_back();
    out += "." + fraction;
  }
  return out;
}

// Readable, unique, control-free names for device classes and node templates.
std::string UniqueName(std::string base, std::set<std::string>& used) {
  for (char& c : base) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '-';
  }
  if (base.empty()) base = "class";
  std::string name = base;
  for (int suffix = 2; !used.insert(name).second; ++suffix) {
    name = fmt::format("{}-{}", base, suffix);
  }
  return name;
}

class Writer {
 public:
  explicit Writer(const Cluster& cluster) : cluster_(cluster) {}

  std::string Write() {
    NameClasses();
    NameTemplates();
    std::string out = fmt::format("# headroom cluster: {} nodes, {} devices, {} device classes\n",
                                  cluster_.nodes().size(), cluster_.device_count(),
                                  cluster_.device_classes().size());
    std::vector<std::string> levels;
    for (const std::string& level : cluster_.level_names()) levels.push_back(Scalar(level));
    out += fmt::format("levels: [{}]\n", fmt::join(levels, ", "));
    const Domain& root = cluster_.domain(DomainId(0));
    out += fmt::format("name: {}\n", Scalar(root.name));
    WriteClasses(out);
    WriteTemplates(out);
    if (cluster_.domain_levels() == 1) {
      if (root.node_end > root.node_begin) out += "nodes:\n" + NodeEntries(root, 2);
    } else if (!root.children.empty()) {
      out += "topology:\n" +
             DomainEntries(root.children,
                           DefaultDomainPrefix(root.name, true, cluster_.level_names()[1]), 2);
    }
    WriteFacility(out);
    return out;
  }

 private:
  // Device runs on a node: (class, count) for each stretch of equal consecutive devices.
  using Runs = std::vector<std::pair<uint32_t, uint32_t>>;
  using Shape = std::tuple<int64_t, int64_t, Runs>;

  Runs DeviceRuns(const Node& node) const {
    Runs runs;
    for (uint32_t i = 0; i < node.device_count; ++i) {
      const uint32_t device_class =
          cluster_.device(DeviceId(node.first_device + i)).device_class.value();
      if (!runs.empty() && runs.back().first == device_class) {
        ++runs.back().second;
      } else {
        runs.emplace_back(device_class, 1);
      }
    }
    return runs;
  }

  void NameClasses() {
    std::set<std::string> used;
    for (const DeviceClass& device_class : cluster_.device_classes()) {
      class_names_.push_back(UniqueName(device_class.model, used));
    }
  }

  void NameTemplates() {
    std::map<Shape, size_t> index;
    std::set<std::string> used;
    node_template_.reserve(cluster_.nodes().size());
    for (const Node& node : cluster_.nodes()) {
      Shape shape{node.cpu_milli, node.memory_mib, DeviceRuns(node)};
      auto [it, inserted] = index.emplace(shape, templates_.size());
      if (inserted) {
        std::vector<std::string> parts;
        for (const auto& [device_class, count] : std::get<2>(shape)) {
          parts.push_back(fmt::format("{}x{}", count, class_names_[device_class]));
        }
        std::string base = parts.empty() ? "cpu-only" : fmt::format("{}", fmt::join(parts, "+"));
        templates_.emplace_back(UniqueName(std::move(base), used), std::move(shape));
      }
      node_template_.push_back(it->second);
    }
  }

  void WriteClasses(std::string& out) const {
    if (cluster_.device_classes().empty()) return;
    out += "device_classes:\n";
    for (const DeviceClass& device_class : cluster_.device_classes()) {
      std::vector<std::string> fields;
      std::vector<std::string> others;
      for (const auto& [key, value] : device_class.attributes.entries()) {
        const auto* text = std::get_if<std::string>(&value);
        const auto* number = std::get_if<double>(&value);
        if (key == "model" && text != nullptr) {
          fields.insert(fields.begin(), "model: " + Scalar(*text));
        } else if (key == "memory_gib" && number != nullptr && *number > 0 &&
                   *number <= kMaxShorthandMemoryGib) {
          fields.push_back("memory_gib: " + Value(value));
        } else {
          others.push_back(Scalar(key) + ": " + Value(value));
        }
      }
      if (!others.empty())
        fields.push_back(fmt::format("attributes: {{{}}}", fmt::join(others, ", ")));
      out += fmt::format("  {}: {{{}}}\n", Scalar(class_names_[device_class.id.value()]),
                         fmt::join(fields, ", "));
    }
  }

  void WriteTemplates(std::string& out) const {
    if (templates_.empty()) return;
    out += "node_templates:\n";
    for (const auto& [name, shape] : templates_) {
      const auto& [cpu_milli, memory_mib, runs] = shape;
      std::string line = fmt::format("  {}: {{cpu_milli: {}, ", Scalar(name), cpu_milli);
      line += memory_mib % 1024 == 0 ? fmt::format("memory_gib: {}", memory_mib / 1024)
                                     : fmt::format("memory_mib: {}", memory_mib);
      std::vector<std::string> groups;
      for (const auto& [device_class, count] : runs) {
        groups.push_back(
            fmt::format("{{count: {}, class: {}}}", count, Scalar(class_names_[device_class])));
      }
      if (groups.size() == 1) line += ", devices: " + groups[0];
      if (groups.size() > 1) line += fmt::format(", devices: [{}]", fmt::join(groups, ", "));
      out += line + "}\n";
    }
  }

  // The `nodes:` entries of a deepest-level domain, one flow map per run of nodes.
  std::string NodeEntries(const Domain& domain, int indent) const {
    const std::string pad(static_cast<size_t>(indent), ' ');
    const std::string default_prefix = DefaultNodePrefix(domain.name);
    std::string out;
    uint32_t i = domain.node_begin;
    while (i < domain.node_end) {
      const auto split = SplitNumberedName(cluster_.node(NodeId(i)).name);
      uint32_t j = i + 1;
      while (split && j < domain.node_end && node_template_[j] == node_template_[i]) {
        const auto next = SplitNumberedName(cluster_.node(NodeId(j)).name);
        if (!next || next->first != split->first || next->second != split->second + (j - i)) break;
        ++j;
      }
      const std::string& template_name = templates_[node_template_[i]].first;
      if (j - i == 1) {
        out += fmt::format("{}- {{name: {}, template: {}}}\n", pad,
                           Scalar(cluster_.node(NodeId(i)).name), Scalar(template_name));
      } else {
        std::string fields = fmt::format("count: {}", j - i);
        if (split->first != default_prefix) fields += ", name_prefix: " + Scalar(split->first);
        if (split->second != 0) fields += fmt::format(", first: {}", split->second);
        out += fmt::format("{}- {{{}, template: {}}}\n", pad, fields, Scalar(template_name));
      }
      i = j;
    }
    return out;
  }

  // What follows a domain's name: its `children:` or `nodes:`, written relative to the name
  // (default prefixes are left out), so equal bodies mean equal subtrees up to naming.
  std::string DomainBody(const Domain& domain, int indent) const {
    const std::string pad(static_cast<size_t>(indent), ' ');
    if (domain.level == cluster_.deepest_level()) {
      if (domain.node_end == domain.node_begin) return "";
      return pad + "nodes:\n" + NodeEntries(domain, indent + 2);
    }
    if (domain.children.empty()) return "";
    const std::string prefix = DefaultDomainPrefix(domain.name, domain.level == 0,
                                                   cluster_.level_names()[domain.level + 1]);
    return pad + "children:\n" + DomainEntries(domain.children, prefix, indent + 2);
  }

  std::string DomainEntries(const std::vector<DomainId>& ids, const std::string& default_prefix,
                            int indent) const {
    const std::string pad(static_cast<size_t>(indent), ' ');
    std::vector<std::string> bodies;
    bodies.reserve(ids.size());
    for (DomainId id : ids) bodies.push_back(DomainBody(cluster_.domain(id), indent + 2));
    std::string out;
    size_t i = 0;
    while (i < ids.size()) {
      const auto split = SplitNumberedName(cluster_.domain(ids[i]).name);
      size_t j = i + 1;
      while (split && j < ids.size() && bodies[j] == bodies[i]) {
        const auto next = SplitNumberedName(cluster_.domain(ids[j]).name);
        if (!next || next->first != split->first || next->second != split->second + (j - i)) break;
        ++j;
      }
      if (j - i == 1) {
        out += fmt::format("{}- name: {}\n", pad, Scalar(cluster_.domain(ids[i]).name));
      } else {
        out += fmt::format("{}- count: {}\n", pad, j - i);
        if (split->first != default_prefix) {
          out += fmt::format("{}  name_prefix: {}\n", pad, Scalar(split->first));
        }
        if (split->second != 0) out += fmt::format("{}  first: {}\n", pad, split->second);
      }
      out += bodies[i];
      i = j;
    }
    return out;
  }

  // The domains of the level `first` is at, if cooling zones [i, i + n) are exactly one zone
  // per domain of that level, in order, each named after its domain, all of one capacity.
  const std::vector<DomainId>* CoolingLevelRun(size_t i) const {
    const auto& zones = cluster_.facility().cooling_zones;
    const auto& level = cluster_.domains_at_level(cluster_.domain(zones[i].domain).level);
    if (i + level.size() > zones.size()) return nullptr;
    for (size_t k = 0; k < level.size(); ++k) {
      const CoolingZone& zone = zones[i + k];
      if (zone.domain != level[k] || zone.name != cluster_.domain(level[k]).name ||
          zone.cooling_capacity_w != zones[i].cooling_capacity_w) {
        return nullptr;
      }
    }
    return &level;
  }

  // Likewise for power domains: one per domain of a level, named "<domain><suffix>", each
  // covering just that domain, without parents, all of one limit.
  const std::vector<DomainId>* PowerLevelRun(size_t i, std::string& suffix) const {
    const auto& powers = cluster_.facility().power_domains;
    if (powers[i].domains.size() != 1) return nullptr;
    const Domain& first = cluster_.domain(powers[i].domains[0]);
    const auto& level = cluster_.domains_at_level(first.level);
    if (i + level.size() > powers.size() ||
        powers[i].name.compare(0, first.name.size(), first.name) != 0) {
      return nullptr;
    }
    suffix = powers[i].name.substr(first.name.size());
    for (size_t k = 0; k < level.size(); ++k) {
      const PowerDomain& power = powers[i + k];
      if (power.domains.size() != 1 || power.domains[0] != level[k] || !power.parent.empty() ||
          power.name != cluster_.domain(level[k]).name + suffix ||
          power.limit_w != powers[i].limit_w) {
        return nullptr;
      }
    }
    return &level;
  }

  void WriteFacility(std::string& out) const {
    const Facility& facility = cluster_.facility();
    if (facility.cooling_zones.empty() && facility.power_domains.empty()) return;
    out += "facility:\n";
    if (!facility.cooling_zones.empty()) out += "  cooling:\n";
    for (size_t i = 0; i < facility.cooling_zones.size();) {
      const CoolingZone& zone = facility.cooling_zones[i];
      const std::string& domain = cluster_.domain(zone.domain).name;
      if (const auto* level = CoolingLevelRun(i)) {
        out += fmt::format("    - {{level: {}, capacity_kw: {}}}\n",
                           Scalar(cluster_.level_names()[cluster_.domain(zone.domain).level]),
                           Kilowatts(zone.cooling_capacity_w));
        i += level->size();
        continue;
      }
      std::string fields;
      if (zone.name != domain) fields += "name: " + Scalar(zone.name) + ", ";
      out += fmt::format("    - {{{}domain: {}, capacity_kw: {}}}\n", fields, Scalar(domain),
                         Kilowatts(zone.cooling_capacity_w));
      ++i;
    }
    if (!facility.power_domains.empty()) out += "  power:\n";
    for (size_t i = 0; i < facility.power_domains.size();) {
      const PowerDomain& power = facility.power_domains[i];
      std::string suffix;
      if (const auto* level = PowerLevelRun(i, suffix)) {
        std::string fields =
            fmt::format("level: {}, limit_kw: {}",
                        Scalar(cluster_.level_names()[cluster_.domain(power.domains[0]).level]),
                        Kilowatts(power.limit_w));
        if (suffix != kDefaultPowerSuffix) fields += ", name_suffix: " + Scalar(suffix);
        out += fmt::format("    - {{{}}}\n", fields);
        i += level->size();
        continue;
      }
      std::string fields = "name: " + Scalar(power.name);
      if (!power.domains.empty()) {
        std::vector<std::string> names;
        for (DomainId id : power.domains) names.push_back(Scalar(cluster_.domain(id).name));
        fields += fmt::format(", domains: [{}]", fmt::join(names, ", "));
      }
      fields += ", limit_kw: " + Kilowatts(power.limit_w);
      if (!power.parent.empty()) fields += ", parent: " + Scalar(power.parent);
      out += fmt::format("    - {{{}}}\n", fields);
      ++i;
    }
  }

  const Cluster& cluster_;
  std::vector<std::string> class_names_;
  std::vector<std::pair<std::string, Shape>> templates_;  // In order of first use.
  std::vector<size_t> node_template_;                     // Per node: index into templates_.
};

}  // namespace

std::string WriteClusterYaml(const Cluster& cluster) { return Writer(cluster).Write(); }

}  // namespace headroom::model
