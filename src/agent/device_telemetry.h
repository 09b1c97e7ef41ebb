// TelemetrySource: the role that produces the DeviceTelemetry an agent reports in a heartbeat
// (model/agent_protocol.h, docs/api.md "Agents"): NVML, a GPU exporter's URL or file, or the fixed
// values of a fake inventory.
// Threading: a source is used by the agent's one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/agent_protocol.h"

namespace headroom::agent {

using model::DeviceTelemetry;

class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  // "nvml", "exporter", "file" or "fake": for logs and --print-inventory.
  virtual std::string_view name() const = 0;
  // One reading per device it knows, ordered by index. An error says what to fix.
  virtual Result<std::vector<DeviceTelemetry>> Sample() = 0;
};

}  // namespace headroom::agent
