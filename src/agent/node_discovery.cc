#include "agent/node_discovery.h"

#include <utility>

#include <fmt/format.h>

#include "agent/exporter_source.h"
#include "agent/fake_telemetry_source.h"
#include "agent/host_facts.h"
#include "agent/inventory_yaml.h"
#include "agent/nvml_telemetry_source.h"

namespace headroom::agent {

Result<DiscoveredNode> DiscoverNode(const DiscoveryOptions& options) {
  DiscoveredNode node;
  std::optional<Inventory> file;
  if (!options.inventory_path.empty()) {
    auto loaded = LoadInventoryYaml(options.inventory_path);
    if (!loaded) return tl::unexpected(std::move(loaded).error());
    file = std::move(*loaded);
  }
  std::shared_ptr<NvmlLibrary> nvml;
  if (options.mode != DiscoveryMode::kInventory) {
    auto loaded = NvmlLibrary::Load(options.nvml_library);
    if (loaded) {
      nvml = std::move(*loaded);
    } else if (options.mode == DiscoveryMode::kNvml) {
      return MakeError(loaded.error().code, "--discovery nvml: {}", loaded.error().message);
    } else if (!file) {
      return MakeError(ErrorCode::kNotFound,
                       "no devices to register: {}; give --inventory FILE for a node without "
                       "NVML",
                       loaded.error().message);
    } else {
      node.notes.push_back(
          fmt::format("{}; devices from {}", loaded.error().message, options.inventory_path));
    }
  }
  if (nvml) {
    auto devices = nvml->Devices();
    if (!devices) return tl::unexpected(std::move(devices).error());
    node.inventory.devices = std::move(*devices);
    node.device_source = "nvml";
    node.notes.push_back(fmt::format("NVML found {} device(s){}", node.inventory.devices.size(),
                                     nvml->has_fabric_info()
                                         ? ""
                                         : " (driver without nvmlDeviceGetGpuFabricInfo: no "
                                           "clique ids)"));
    if (file) {
      node.notes.push_back(
          fmt::format("devices of {} ignored: NVML discovered them", options.inventory_path));
    }
  } else {
    if (!file) {
      return MakeError(ErrorCode::kInvalidArgument, "--discovery inventory needs --inventory FILE");
    }
    node.inventory.devices = file->devices;
    node.device_source = "inventory";
  }
  node.inventory.cpu_milli = file ? file->cpu_milli : HostCpuMilli();
  node.inventory.memory_mib = file ? file->memory_mib : HostMemoryMib();
  if (!options.dcgm_url.empty()) {
    if (auto valid = ValidateExporterUrl(options.dcgm_url); !valid) {
      return MakeError(ErrorCode::kInvalidArgument, "--dcgm-url: {}", valid.error().message);
    }
    node.telemetry = MakeExporterUrlSource({.url = options.dcgm_url});
  } else if (!options.telemetry_file.empty()) {
    node.telemetry = MakeExporterFileSource(options.telemetry_file);
  } else if (nvml) {
    node.telemetry = MakeNvmlTelemetrySource(nvml);
  } else {
    node.telemetry = MakeFakeTelemetrySource(node.inventory);
  }
  node.notes.push_back(fmt::format("telemetry from {}", node.telemetry->name()));
  node.nvml = std::move(nvml);
  return node;
}

}  // namespace headroom::agent
