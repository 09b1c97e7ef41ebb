#include "model/facility_yaml.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <unordered_set>

#include <fmt/format.h>

namespace headroom::model {
namespace {

using Status = tl::expected<void, Error>;

constexpr double kMaxKw = 1e9;  // 1 TW; W = round(kW * 1000) stays exact in a double.
constexpr size_t kMaxNamesListed = 10;

std::string ListNames(const std::map<std::string, size_t>& named) {
  std::string out;
  size_t listed = 0;
  for (const auto& [name, unused] : named) {
    if (listed++ == kMaxNamesListed) return out + ", ...";
    out += (out.empty() ? "" : ", ") + name;
  }
  return out;
}

class FacilityParser {
 public:
  explicit FacilityParser(const FacilityTopology& topology) : topology_(topology) {}

  Result<Facility> Parse(const YamlField& field) {
    YAML_FIELD_TRY(map, field.Map({"cooling", "power"}));
    if (const YamlField* cooling = map->Find("cooling")) {
      YAML_FIELD_TRY(ok, ParseCooling(*cooling));
    }
    if (const YamlField* power = map->Find("power")) {
      YAML_FIELD_TRY(ok, ParsePower(*power));
    }
    return std::move(facility_);
  }

 private:
  Result<DomainId> ParseDomainReference(const YamlField& field) const {
    YAML_FIELD_TRY(name, field.Name());
    auto it = topology_.domain_by_name.find(*name);
    if (it == topology_.domain_by_name.end()) {
      return tl::unexpected(field.Invalid("the name of a topology domain"));
    }
    return it->second;
  }

  // The domains of the level a `level:` entry names.
  Result<const std::vector<std::pair<DomainId, std::string>>*> ParseLevel(
      const YamlField& field) const {
    YAML_FIELD_TRY(name, field.Name());
    const auto& levels = topology_.level_names;
    const auto it = std::find(levels.begin(), levels.end(), *name);
    if (it == levels.end()) {
      return tl::unexpected(
          field.Invalid(fmt::format("a topology level ({})", fmt::join(levels, ", "))));
    }
    return &topology_.domains_by_level[static_cast<size_t>(it - levels.begin())];
  }

  static Result<int64_t> ParseKilowatts(const YamlField& field) {
    YAML_FIELD_TRY(kw, field.Number(0, false, kMaxKw, "a positive number of kW"));
    const auto watts = static_cast<int64_t>(std::llround(*kw * 1000));
    if (watts < 1) return tl::unexpected(field.Invalid("a positive number of kW (at least 0.001)"));
    return watts;
  }

  // `level` excludes each of `keys`: an entry is either stamped per level or written out.
  static Status CheckExclusive(const YamlMap& entry, std::initializer_list<std::string_view> keys,
                               std::string_view alternative) {
    if (!entry.Has("level")) return {};
    for (std::string_view key : keys) {
      if (const YamlField* other = entry.Find(key)) {
        return tl::unexpected(
            other->Invalid(fmt::format("either 'level' or {} on one entry", alternative), "both"));
      }
    }
    return {};
  }

  Status ParseCooling(const YamlField& list) {
    YAML_FIELD_TRY(items, list.Items());
    std::unordered_set<std::string> names;
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(entry, item.Map({"name", "domain", "level", "capacity_kw"}));
      YAML_FIELD_TRY(exclusive,
                     CheckExclusive(*entry, {"domain", "name"}, "'domain' (with 'name')"));
      std::vector<CoolingZone> zones;
      if (const YamlField* level = entry->Find("level")) {
        YAML_FIELD_TRY(domains, ParseLevel(*level));
        for (const auto& [id, name] : **domains) zones.push_back({.name = name, .domain = id});
      } else {
        YAML_FIELD_TRY(domain_field,
                       entry->Require("domain", "the name of a topology domain (or 'level')"));
        YAML_FIELD_TRY(domain, ParseDomainReference(*domain_field));
        CoolingZone zone{.name = domain_field->node().Scalar(), .domain = *domain};
        if (const YamlField* name = entry->Find("name")) {
          YAML_FIELD_TRY(text, name->Name());
          zone.name = *text;
        }
        zones.push_back(std::move(zone));
      }
      YAML_FIELD_TRY(capacity_field, entry->Require("capacity_kw", "a positive number of kW"));
      YAML_FIELD_TRY(watts, ParseKilowatts(*capacity_field));
      for (CoolingZone& zone : zones) {
        if (!names.insert(zone.name).second) {
          return tl::unexpected(item.Invalid("unique cooling zone names",
                                             "a second zone named " + QuoteForMessage(zone.name)));
        }
        zone.cooling_capacity_w = *watts;
        facility_.cooling_zones.push_back(std::move(zone));
      }
    }
    return {};
  }

