// ReadPlainHeartbeat: headroomd's fast reader of an agent's heartbeat body, straight from the
// JSON parser's events into a HeartbeatRequest, with no document tree in between. 12,500 nodes
// send 1,250 heartbeats a second, and building the tree (a map per task and per device) was
// two thirds of what a heartbeat cost the daemon.
//
// It takes only bodies of the shape HeartbeatJson writes (members in any order, null for an
// absent optional) whose values are all valid; for anything else (an unknown or repeated member,
// a wrong type, a value out of range, deeper nesting, text that is not JSON) it returns nullopt,
// and the daemon reads the body the slow way, which names the problem.
//
// Promise: when it returns a heartbeat, the slow way (a JSON object without repeated keys, then
// ParseHeartbeatRequest) accepts the body and returns the same heartbeat (tests and
// fuzz/agent_protocol_fuzz.cc check the two against each other).
// Threading: a pure function.
#pragma once

#include <optional>
#include <string_view>

#include "model/agent_protocol.h"

namespace headroom::model {

std::optional<HeartbeatRequest> ReadPlainHeartbeat(std::string_view body);

}  // namespace headroom::model
