// Fuzzes both directions of the agent heartbeat contract (model/agent_protocol.h): no input may
// crash, hang or leak; a heartbeat headroomd accepts reads back the same after the agent's
// encoding, and so does a reply the agent accepts after the daemon's; and the daemon's fast
// heartbeat reader (model/heartbeat_reader.h) never reads a body otherwise than the slow way.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "model/agent_protocol.h"
#include "model/heartbeat_reader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace headroom::model;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const nlohmann::json body = nlohmann::json::parse(text, nullptr, false);
  if (auto fast = ReadPlainHeartbeat(text)) {
    if (body.is_discarded()) std::abort();
    auto slow = ParseHeartbeatRequest(body);
    if (!slow || *slow != *fast) std::abort();
  }
  if (!body.is_discarded()) {
    if (auto heartbeat = ParseHeartbeatRequest(body)) {
      // What the daemon read, sent again by an agent, reads the same.
      for (TaskReport& task : heartbeat->tasks) {
        if (task.key.attempt == 0) task.key.attempt = 1;
      }
      auto again = ParseHeartbeatRequest(HeartbeatJson(*heartbeat));
      if (!again || *again != *heartbeat) std::abort();
    }
  }
  if (auto fast = ReadPlainHeartbeatReply(text)) {
    auto slow = ParseHeartbeatReply(text);
    if (!slow || *slow != *fast) std::abort();
  }
  if (auto tasks = ParseHeartbeatReply(text)) {
    auto again = ParseHeartbeatReply(HeartbeatReplyJson(*tasks).dump());
    if (!again || *again != *tasks) std::abort();
  }
  return 0;
}
