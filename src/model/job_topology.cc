#include "model/job_topology.h"

#include <string>
#include <tuple>

#include <fmt/format.h>

#include "model/yaml_field.h"

namespace headroom::model {

std::optional<uint32_t> LevelIndex(const Cluster& cluster, std::string_view name) {
  const std::vector<std::string>& names = cluster.level_names();
  for (uint32_t level = 0; level < names.size(); ++level) {
    if (names[level] == name) return level;
  }
  return std::nullopt;
}

Result<void> ValidateTopologyLevels(const Cluster& cluster, const std::vector<Job>& jobs,
                                    std::string_view source) {
  std::string known;
  for (const std::string& name : cluster.level_names()) {
    known += (known.empty() ? "" : ", ") + name;
  }
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    if (job.required_topology_level.empty() && job.preferred_topology_level.empty()) continue;
    const std::string who =
        job.name.empty() ? fmt::format("job #{}", i) : "job '" + PrintableLine(job.name) + "'";
    std::optional<uint32_t> required;
    std::optional<uint32_t> preferred;
    for (const auto& [field, name, index] :
         {std::tuple{"required_topology_level", &job.required_topology_level, &required},
          std::tuple{"preferred_topology_level", &job.preferred_topology_level, &preferred}}) {
      if (name->empty()) continue;
      *index = LevelIndex(cluster, *name);
      if (!*index) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}: {}: field '{}': expected one of the cluster's levels ({}), got {}",
                         source, who, field, known, QuoteForMessage(*name));
      }
    }
    if (required && preferred && *preferred < *required) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: {}: field 'preferred_topology_level': expected the required level "
                       "'{}' or one below it, got {} (above it, it could never take effect)",
                       source, who, PrintableLine(job.required_topology_level),
                       QuoteForMessage(job.preferred_topology_level));
    }
  }
  return {};
}

}  // namespace headroom::model
