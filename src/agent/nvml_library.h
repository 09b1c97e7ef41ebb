// NvmlLibrary: NVML loaded at run time — dlopen("libnvidia-ml.so.1"), dlsym of the entry points
// in nvml_api.h, nvmlInit_v2 — so one agent binary runs on GPU nodes and on machines without a
// driver. It discovers the node's devices (index, UUID, name, memory, NVLink fabric clique) and
// samples their temperature, power and utilization, and sets their power limits.
//
// Promises:
//  1. Load() never aborts: an absent library is ErrorCode::kNotFound with dlerror's words, a
//     library lacking a required symbol is kUnsupported naming it, a failed nvmlInit_v2 is kIo
//     with nvmlErrorString's words (e.g. "Driver Not Loaded").
//  2. nvmlDeviceGetGpuFabricInfo is optional (added in R550): without it, or where NVML says the
//     fabric is not supported or not yet registered, devices have no clique id.
//  3. A reading a device does not support (NVML_ERROR_NOT_SUPPORTED and friends) is absent
//     from its telemetry, not an error; XIDs are not polled through NVML (absent).
//  4. The destructor calls nvmlShutdown and dlclose exactly once.
// Threading: NVML itself is thread-safe; this object is used by the agent's one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/device_telemetry.h"
#include "agent/inventory.h"
#include "agent/nvml_api.h"
#include "agent/power_limiter.h"
#include "base/result.h"

namespace headroom::agent {

inline constexpr const char* kNvmlLibraryName = "libnvidia-ml.so.1";

class NvmlLibrary : public PowerControl {
 public:
  // Loads `soname` (a name searched the dlopen way, or a path) and initializes NVML.
  static Result<std::unique_ptr<NvmlLibrary>> Load(const std::string& soname = kNvmlLibraryName);

  ~NvmlLibrary() override;
  NvmlLibrary(const NvmlLibrary&) = delete;
  NvmlLibrary& operator=(const NvmlLibrary&) = delete;

  // The devices NVML sees, ordered by index. Memory in MiB (NVML reports bytes).
  Result<std::vector<InventoryDevice>> Devices();
  // One reading per device, ordered by index.
  Result<std::vector<DeviceTelemetry>> Sample();
  // Whether the driver exports nvmlDeviceGetGpuFabricInfo.
  bool has_fabric_info() const { return get_fabric_info_ != nullptr; }

  // Device `index`'s power limit now, the default, and the range it accepts.
  Result<PowerLimitRange> Limits(int index) override;
  // Sets device `index`'s power limit (root only): kUnsupported where the library lacks the
  // power-management functions, kIo with NVML's words otherwise (e.g. "Insufficient
  // Permissions").
  Result<void> Set(int index, uint32_t limit_w) override;

 private:
  explicit NvmlLibrary(void* handle) : handle_(handle) {}
  std::string ErrorText(nvml::Return code) const;
  Result<std::vector<nvml::Device>> Handles();

  void* handle_ = nullptr;
  nvml::ShutdownFn shutdown_ = nullptr;
  nvml::ErrorStringFn error_string_ = nullptr;
  nvml::DeviceGetCountFn get_count_ = nullptr;
  nvml::DeviceGetHandleByIndexFn get_handle_ = nullptr;
  nvml::DeviceGetStringFn get_name_ = nullptr;
  nvml::DeviceGetStringFn get_uuid_ = nullptr;
  nvml::DeviceGetMemoryInfoFn get_memory_ = nullptr;
  nvml::DeviceGetTemperatureFn get_temperature_ = nullptr;
  nvml::DeviceGetPowerUsageFn get_power_ = nullptr;
  nvml::DeviceGetUtilizationRatesFn get_utilization_ = nullptr;
  nvml::DeviceGetGpuFabricInfoFn get_fabric_info_ = nullptr;
  nvml::DeviceGetMilliwattsFn get_power_limit_ = nullptr;
  nvml::DeviceGetMilliwattsFn get_default_limit_ = nullptr;
  nvml::DeviceGetLimitConstraintsFn get_limit_range_ = nullptr;
  nvml::DeviceSetPowerLimitFn set_power_limit_ = nullptr;
};

// Formats a fabric clique as "<cluster uuid>.<clique id>", the cluster UUID in the usual
// 8-4-4-4-12 hex form (as NVIDIA's DRA driver names ComputeDomain cliques).
std::string FormatCliqueId(const nvml::GpuFabricInfo& info);

}  // namespace headroom::agent