  Status ParsePower(const YamlField& list) {
    YAML_FIELD_TRY(items, list.Items());
    std::map<std::string, size_t> index;  // Power domain name → position.
    std::vector<std::optional<YamlField>> parent_fields;
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(entry,
                     item.Map({"name", "domains", "limit_kw", "parent", "level", "name_suffix"}));
      YAML_FIELD_TRY(exclusive, CheckExclusive(*entry, {"name", "domains", "parent"},
                                               "'name' (with 'domains' and 'parent')"));
      std::vector<PowerDomain> stamped;
      std::optional<YamlField> parent_field;
      if (const YamlField* level = entry->Find("level")) {
        YAML_FIELD_TRY(domains, ParseLevel(*level));
        std::string suffix(kDefaultPowerSuffix);
        if (const YamlField* field = entry->Find("name_suffix")) {
          YAML_FIELD_TRY(text, field->Text());
          suffix = *text;
        }
        for (const auto& [id, name] : **domains) {
          stamped.push_back({.name = name + suffix, .domains = {id}});
        }
      } else {
        if (const YamlField* suffix = entry->Find("name_suffix")) {
          return tl::unexpected(suffix->Invalid("'name_suffix' only with 'level'"));
        }
        YAML_FIELD_TRY(name_field, entry->Require("name", "a power domain name (or 'level')"));
        YAML_FIELD_TRY(name, name_field->Name());
        PowerDomain power{.name = *name};
        if (const YamlField* domains = entry->Find("domains")) {
          YAML_FIELD_TRY(references, domains->Items());
          for (const YamlField& reference : *references) {
            YAML_FIELD_TRY(id, ParseDomainReference(reference));
            if (std::find(power.domains.begin(), power.domains.end(), *id) != power.domains.end()) {
              return tl::unexpected(reference.Invalid("each domain once"));
            }
            power.domains.push_back(*id);
          }
        }
        if (const YamlField* parent = entry->Find("parent")) {
          YAML_FIELD_TRY(text, parent->Text());
          power.parent = *text;
          parent_field = *parent;
        }
        stamped.push_back(std::move(power));
      }
      YAML_FIELD_TRY(limit_field, entry->Require("limit_kw", "a positive number of kW"));
      YAML_FIELD_TRY(watts, ParseKilowatts(*limit_field));
      for (PowerDomain& power : stamped) {
        if (!index.emplace(power.name, facility_.power_domains.size()).second) {
          const YamlField* name = entry->Find("name");
          return tl::unexpected(
              (name != nullptr ? *name : item)
                  .Invalid("unique power domain names", "a second " + QuoteForMessage(power.name)));
        }
        power.limit_w = *watts;
        parent_fields.push_back(parent_field);
        facility_.power_domains.push_back(std::move(power));
      }
    }
    return CheckParents(index, parent_fields);
  }

  // Every parent names another power domain and no chain of parents loops (one walk per
  // chain: each power domain is visited once).
  Status CheckParents(const std::map<std::string, size_t>& index,
                      const std::vector<std::optional<YamlField>>& parent_fields) const {
    const auto& domains = facility_.power_domains;
    constexpr size_t kNone = static_cast<size_t>(-1);
    std::vector<size_t> parent(domains.size(), kNone);
    for (size_t i = 0; i < domains.size(); ++i) {
      if (domains[i].parent.empty()) continue;
      const auto it = index.find(domains[i].parent);
      if (it == index.end()) {
        return tl::unexpected(parent_fields[i]->Invalid(
            fmt::format("the name of another power domain ({})", ListNames(index))));
      }
      parent[i] = it->second;
    }
    enum : uint8_t { kUnseen, kOnPath, kDone };
    std::vector<uint8_t> state(domains.size(), kUnseen);
    std::vector<size_t> path;
    for (size_t i = 0; i < domains.size(); ++i) {
      path.clear();
      size_t at = i;
      while (at != kNone && state[at] == kUnseen) {
        state[at] = kOnPath;
        path.push_back(at);
        at = parent[at];
      }
      if (at != kNone && state[at] == kOnPath) {
        return tl::unexpected(
            parent_fields[at]->Invalid("a chain of parents that ends",
                                       "a cycle through " + QuoteForMessage(domains[at].name)));
      }
      for (size_t visited : path) state[visited] = kDone;
    }
    return {};
  }

  const FacilityTopology& topology_;
  Facility facility_;
};

}  // namespace

Result<Facility> ParseFacilityYaml(const YamlField& field, const FacilityTopology& topology) {
  return FacilityParser(topology).Parse(field);
}

}  // namespace headroom::model
