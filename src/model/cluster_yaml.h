// Cluster YAML: the building as an operator writes it — topology levels, named device classes
// and node templates, the topology tree with nodes at its deepest level (with repetition
// helpers, so 100,000 devices fit on a page), and the facility's cooling and power limits.
// The schema is documented in docs/cluster-yaml.md; WriteClusterYaml (cluster_yaml_writer.h)
// emits the same schema.
//
// Promises:
//  1. Every error is one line, "file:line: field 'path': expected <what>, got <what>", with the
//     1-based line of the offending node as yaml-cpp marks it; YAML syntax errors read
//     "file:line: YAML syntax error: ...".
//  2. Unknown keys are errors that list the allowed keys; names are unique; the depth of the
//     tree matches `levels`; nodes appear only at the deepest level; facility entries name
//     existing domains and carry positive limits.
//  3. No input crashes the parser or makes it run away: yaml-cpp exceptions are caught, cyclic
//     aliases are bounded by the level depth, and the limits below cap what a file may expand to.
// Threading: pure functions; safe to call concurrently.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/cluster.h"

namespace headroom::model {

// Caps on what one file may describe, checked before anything is expanded. The defaults are
// about ten times the design scale (100,000 devices; DESIGN.md "Scale").
struct ClusterYamlLimits {
  uint64_t max_nodes = 1'000'000;
  uint64_t max_domains = 1'000'000;
  uint64_t max_devices = 4'194'304;
  int64_t max_devices_per_node = 1024;
};

// Parses a cluster description; `source_name` (usually the path) prefixes every message.
Result<Cluster> ParseClusterYaml(std::string_view text, const std::string& source_name,
                                 const ClusterYamlLimits& limits = {});

// Reads and parses a file; a missing file is ErrorCode::kNotFound.
Result<Cluster> LoadClusterYaml(const std::string& path, const ClusterYamlLimits& limits = {});

}  // namespace headroom::model
