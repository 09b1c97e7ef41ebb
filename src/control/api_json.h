// API JSON: how the daemon's records look on the wire (docs/api.md: JOB, NODE, events, ...),
// and small helpers for reading request bodies with errors that name the field.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "control/api_error.h"
#include "control/daemon_state.h"
#include "control/event_log.h"
#include "control/live_loop.h"
#include "control/records.h"

namespace headroom::control {

using Json = nlohmann::json;

// Unix seconds as a JSON number, or null for 0 / kNever.
Json TimeJson(TimeUs time_us);

Json JobJson(const JobRecord& job, const PendingInfo* pending);
// `allocated_milli`: held by running jobs on this node.
Json NodeJson(const NodeStatus& node, const TopologyNode* topology, uint64_t allocated_milli);
std::string NodeStateName(const NodeStatus& node);  // up | drained | unknown | down
Json EventJson(const LoggedEvent& event);

// Parses a JSON request body (an object); 400 naming the problem otherwise.
ApiResult<Json> ParseBody(std::string_view body);
// Typed members of a request object; `path` names the field in messages.
ApiResult<std::string> StringField(const Json& object, std::string_view key, std::string_view path,
                                   bool required);
ApiResult<bool> BoolField(const Json& object, std::string_view key, std::string_view path,
                          bool fallback);
ApiResult<int64_t> IntField(const Json& object, std::string_view key, std::string_view path,
                            int64_t min, int64_t max, std::optional<int64_t> fallback);
ApiResult<std::optional<double>> NumberField(const Json& object, std::string_view key,
                                             std::string_view path);

}  // namespace headroom::control
