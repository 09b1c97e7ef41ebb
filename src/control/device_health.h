// Device health: the lifecycle of each device an agent reports on, judged from its telemetry
// (model/exporter_readings.h) against HealthRules, with the evidence of every transition.
//
//   healthy ─warning─▶ suspect ─(no warning for suspect_clear)─▶ healthy
//   healthy | suspect | degraded ─fatal─▶ failed (in_repair at the repeat_failures-th failure
//                                                within repeat_window)
//   healthy | suspect ─temp_c ≥ degraded_temp_c─▶ degraded ─(cooled by the hysteresis)─▶ healthy
//   any ─operator diagnose─▶ diagnosing;  any ─operator repair─▶ in_repair
//   suspect ─(headroomd, within HealthRules::diagnose_share)─▶ diagnosing
//   diagnosing ─agent's diagnostics passed─▶ healthy | ─failed─▶ failed
//   failed | diagnosing | in_repair | suspect | degraded ─operator return─▶ healthy
//
// XIDs are classed by the driver catalog's immediate action (NVIDIA's Xid catalog as NVSentinel
// encodes it, and DCGM's health watch, `DcgmHealthWatch.cpp`): a reset or reboot action fails the
// device; an NVLink fault (74, 144-150) fails every device of the node, the link's domain on an
// HGX board; IGNORE-class memory events (63, 92, 94) make it suspect; application-caused ones
// (13, 31, 32, 43, 45) change nothing, the job restarts. A volatile uncorrectable ECC error or a
// failed row remap fails the device (DCGM: FAIL); remapped rows at DCGM's limit of 512 or NVLink
// errors growing faster than the rule make it suspect (DCGM: WARN).
//
// Promises: a reading is judged once (the XID gauge holds its last value, so an XID is news when
// the value changes, and counters when they grow), so a device an operator returned is not failed
// again by the same stale value; only healthy and suspect devices take new work (a degraded one
// takes only that of jobs that accept degraded devices, and under the policy's
// recovery.evacuate a suspect one none, live_loop_health.cc); the history keeps the
// last kMaxHistory transitions. The book of a node round-trips through its JSON (the daemon stores
// it). Threading: none; the daemon's state mutex guards the books.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "base/time.h"
#include "model/agent_protocol.h"

namespace headroom::control {

enum class DeviceState : uint8_t { kHealthy, kSuspect, kDegraded, kDiagnosing, kFailed, kInRepair };
inline constexpr DeviceState kDeviceStates[] = {DeviceState::kHealthy,  DeviceState::kSuspect,
                                                DeviceState::kDegraded, DeviceState::kDiagnosing,
                                                DeviceState::kFailed,   DeviceState::kInRepair};
std::string_view DeviceStateName(DeviceState state);  // "healthy", ..., "in_repair"
bool TakesWork(DeviceState state);

// What an XID means for scheduling.
enum class XidClass : uint8_t { kApplication, kWarning, kDeviceFatal, kNvlinkFatal };
XidClass ClassifyXid(int64_t xid);

struct HealthRules {
  // H100/H800 "max operating" temperature (nvidia-smi GPU_MAX, the SW slowdown point): above it
  // the clocks may drop below base and a gang runs at its slowest member's pace.
  double degraded_temp_c = 87.0;
  double temp_hysteresis_c = 5.0;
  int64_t remapped_rows_warn = 512;  // DCGM_LIMIT_MAX_ROW_REMAP_UNCORRECTABLE.
  // NVLink errors (CRC, replay, recovery) between two readings; DCGM's CRC limit is 100 a second.
  int64_t nvlink_errors_warn = 100;
  TimeUs suspect_clear_us = 3600 * kUsPerSecond;
  // A device that failed repeat_failures - 1 times within repeat_window goes to in_repair at its
  // next failure, not to failed: a device that keeps failing needs its hardware serviced, not
  // another reset (Meta's RSC: 1.2% of nodes, the "lemons", were behind 13% of daily jobs).
  uint32_t repeat_failures = 3;
  TimeUs repeat_window_us = 7 * 24 * 3600 * kUsPerSecond;
  // Storm guard (the circuit breaker of NVIDIA's NVSentinel, 50% of nodes in 5 minutes): once
  // health took devices of more than storm_share of the nodes out of use within storm_window,
  // it takes no more until an operator resumes it. A sudden mass failure is likelier a broken
  // monitor than broken hardware, and withdrawing the floor would stop the line.
  double storm_share = 0.5;
  TimeUs storm_window_us = 300 * kUsPerSecond;
  // Suspect devices no task uses go to active diagnostics on nodes whose agent runs them, while
  // fewer than this share of all devices are diagnosing (0: only operators start diagnostics).
  double diagnose_share = 0.02;
};

enum class OperatorAction : uint8_t { kDiagnose, kRepair, kReturn };

struct HealthTransition {
  TimeUs at_us = 0;
  DeviceState from = DeviceState::kHealthy;
  DeviceState to = DeviceState::kHealthy;
  std::string evidence;
};

struct DeviceHealth {
  DeviceState state = DeviceState::kHealthy;
  TimeUs since_us = 0;
  std::string evidence;      // Of the transition into the present state; "" for a fresh device.
  bool by_operator = false;  // Whether an operator, not telemetry, made the present state.
  std::deque<HealthTransition> history;
  // What was already judged: the last XID value and counters seen (-1: none yet).
  int64_t seen_xid = 0;
  int64_t seen_ecc = -1;
  int64_t seen_nvlink = -1;
  bool seen_remap_failure = false;
  TimeUs last_warning_us = 0;
};

class DeviceHealthBook {
 public:
  static constexpr size_t kMaxHistory = 16;

  // Judges one heartbeat's readings of the node's devices at `now`; returns the indexes of the
  // devices whose state changed, ascending.
  std::vector<uint32_t> Observe(std::span<const model::LabelledTelemetry> readings, TimeUs now,
                                const HealthRules& rules);
  // Suspect devices with no warning for rules.suspect_clear_us become healthy; returns them.
  std::vector<uint32_t> Expire(TimeUs now, const HealthRules& rules);
  // An operator's move; an error names the state it cannot come from.
  Result<void> Operate(uint32_t index, OperatorAction action, TimeUs now, std::string_view reason);
  // A suspect device goes to diagnosing (headroomd's own decision, not an operator's); false
  // when it is not suspect.
  bool StartDiagnosis(uint32_t index, TimeUs now);
  // The agent's diagnostics of a diagnosing device: healthy when passed, failed otherwise;
  // false (nothing changes) when the device is not diagnosing.
  bool Diagnosed(uint32_t index, bool passed, std::string_view message, TimeUs now);
  size_t count(DeviceState state) const;

  // Healthy when never seen.
  DeviceState state(uint32_t index) const;
  const std::map<uint32_t, DeviceHealth>& devices() const { return devices_; }
  bool empty() const { return devices_.empty(); }

  nlohmann::json ToJson() const;
  static Result<DeviceHealthBook> FromJson(const nlohmann::json& json);

 private:
  // Moves to `to` with the evidence; false when it already was there.
  bool Move(DeviceHealth& device, DeviceState to, TimeUs now, std::string evidence,
            bool by_operator = false);

  std::map<uint32_t, DeviceHealth> devices_;
};

nlohmann::json DeviceHealthJson(const DeviceHealth& device);

}  // namespace headroom::control
