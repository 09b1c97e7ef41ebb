#include "agent/nvml_library.h"

#include <dlfcn.h>

#include <utility>

#include <fmt/format.h>

namespace headroom::agent {
namespace {

constexpr unsigned long long kBytesPerMib = 1024ULL * 1024ULL;

// Readings a device may simply not offer; anything else is reported as an error.
bool IsUnsupported(nvml::Return code) {
  return code == nvml::kErrorNotSupported || code == nvml::kErrorNoPermission ||
         code == nvml::kErrorNotFound;
}

template <typename Fn>
bool Resolve(void* handle, const char* symbol, Fn& out) {
  // POSIX guarantees a data pointer from dlsym converts to a function pointer.
  out = reinterpret_cast<Fn>(dlsym(handle, symbol));
  return out != nullptr;
}

}  // namespace

Result<std::unique_ptr<NvmlLibrary>> NvmlLibrary::Load(const std::string& soname) {
  void* handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return MakeError(ErrorCode::kNotFound, "NVML is not present: cannot load {} ({})", soname,
                     why != nullptr ? why : "no reason given");
  }
  std::unique_ptr<NvmlLibrary> library(new NvmlLibrary(handle));
  nvml::InitFn init = nullptr;
  struct Required {
    const char* symbol;
    bool found;
  };
  const Required required[] = {
      {"nvmlInit_v2", Resolve(handle, "nvmlInit_v2", init)},
      {"nvmlShutdown", Resolve(handle, "nvmlShutdown", library->shutdown_)},
      {"nvmlDeviceGetCount_v2", Resolve(handle, "nvmlDeviceGetCount_v2", library->get_count_)},
      {"nvmlDeviceGetHandleByIndex_v2",
       Resolve(handle, "nvmlDeviceGetHandleByIndex_v2", library->get_handle_)},
      {"nvmlDeviceGetName", Resolve(handle, "nvmlDeviceGetName", library->get_name_)},
      {"nvmlDeviceGetUUID", Resolve(handle, "nvmlDeviceGetUUID", library->get_uuid_)},
      {"nvmlDeviceGetMemoryInfo", Resolve(handle, "nvmlDeviceGetMemoryInfo", library->get_memory_)},
      {"nvmlDeviceGetTemperature",
       Resolve(handle, "nvmlDeviceGetTemperature", library->get_temperature_)},
      {"nvmlDeviceGetPowerUsage", Resolve(handle, "nvmlDeviceGetPowerUsage", library->get_power_)},
      {"nvmlDeviceGetUtilizationRates",
       Resolve(handle, "nvmlDeviceGetUtilizationRates", library->get_utilization_)},
  };
  for (const Required& entry : required) {
    if (!entry.found) {
      // Not initialized yet: the destructor must not call nvmlShutdown.
      library->shutdown_ = nullptr;
      return MakeError(ErrorCode::kUnsupported,
                       "{} lacks the NVML function {}: is it NVIDIA's management library from "
                       "a driver of release 450 or later?",
                       soname, entry.symbol);
    }
  }
  Resolve(handle, "nvmlErrorString", library->error_string_);
  Resolve(handle, "nvmlDeviceGetGpuFabricInfo", library->get_fabric_info_);  // Optional.
  // Optional too: a limit set is checked against them when it is asked for.
  Resolve(handle, "nvmlDeviceGetPowerManagementLimit", library->get_power_limit_);
  Resolve(handle, "nvmlDeviceGetPowerManagementDefaultLimit", library->get_default_limit_);
  Resolve(handle, "nvmlDeviceGetPowerManagementLimitConstraints", library->get_limit_range_);
  Resolve(handle, "nvmlDeviceSetPowerManagementLimit", library->set_power_limit_);
  const nvml::Return status = init();
  if (status != nvml::kSuccess) {
    const std::string text = library->ErrorText(status);
    library->shutdown_ = nullptr;
    return MakeError(ErrorCode::kIo, "nvmlInit_v2 failed: {} (is the NVIDIA driver loaded?)", text);
  }
  return library;
}

