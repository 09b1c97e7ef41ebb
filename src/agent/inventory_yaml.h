// The fake inventory file: a node's CPU, memory and devices written by hand, for machines
// without NVML (tests, development, CI). The schema is in docs/agent.md:
//   cpu: 64                 # cores, or "500m"
//   memory: 512Gi           # Mi, Gi or Ti
//   devices:
//   - {index: 0, uuid: GPU-0, model: H100, memory: 80Gi, clique_id: "c0.1",
//      telemetry: {temp_c: 41, power_w: 312.5, util: 0.93, xid_errors: 0}}
//
// Promises: every error is one line "file:line: field 'devices[2].model': expected <what>, got
// <what>"; unknown keys, duplicate indices and duplicate UUIDs are errors; devices come back
// ordered by index. Never throws.
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>

#include "agent/inventory.h"
#include "base/result.h"

namespace headroom::agent {

// Parses inventory text; `source_name` (usually the path) prefixes every message.
Result<Inventory> ParseInventoryYaml(std::string_view text, const std::string& source_name);

// Reads and parses a file; a missing file is ErrorCode::kNotFound.
Result<Inventory> LoadInventoryYaml(const std::string& path);

}  // namespace headroom::agent
