// An H100's draw as the facility ledger projects it (model/device_power.h), in kW: idle, and
// training's mean draw above idle under a cap of `share` of its TDP. For tests that size a
// building's limits to what a placement puts on it.
#pragma once

#include "model/device_power.h"

namespace headroom::testing {

inline double H100IdleKw() {
  const model::DevicePowerSpec& h100 = model::PowerSpecOf("H100");
  return model::DrawUnder(h100, model::IdleProfile(), h100.tdp_w).mean_w / 1e3;
}

inline double H100WorkKw(double share = 1) {
  const model::DevicePowerSpec& h100 = model::PowerSpecOf("H100");
  return model::DrawUnder(h100, model::TrainingProfile(), h100.tdp_w * share).mean_w / 1e3 -
         H100IdleKw();
}

}  // namespace headroom::testing