NvmlLibrary::~NvmlLibrary() {
  if (shutdown_ != nullptr) shutdown_();
  if (handle_ != nullptr) dlclose(handle_);
}

std::string NvmlLibrary::ErrorText(nvml::Return code) const {
  if (error_string_ != nullptr) {
    if (const char* text = error_string_(code))
      return fmt::format("{} (NVML error {})", text, code);
  }
  return fmt::format("NVML error {}", code);
}

Result<std::vector<nvml::Device>> NvmlLibrary::Handles() {
  unsigned int count = 0;
  if (const nvml::Return status = get_count_(&count); status != nvml::kSuccess) {
    return MakeError(ErrorCode::kIo, "nvmlDeviceGetCount_v2 failed: {}", ErrorText(status));
  }
  if (count > static_cast<unsigned int>(kMaxDeviceIndex) + 1) {
    return MakeError(ErrorCode::kUnsupported, "NVML reports {} devices; at most {} are supported",
                     count, kMaxDeviceIndex + 1);
  }
  std::vector<nvml::Device> handles(count, nullptr);
  for (unsigned int i = 0; i < count; ++i) {
    if (const nvml::Return status = get_handle_(i, &handles[i]); status != nvml::kSuccess) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetHandleByIndex_v2({}) failed: {}", i,
                       ErrorText(status));
    }
  }
  return handles;
}

Result<std::vector<InventoryDevice>> NvmlLibrary::Devices() {
  auto handles = Handles();
  if (!handles) return tl::unexpected(std::move(handles).error());
  std::vector<InventoryDevice> devices;
  for (size_t i = 0; i < handles->size(); ++i) {
    const nvml::Device device = (*handles)[i];
    InventoryDevice out;
    out.index = static_cast<int>(i);
    char name[nvml::kDeviceNameBufferSize] = {};
    if (const nvml::Return status = get_name_(device, name, sizeof name);
        status != nvml::kSuccess) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetName({}) failed: {}", i, ErrorText(status));
    }
    out.model = name;
    char uuid[nvml::kDeviceUuidBufferSize] = {};
    if (const nvml::Return status = get_uuid_(device, uuid, sizeof uuid);
        status != nvml::kSuccess) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetUUID({}) failed: {}", i, ErrorText(status));
    }
    out.uuid = uuid;
    nvml::Memory memory{};
    if (const nvml::Return status = get_memory_(device, &memory); status != nvml::kSuccess) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetMemoryInfo({}) failed: {}", i,
                       ErrorText(status));
    }
    out.memory_mib = static_cast<int64_t>(memory.total / kBytesPerMib);
    if (get_fabric_info_ != nullptr) {
      nvml::GpuFabricInfo fabric{};
      const nvml::Return status = get_fabric_info_(device, &fabric);
      if (status == nvml::kSuccess && fabric.state == nvml::kGpuFabricStateCompleted &&
          fabric.status == nvml::kSuccess) {
        out.clique_id = FormatCliqueId(fabric);
      } else if (status != nvml::kSuccess && !IsUnsupported(status)) {
        return MakeError(ErrorCode::kIo, "nvmlDeviceGetGpuFabricInfo({}) failed: {}", i,
                         ErrorText(status));
      }
    }
    devices.push_back(std::move(out));
  }
  return devices;
}

