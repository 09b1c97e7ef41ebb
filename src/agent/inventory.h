// Inventory: what a node offers the scheduler — CPU, memory and its devices — as the agent
// registers it (docs/api.md "Agents"). It comes from NVML discovery on a real GPU node, or from
// a fake inventory file (inventory_yaml.h) on test and development machines.
//
// Invariants (checked by whoever builds one): device indices are unique and in 0..1023; UUIDs
// are unique and non-empty; memory and CPU amounts are positive.
// Threading: plain data.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "agent/device_telemetry.h"

namespace headroom::agent {

using model::kMaxDeviceIndex;

struct InventoryDevice {
  int index = 0;
  std::string uuid;   // "GPU-..." as NVML reports it.
  std::string model;  // "NVIDIA H100 80GB HBM3" from NVML, or what the file says.
  int64_t memory_mib = 0;
  // The NVLink domain the device belongs to, "<cluster uuid>.<clique id>" from NVML's fabric
  // info; absent on systems without a multi-node NVLink fabric.
  std::optional<std::string> clique_id;
  // Fixed readings a fake inventory reports as its telemetry (FakeTelemetrySource).
  std::optional<DeviceTelemetry> fake_telemetry;
};

struct Inventory {
  int64_t cpu_milli = 0;
  int64_t memory_mib = 0;
  std::vector<InventoryDevice> devices;  // Ordered by index.
};

}  // namespace headroom::agent
