// The active-diagnostics exchange between headroomd and an agent (docs/api.md "Agents"),
// defined once for both ends, beside the heartbeat (agent_protocol.h) rather than in it:
// diagnostics are rare and minutes long, and the heartbeat of 12,500 nodes stays as lean as it is.
//   GET  /v1/agents/{node}/diagnostics  → {"diagnose": [3, 5]}: the devices headroomd wants the
//        agent's diagnostics command run on now. Polling it tells headroomd the agent has one.
//   POST /v1/agents/{node}/diagnostics  {"results": [{"index": 3, "passed": false,
//        "message": "..."}]} → 200 {"accepted": N}.
// Promises: parsing is strict (device indices 0..1023, each once; a message of at most 1024
// bytes; no unknown fields) and errors name the field path; encoding then parsing gives back
// what was encoded.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace headroom::model {

struct DiagnosticsResult {
  uint32_t index = 0;
  bool passed = false;
  std::string message;  // The command's last line of output, or why it did not finish.
  friend bool operator==(const DiagnosticsResult&, const DiagnosticsResult&) = default;
};

nlohmann::json DiagnoseJson(const std::vector<uint32_t>& devices);
Result<std::vector<uint32_t>> ParseDiagnose(std::string_view body);

nlohmann::json DiagnosticsResultsJson(const std::vector<DiagnosticsResult>& results);
Result<std::vector<DiagnosticsResult>> ParseDiagnosticsResults(const nlohmann::json& body);

}  // namespace headroom::model
