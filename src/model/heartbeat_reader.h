// Fast readers of the two heartbeat bodies, straight from the JSON parser's events into the
// structs, with no document tree in between: ReadPlainHeartbeat for headroomd (12,500 nodes send
// 1,250 heartbeats a second, and building the tree, a map per task and per device, was two
// thirds of what a heartbeat cost the daemon), ReadPlainHeartbeatReply for the agent (and its
// emulator, which reads 12,500 nodes' replies on one machine).
//
// Each takes only bodies of the shape HeartbeatJson or HeartbeatReplyJson writes (members in any
// order, null for an absent optional) whose values are all valid; for anything else (an unknown
// or repeated member, a wrong type, a value out of range, deeper nesting, text that is not JSON)
// it returns nullopt, and the caller reads the body the slow way, which names the problem.
//
// Promise: when one returns a value, the slow way (a JSON object without repeated keys, then
// ParseHeartbeatRequest; ParseHeartbeatReply) accepts the body and returns the same value (tests
// and fuzz/agent_protocol_fuzz.cc check the two against each other).
// Threading: pure functions.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/agent_protocol.h"

namespace headroom::model {

std::optional<HeartbeatRequest> ReadPlainHeartbeat(std::string_view body);
std::optional<std::vector<DesiredTask>> ReadPlainHeartbeatReply(std::string_view body);

// The agent's reader of a reply: the fast one, else ParseHeartbeatReply.
Result<std::vector<DesiredTask>> ReadHeartbeatReply(std::string_view body);

}  // namespace headroom::model
