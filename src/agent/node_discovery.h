// Node discovery: where the agent's inventory and telemetry come from.
//   devices    NVML when libnvidia-ml.so.1 loads (mode auto or nvml), else the --inventory file
//              (mode auto or inventory); neither is an error that says so.
//   cpu/memory the inventory file's when given, else the host's.
//   telemetry  the exporter URL or file when given, else NVML when it discovered the devices,
//              else the inventory's fake readings.
// Promises: the notes explain each choice in one line (e.g. "NVML is not present: cannot load
// libnvidia-ml.so.1 (...); devices from inventory.yaml"), for the log and --print-inventory.
// Threading: call once at start.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/device_telemetry.h"
#include "agent/inventory.h"
#include "agent/nvml_library.h"
#include "base/result.h"

namespace headroom::agent {

enum class DiscoveryMode { kAuto, kNvml, kInventory };

struct DiscoveryOptions {
  DiscoveryMode mode = DiscoveryMode::kAuto;
  std::string inventory_path;  // Empty: none.
  std::string dcgm_url;        // Empty: none.
  std::string telemetry_file;  // Empty: none.
  std::string nvml_library = kNvmlLibraryName;
};

struct DiscoveredNode {
  Inventory inventory;
  std::string device_source;  // "nvml" or "inventory"
  std::unique_ptr<TelemetrySource> telemetry;
  // Where the devices' power limits are set (agent/power_limiter.h); null without NVML.
  std::shared_ptr<NvmlLibrary> nvml;
  std::vector<std::string> notes;
};

Result<DiscoveredNode> DiscoverNode(const DiscoveryOptions& options);

}  // namespace headroom::agent
