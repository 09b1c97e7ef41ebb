// PowerLimiter: the agent's side of the scheduler's power caps (engine/decision.h CapJob). Each
// heartbeat reply says, per task, the limit its devices should run under
// (model::DesiredTask::power_cap_w); the limiter sets every device of the node to the limit its
// task asks, and back to the device's default when no task asks for one. Through NVML where the
// library is present (the limit clamped to the range the device accepts, as `nvidia-smi -pl`
// would be; setting it needs root); without it, the limit is recorded, not applied, and said so.
//
// Promises: a device's limit is set only when what is asked of it changes; a failure is logged
// once and tried again only when the ask changes; the first Apply brings every device to what is
// asked, so a cap an earlier run of the agent left is lifted.
// Threading: the agent's one thread.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "base/result.h"
#include "model/agent_protocol.h"

namespace headroom::agent {

// A device's power limit now, its default, and the range it accepts, in watts.
struct PowerLimitRange {
  uint32_t now_w = 0;
  uint32_t default_w = 0;
  uint32_t min_w = 0;
  uint32_t max_w = 0;
};

// Where limits are read and set: NVML (nvml_library.h) or a test's fake.
class PowerControl {
 public:
  virtual ~PowerControl() = default;
  virtual Result<PowerLimitRange> Limits(int index) = 0;
  virtual Result<void> Set(int index, uint32_t limit_w) = 0;
};

class PowerLimiter {
 public:
  // `control` null: limits are recorded only. `log` gets one line per change or failure.
  PowerLimiter(PowerControl* control, std::vector<int> device_indices,
               std::function<void(const std::string&)> log);

  void Apply(const std::vector<model::DesiredTask>& desired);
  // What each device was last asked to run under (0: its default), by device index.
  const std::map<int, int64_t>& asked() const { return asked_; }
  // The limit each device was set to, where it was (by device index).
  const std::map<int, uint32_t>& applied() const { return applied_; }

 private:
  PowerControl* control_;
  std::vector<int> device_indices_;
  std::function<void(const std::string&)> log_;
  bool first_ = true;
  std::map<int, int64_t> asked_;
  std::map<int, uint32_t> applied_;
};

}  // namespace headroom::agent