Result<std::vector<DeviceTelemetry>> NvmlLibrary::Sample() {
  auto handles = Handles();
  if (!handles) return tl::unexpected(std::move(handles).error());
  std::vector<DeviceTelemetry> readings;
  for (size_t i = 0; i < handles->size(); ++i) {
    const nvml::Device device = (*handles)[i];
    DeviceTelemetry reading;
    reading.index = static_cast<int>(i);
    unsigned int temp_c = 0;
    nvml::Return status = get_temperature_(device, nvml::kTemperatureGpu, &temp_c);
    if (status == nvml::kSuccess) {
      reading.temp_c = static_cast<double>(temp_c);
    } else if (!IsUnsupported(status)) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetTemperature({}) failed: {}", i,
                       ErrorText(status));
    }
    unsigned int power_mw = 0;
    status = get_power_(device, &power_mw);
    if (status == nvml::kSuccess) {
      reading.power_w = static_cast<double>(power_mw) / 1000.0;
    } else if (!IsUnsupported(status)) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetPowerUsage({}) failed: {}", i,
                       ErrorText(status));
    }
    nvml::Utilization utilization{};
    status = get_utilization_(device, &utilization);
    if (status == nvml::kSuccess) {
      reading.util = static_cast<double>(utilization.gpu) / 100.0;
    } else if (!IsUnsupported(status)) {
      return MakeError(ErrorCode::kIo, "nvmlDeviceGetUtilizationRates({}) failed: {}", i,
                       ErrorText(status));
    }
    readings.push_back(reading);
  }
  return readings;
}

std::string FormatCliqueId(const nvml::GpuFabricInfo& info) {
  std::string uuid;
  for (int i = 0; i < nvml::kGpuFabricUuidLen; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) uuid += '-';
    uuid += fmt::format("{:02x}", info.cluster_uuid[i]);
  }
  return fmt::format("{}.{}", uuid, info.clique_id);
}

Result<PowerLimitRange> NvmlLibrary::Limits(int index) {
  if (get_power_limit_ == nullptr || get_default_limit_ == nullptr || get_limit_range_ == nullptr ||
      set_power_limit_ == nullptr) {
    return MakeError(
        ErrorCode::kUnsupported,
        "this NVML lacks the power-management functions (nvmlDevice*PowerManagement*)");
  }
  nvml::Device device = nullptr;
  if (const nvml::Return status = get_handle_(static_cast<unsigned int>(index), &device);
      status != nvml::kSuccess) {
    return MakeError(ErrorCode::kIo, "nvmlDeviceGetHandleByIndex_v2({}) failed: {}", index,
                     ErrorText(status));
  }
  unsigned int now_mw = 0;
  unsigned int default_mw = 0;
  unsigned int min_mw = 0;
  unsigned int max_mw = 0;
  for (const auto& [name, status] :
       {std::pair{"nvmlDeviceGetPowerManagementLimit", get_power_limit_(device, &now_mw)},
        std::pair{"nvmlDeviceGetPowerManagementDefaultLimit",
                  get_default_limit_(device, &default_mw)},
        std::pair{"nvmlDeviceGetPowerManagementLimitConstraints",
                  get_limit_range_(device, &min_mw, &max_mw)}}) {
    if (status != nvml::kSuccess) {
      return MakeError(ErrorCode::kIo, "{}({}) failed: {}", name, index, ErrorText(status));
    }
  }
  return PowerLimitRange{.now_w = now_mw / 1000,
                         .default_w = default_mw / 1000,
                         .min_w = min_mw / 1000,
                         .max_w = max_mw / 1000};
}

Result<void> NvmlLibrary::Set(int index, uint32_t limit_w) {
  auto range = Limits(index);
  if (!range) return tl::unexpected(std::move(range).error());
  nvml::Device device = nullptr;
  if (const nvml::Return status = get_handle_(static_cast<unsigned int>(index), &device);
      status != nvml::kSuccess) {
    return MakeError(ErrorCode::kIo, "nvmlDeviceGetHandleByIndex_v2({}) failed: {}", index,
                     ErrorText(status));
  }
  if (const nvml::Return status = set_power_limit_(device, limit_w * 1000);
      status != nvml::kSuccess) {
    return MakeError(ErrorCode::kIo, "nvmlDeviceSetPowerManagementLimit({}, {} W) failed: {}",
                     index, limit_w, ErrorText(status));
  }
  return {};
}

}  // namespace headroom::agent
