// API JSON: how the daemon's records look on the wire (docs/api.md: JOB, NODE, events, ...),
// and small helpers for reading request bodies with errors that name the field.
// Threading: pure functions.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "control/api_error.h"
#include "control/daemon_state.h"
#include "control/event_log.h"
#include "control/live_loop.h"
#include "control/names.h"
#include "control/records.h"

namespace headroom::control {

using Json = nlohmann::json;

// Unix seconds as a JSON number, or null for 0 / kNever.
Json TimeJson(TimeUs time_us);

Json JobJson(const JobRecord& job, const PendingInfo* pending);
// `allocated_milli`: held by running jobs on this node.
// `hot_spare`: the engine keeps the node idle for jobs faults requeue (recovery.hot_spares).
Json NodeJson(const NodeStatus& node, const TopologyNode* topology, uint64_t allocated_milli,
              bool hot_spare);
std::string NodeStateName(const NodeStatus& node);  // up | drained | unknown | down
Json EventJson(const LoggedEvent& event);

// Deepest nesting of arrays and objects a request body may have (the documented bodies need 3).
inline constexpr size_t kMaxJsonDepth = 32;

// Parses a JSON request body: an object, nested at most kMaxJsonDepth deep (checked before any
// value is built), each key at most once per object. 400 naming the problem otherwise, with the
// path of a duplicated key ("devices[1].uuid").
ApiResult<Json> ParseBody(std::string_view body);
// The body of a drain, a device move or a hold: empty, or {"reason": "..."}; "" when empty.
ApiResult<std::string> ReasonOf(std::string_view body);
// 400 naming the first member of `object` not in `known`, and listing the known ones; for the
// bodies whose fields are fixed (tokens, registrations, drains, scaling). `path` is the
// object's own path ("" for the body, "devices[2]").
ApiResult<void> RejectUnknownFields(const Json& object, std::string_view path,
                                    std::initializer_list<std::string_view> known);
// What a message may say it got: a short escaped excerpt of a string, a number or literal, "a
// list of N items" or "an object" — never the whole value.
std::string DescribeJson(const Json& value);
// `path` with control bytes escaped, cut to 64 bytes: a field path built from a client's keys.
std::string PathForMessage(std::string_view path);
// Typed members of a request object; `path` names the field in messages.
ApiResult<std::string> StringField(const Json& object, std::string_view key, std::string_view path,
                                   bool required);
// A string member checked as a name of `kind` (control/names.h): 400 "path: expected <what a
// valid name is>, got <excerpt>". Required unless `kind` allows an empty name (then a missing
// member reads as "").
ApiResult<std::string> NameField(const Json& object, std::string_view key, std::string_view path,
                                 NameKind kind);
ApiResult<bool> BoolField(const Json& object, std::string_view key, std::string_view path,
                          bool fallback);
ApiResult<int64_t> IntField(const Json& object, std::string_view key, std::string_view path,
                            int64_t min, int64_t max, std::optional<int64_t> fallback);
ApiResult<std::optional<double>> NumberField(const Json& object, std::string_view key,
                                             std::string_view path);

}  // namespace headroom::control
