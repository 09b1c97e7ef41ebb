// FakeTelemetrySource: the fixed readings a fake inventory file gives its devices, reported on
// every sample, so tests and development clusters exercise the telemetry path without GPUs.
// A device without a `telemetry` block reports no readings (all absent).
// Threading: used by the agent's one thread.
#pragma once

#include <memory>

#include "agent/device_telemetry.h"
#include "agent/inventory.h"

namespace headroom::agent {

std::unique_ptr<TelemetrySource> MakeFakeTelemetrySource(const Inventory& inventory);

}  // namespace headroom::agent
