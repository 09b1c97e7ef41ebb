#include "model/device_power.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "base/check.h"

namespace headroom::model {
namespace {

// Sources and assumptions per value: docs/facility.md, "Device specs" (PHYSICS.md §1.1, §2.1).
// Where a model's idle draw or thermal resistance is unpublished, idle is A100's share of its
// TDP (65 of 400 W) and the resistance puts the loaded device 7.5 °C under its software
// slowdown at a 25 °C inlet (PHYSICS.md §5.2's rule).
constexpr double kIdleShare = 65.0 / 400.0;
constexpr double RuleResistance(double tdp_w, double max_operating_c) {
  return (max_operating_c - 7.5 - 25.0) / tdp_w;
}
constexpr DevicePowerSpec Older(std::string_view model, double tdp_w) {
  return {model,
          tdp_w,
          tdp_w * 0.4,
          tdp_w,
          tdp_w * kIdleShare,
          tdp_w * kIdleShare * 1.4,
          RuleResistance(tdp_w, 85),
          85,
          89,
          92,
          true};
}

constexpr std::array kSpecs = {
    DevicePowerSpec{"A100", 400, 100, 400, 65, 90, 0.10, 85, 89, 92, true},
    DevicePowerSpec{"A100-40GB", 400, 100, 400, 65, 90, 0.10, 85, 89, 92, true},
    DevicePowerSpec{"H100", 700, 200, 700, 75, 140, 0.07, 87, 89, 92, true},
    DevicePowerSpec{"H200", 700, 200, 700, 75, 140, 0.07, 87, 89, 92, true},
    DevicePowerSpec{"B200", 1000, 200, 1000, 140, 200, 0.035, 87, 89, 92, true},
    DevicePowerSpec{"GB200", 1200, 200, 1200, 140, 200, 0.035, 87, 89, 92, true},
    Older("V100M16", 300),
    Older("V100M32", 300),
    Older("T4", 70),
    Older("A10", 150),
    Older("philly-12GB", 250),
    Older("philly-24GB", 250),
};
constexpr DevicePowerSpec kGeneric{"generic", 700, 200, 700, 75, 140, 0.07, 87, 89, 92, false};

constexpr double kCommShareOfTdp = 0.45;
constexpr double kPrefillShareOfTdp = 0.9;
constexpr double kDecodeShareOfTdp = 0.3;
constexpr double kDecodeClockExponent = 0.3;

// Draw of a phase demanding `demand_w` at clock share `clock`.
double DrawAt(const DevicePowerSpec& spec, double demand_w, double clock) {
  if (demand_w <= spec.idle_w) return demand_w;
  return spec.idle_w + (demand_w - spec.idle_w) * clock * clock * clock;
}

}  // namespace

const DevicePowerSpec& PowerSpecOf(std::string_view model) {
  for (const DevicePowerSpec& spec : kSpecs) {
    if (spec.model == model) return spec;
  }
  return kGeneric;
}

WorkProfile TrainingProfile() { return WorkProfile{}; }

WorkProfile InferenceProfile(double load) {
  WorkProfile work;
  work.kind = WorkProfile::Kind::kInference;
  work.load = std::clamp(load, 0.0, 1.0);
  work.clock_exponent =
      work.prefill_share + (1 - work.prefill_share) * kDecodeClockExponent;  // Prefill computes.
  return work;
}

WorkProfile IdleProfile() {
  WorkProfile work;
  work.kind = WorkProfile::Kind::kIdle;
  return work;
}

double ComputePhaseW(const DevicePowerSpec& spec) { return spec.tdp_w; }
double CommPhaseW(const DevicePowerSpec& spec) { return kCommShareOfTdp * spec.tdp_w; }

double ClockShareAt(const DevicePowerSpec& spec, double demand_w, double limit_w) {
  if (demand_w <= limit_w) return 1;
  if (limit_w <= spec.idle_w || demand_w <= spec.idle_w) return kMinClockShare;
  return std::clamp(std::cbrt((limit_w - spec.idle_w) / (demand_w - spec.idle_w)), kMinClockShare,
                    1.0);
}

double ClampCap(const DevicePowerSpec& spec, double cap_w) {
  return std::clamp(cap_w, spec.min_cap_w, spec.max_cap_w);
}

PowerDraw DrawUnder(const DevicePowerSpec& spec, const WorkProfile& work, double limit_w) {
  HR_CHECK(limit_w >= 0);
  PowerDraw draw;
  switch (work.kind) {
    case WorkProfile::Kind::kIdle:
      // The static draw is there whatever the limit.
      draw.mean_w = draw.peak_w = spec.idle_w;
      return draw;
    case WorkProfile::Kind::kTraining: {
      // Synchronous training alternates a compute phase at the TDP and a communication phase
      // well under it; a limit slows the compute phase only (communication waits on the fabric).
      const double comm_share = std::clamp(work.comm_share, 0.0, 1.0);
      const double compute_clock = ClockShareAt(spec, ComputePhaseW(spec), limit_w);
      const double comm_clock = ClockShareAt(spec, CommPhaseW(spec), limit_w);
      const double compute_w = DrawAt(spec, ComputePhaseW(spec), compute_clock);
      const double comm_w = DrawAt(spec, CommPhaseW(spec), comm_clock);
      const double compute_speed = std::pow(compute_clock, work.clock_exponent);
      const double step = comm_share + (1 - comm_share) / compute_speed;
      draw.mean_w = (comm_share * comm_w + (1 - comm_share) / compute_speed * compute_w) / step;
      draw.peak_w = std::max(compute_w, comm_share > 0 ? comm_w : 0.0);
      draw.speed = 1 / step;
      draw.limited = compute_clock < 1;
      return draw;
    }
    case WorkProfile::Kind::kInference: {
      // A replica follows its load: resident context at rest, prefill near the TDP, decode far
      // under it (PHYSICS.md §1.1: 137-300 W on a 700 W H200).
      const double busy_w = spec.tdp_w * (work.prefill_share * kPrefillShareOfTdp +
                                          (1 - work.prefill_share) * kDecodeShareOfTdp);
      const double demand_w =
          spec.idle_context_w + std::max(busy_w - spec.idle_context_w, 0.0) * work.load;
      const double clock = ClockShareAt(spec, demand_w, limit_w);
      draw.mean_w = DrawAt(spec, demand_w, clock);
      // Prefill bursts reach the prefill phase's draw whatever the mean load.
      const double prefill_w = kPrefillShareOfTdp * spec.tdp_w;
      const double burst_w = DrawAt(spec, prefill_w, ClockShareAt(spec, prefill_w, limit_w));
      draw.peak_w = std::max(draw.mean_w, work.load > 0 ? burst_w : 0.0);
      draw.speed = std::pow(clock, work.clock_exponent);
      draw.limited = clock < 1;
      return draw;
    }
  }
  return draw;
}

}  // namespace headroom::model
