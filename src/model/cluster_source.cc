#include "model/cluster_source.h"

#include <string>

#include "model/cluster_yaml.h"
#include "model/import/openb_nodes.h"
#include "model/import/philly_machines.h"

namespace headroom::model {
namespace {

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

// The "format:" of a spec, if it starts with a word of lower-case letters, digits, '-' or '_'
// and a colon (so "./a:b.yaml" and "/x/y" have none).
std::string_view FormatOf(std::string_view spec) {
  const size_t colon = spec.find(':');
  if (colon == std::string_view::npos || colon == 0) return {};
  for (const char c : spec.substr(0, colon)) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_')) return {};
  }
  return spec.substr(0, colon);
}

}  // namespace

Result<Cluster> LoadCluster(std::string_view spec) {
  const std::string_view format = FormatOf(spec);
  const std::string path(format.empty() ? spec : spec.substr(format.size() + 1));
  if (spec.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cluster: expected one of the forms {}, got nothing", kClusterSpecForms);
  }
  if (path.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "cluster '{}': expected a path after '{}:'", spec,
                     format);
  }
  if (format == "openb") return LoadOpenbNodes(path);
  if (format == "philly") return LoadPhillyMachines(path);
  if (format == "yaml" || (format.empty() && (EndsWith(path, ".yaml") || EndsWith(path, ".yml")))) {
    return LoadClusterYaml(path);
  }
  if (!format.empty()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cluster '{}': expected one of the forms {}, got the unknown format '{}'",
                     spec, kClusterSpecForms, format);
  }
  return MakeError(ErrorCode::kInvalidArgument,
                   "cluster '{}': expected one of the forms {}, got a path without a format", spec,
                   kClusterSpecForms);
}

}  // namespace headroom::model
