// DeviceTelemetry: one sample of one device's health readings, as the agent reports it in a
// heartbeat (docs/api.md "Agents"), and the TelemetrySource role that produces them (NVML, a
// dcgm-exporter endpoint, or the fixed values of a fake inventory).
//
// Units are in the names: degrees Celsius, watts, utilization as a fraction in [0, 1]. A reading
// the source cannot give is absent (null in JSON), never a made-up zero.
// Threading: a source is used by the agent's one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom::agent {

struct DeviceTelemetry {
  int index = 0;  // The device index (NVML's, which CUDA_VISIBLE_DEVICES uses).
  std::optional<double> temp_c;
  std::optional<double> power_w;
  std::optional<double> util;  // Fraction of time a kernel ran, in [0, 1].
  // The last XID error the device raised, 0 for none (DCGM_FI_DEV_XID_ERRORS' meaning).
  std::optional<int64_t> xid_errors;

  friend bool operator==(const DeviceTelemetry&, const DeviceTelemetry&) = default;
};

class TelemetrySource {
 public:
  virtual ~TelemetrySource() = default;
  // "nvml", "dcgm" or "fake": for logs and --print-inventory.
  virtual std::string_view name() const = 0;
  // One reading per device it knows, ordered by index. An error says what to fix.
  virtual Result<std::vector<DeviceTelemetry>> Sample() = 0;
};

}  // namespace headroom::agent
