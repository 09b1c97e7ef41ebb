// The `facility:` section of the cluster YAML (docs/cluster-yaml.md): cooling zones and power
// domains, each either named one by one or stamped out for every domain of a topology level.
//
//   facility:
//     cooling:
//       - {domain: rack0, capacity_kw: 120}              # one zone; name defaults to the domain
//       - {level: rack, capacity_kw: 91.8}               # one zone per rack, named after it
//     power:
//       - {name: feed-a, domains: [pod0], limit_kw: 2000}
//       - {name: pdu-0, domains: [rack0], limit_kw: 400, parent: feed-a}
//       - {level: pod, limit_kw: 5222.4, name_suffix: "-power"}   # one per pod: pod0-power, ...
//
// Promises: every referenced domain exists; names are unique (cooling zones among themselves,
// power domains among themselves); a power domain lists each topology domain once; every
// parent names another power domain and no chain of parents loops; capacities and limits are
// positive numbers of kW, at most 1e9, stored as whole watts (rounded). Errors are one line,
// "file:line: field 'facility.power[1].parent': expected ..., got ...".
// Threading: pure function.
#pragma once

#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/result.h"
#include "model/cluster.h"
#include "model/yaml_field.h"

namespace headroom::model {

// The topology the facility section refers to, by ClusterBuilder handle.
struct FacilityTopology {
  std::vector<std::string> level_names;
  std::unordered_map<std::string, DomainId> domain_by_name;
  // Per level: (handle, name) in depth-first order — the order Cluster::domains_at_level keeps.
  std::vector<std::vector<std::pair<DomainId, std::string>>> domains_by_level;
};

// The default `name_suffix` of per-level power domains.
inline constexpr std::string_view kDefaultPowerSuffix = "-power";

Result<Facility> ParseFacilityYaml(const YamlField& field, const FacilityTopology& topology);

}  // namespace headroom::model
