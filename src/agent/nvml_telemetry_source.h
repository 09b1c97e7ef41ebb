// NvmlTelemetrySource: device readings sampled through a loaded NvmlLibrary (temperature, power,
// utilization; XIDs are absent — NVML delivers them as events, which the agent does not poll).
// Threading: used by the agent's one thread; shares the library with discovery.
#pragma once

#include <memory>

#include "agent/device_telemetry.h"
#include "agent/nvml_library.h"

namespace headroom::agent {

std::unique_ptr<TelemetrySource> MakeNvmlTelemetrySource(std::shared_ptr<NvmlLibrary> library);

}  // namespace headroom::agent
