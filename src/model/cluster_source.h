// LoadCluster: one way for every command to name the building it works on.
//
// A spec is one of
//   PATH.yaml | PATH.yml | yaml:PATH   cluster YAML (docs/cluster-yaml.md)
//   openb:PATH                         Alibaba openb node list (import/openb_nodes.h)
//   philly:PATH                        Philly machine list (import/philly_machines.h)
// Anything else is an error that lists these forms. Threading: reads files; no shared state.
#pragma once

#include <string_view>

#include "base/result.h"
#include "model/cluster.h"

namespace headroom::model {

Result<Cluster> LoadCluster(std::string_view spec);

// The accepted forms, for help texts and messages.
inline constexpr std::string_view kClusterSpecForms =
    "PATH.yaml, PATH.yml, yaml:PATH, openb:PATH, philly:PATH";

}  // namespace headroom::model
