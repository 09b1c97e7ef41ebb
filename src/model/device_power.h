// What one accelerator draws and how fast it runs under a power limit (docs/facility.md, "Device
// power"): a spec per device model (limits, idle draw, thermal thresholds), the demand of the
// work on it (training's compute and communication phases, inference following its load), and
// what a cap or a thermal limit costs in speed through the DVFS curve of PHYSICS.md §5.1.
//
// Promises: pure functions of their arguments; every power is in watts, at least 0; a speed is
// in (0, 1] for running work; a lower cap never gives more power or more speed.
#pragma once

#include <string_view>

namespace headroom::model {

struct DevicePowerSpec {
  std::string_view model;
  double tdp_w = 0;      // The default power limit.
  double min_cap_w = 0;  // The range `nvidia-smi -pl` accepts.
  double max_cap_w = 0;
  double idle_w = 0;          // No context: the static power of the DVFS curve.
  double idle_context_w = 0;  // A context resident, nothing running.
  // Steady-state die temperature above the inlet (or coolant) per watt, °C/W.
  double r_th_c_per_w = 0;
  double max_operating_c = 0;  // Software thermal slowdown above this.
  double slowdown_c = 0;       // Hardware slowdown (clocks halved) above this.
  double shutdown_c = 0;       // Off above this.
  bool known = true;           // False: the generic spec of a model not in the table.
};

// The spec of `model` as the cluster names it ("H100", "A100-40GB", "V100M32", "philly-12GB");
// an unknown name gets a generic 700 W spec with `known` false.
const DevicePowerSpec& PowerSpecOf(std::string_view model);

// The lowest clock the DVFS curve goes to, as a share of the highest (an assumption; H100's
// lowest SM clock is about a sixth of its boost clock).
inline constexpr double kMinClockShare = 0.2;

// Work on a device, as its power model sees it.
struct WorkProfile {
  enum class Kind { kIdle, kTraining, kInference };
  Kind kind = Kind::kTraining;
  // Training: the share of a step spent communicating or checkpointing, at the lower phase
  // power; the rest computes (Acme's busy A100s average 387 W of 400 W, docs/facility.md).
  double comm_share = 0.06;
  // Inference: the share of the replica's capacity in use, and of its busy time in prefill.
  double load = 1;
  double prefill_share = 0.3;
  // How throughput follows the clock: 1 compute-bound, 0.3 memory-bound (decode).
  double clock_exponent = 1;
};

WorkProfile TrainingProfile();
WorkProfile InferenceProfile(double load);
WorkProfile IdleProfile();

// Demand per phase: what the device would draw unlimited.
double ComputePhaseW(const DevicePowerSpec& spec);  // Training compute: the TDP.
double CommPhaseW(const DevicePowerSpec& spec);     // Training communication: 0.45·TDP.

// The device's draw and speed running `work` under `limit_w` (a power cap, or the power a
// thermal limit allows), averaged over phases (seconds long, well inside a step of the
// simulator). `peak_w` is the highest phase draw: what a gang's synchronous swing puts on a feed.
struct PowerDraw {
  double mean_w = 0;
  double peak_w = 0;
  double speed = 1;  // Throughput as a share of the unlimited device's.
  bool limited = false;
};
PowerDraw DrawUnder(const DevicePowerSpec& spec, const WorkProfile& work, double limit_w);

// The clock share at which a phase demanding `demand_w` draws `limit_w` (P_dyn ∝ f³), within
// [kMinClockShare, 1].
double ClockShareAt(const DevicePowerSpec& spec, double demand_w, double limit_w);

// A cap within the device's accepted range.
double ClampCap(const DevicePowerSpec& spec, double cap_w);

}  // namespace headroom::model
