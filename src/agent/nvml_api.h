// The slice of the NVIDIA Management Library's C API the agent uses, declared here because the
// agent loads libnvidia-ml.so.1 at run time (dlopen) and builds on machines without NVML
// headers. Names, values and layouts follow the NVML API Reference Guide
// (https://docs.nvidia.com/deploy/nvml-api/, sections "Device Enums", "Device Structs",
// "Initialization and Cleanup", "Device Queries" and "GPU Fabric Information" of nvml.h for
// driver 550 and later). Only ABI-stable v1 entry points and structs are used:
//   nvmlReturn_t  nvmlInit_v2(void)
//   nvmlReturn_t  nvmlShutdown(void)
//   const char*   nvmlErrorString(nvmlReturn_t)
//   nvmlReturn_t  nvmlDeviceGetCount_v2(unsigned int* count)
//   nvmlReturn_t  nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device)
//   nvmlReturn_t  nvmlDeviceGetName(nvmlDevice_t, char* name, unsigned int length)
//   nvmlReturn_t  nvmlDeviceGetUUID(nvmlDevice_t, char* uuid, unsigned int length)
//   nvmlReturn_t  nvmlDeviceGetMemoryInfo(nvmlDevice_t, nvmlMemory_t* memory)
//   nvmlReturn_t  nvmlDeviceGetTemperature(nvmlDevice_t, nvmlTemperatureSensors_t, unsigned int*)
//   nvmlReturn_t  nvmlDeviceGetPowerUsage(nvmlDevice_t, unsigned int* milliwatts)
//   nvmlReturn_t  nvmlDeviceGetUtilizationRates(nvmlDevice_t, nvmlUtilization_t*)
//   nvmlReturn_t  nvmlDeviceGetGpuFabricInfo(nvmlDevice_t, nvmlGpuFabricInfo_t*)  (R550+; may
//                 be missing from older drivers)
//   nvmlReturn_t  nvmlDeviceGetPowerManagementLimit(nvmlDevice_t, unsigned int* milliwatts)
//   nvmlReturn_t  nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t, unsigned int* mW)
//   nvmlReturn_t  nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t, unsigned int* min_mW,
//                 unsigned int* max_mW)
//   nvmlReturn_t  nvmlDeviceSetPowerManagementLimit(nvmlDevice_t, unsigned int milliwatts)
//                 (root only, as `nvidia-smi -pl`; "Device Commands" of nvml.h)
// Threading: declarations only.
#pragma once

#include <cstdint>

namespace headroom::agent::nvml {

// nvmlReturn_t is a C enum: int-sized on every Linux ABI NVML ships for.
using Return = int;
inline constexpr Return kSuccess = 0;
inline constexpr Return kErrorUninitialized = 1;
inline constexpr Return kErrorInvalidArgument = 2;
inline constexpr Return kErrorNotSupported = 3;
inline constexpr Return kErrorNoPermission = 4;
inline constexpr Return kErrorNotFound = 6;
inline constexpr Return kErrorInsufficientSize = 7;
inline constexpr Return kErrorDriverNotLoaded = 9;
inline constexpr Return kErrorGpuIsLost = 15;
inline constexpr Return kErrorUnknown = 999;

// nvmlDevice_t: an opaque handle.
struct DeviceSt;
using Device = DeviceSt*;

// nvmlTemperatureSensors_t: NVML_TEMPERATURE_GPU = 0.
using TemperatureSensors = int;
inline constexpr TemperatureSensors kTemperatureGpu = 0;

// NVML_DEVICE_NAME_V2_BUFFER_SIZE and NVML_DEVICE_UUID_V2_BUFFER_SIZE.
inline constexpr unsigned int kDeviceNameBufferSize = 96;
inline constexpr unsigned int kDeviceUuidBufferSize = 96;

// nvmlMemory_t (v1): bytes.
struct Memory {
  unsigned long long total;
  unsigned long long free;
  unsigned long long used;
};

// nvmlUtilization_t: percent of the last sample period.
struct Utilization {
  unsigned int gpu;
  unsigned int memory;
};

// NVML_GPU_FABRIC_UUID_LEN and nvmlGpuFabricState_t.
inline constexpr int kGpuFabricUuidLen = 16;
using GpuFabricState = unsigned char;
inline constexpr GpuFabricState kGpuFabricStateNotSupported = 0;
inline constexpr GpuFabricState kGpuFabricStateNotStarted = 1;
inline constexpr GpuFabricState kGpuFabricStateInProgress = 2;
inline constexpr GpuFabricState kGpuFabricStateCompleted = 3;

// nvmlGpuFabricInfo_t (the unversioned struct nvmlDeviceGetGpuFabricInfo fills).
struct GpuFabricInfo {
  unsigned char cluster_uuid[kGpuFabricUuidLen];
  Return status;  // Meaningful only when state is kGpuFabricStateCompleted.
  unsigned int clique_id;
  GpuFabricState state;
};

extern "C" {
using InitFn = Return (*)();
using ShutdownFn = Return (*)();
using ErrorStringFn = const char* (*)(Return);
using DeviceGetCountFn = Return (*)(unsigned int*);
using DeviceGetHandleByIndexFn = Return (*)(unsigned int, Device*);
using DeviceGetStringFn = Return (*)(Device, char*, unsigned int);
using DeviceGetMemoryInfoFn = Return (*)(Device, Memory*);
using DeviceGetTemperatureFn = Return (*)(Device, TemperatureSensors, unsigned int*);
using DeviceGetPowerUsageFn = Return (*)(Device, unsigned int*);
using DeviceGetUtilizationRatesFn = Return (*)(Device, Utilization*);
using DeviceGetGpuFabricInfoFn = Return (*)(Device, GpuFabricInfo*);
using DeviceGetMilliwattsFn = Return (*)(Device, unsigned int*);
using DeviceGetLimitConstraintsFn = Return (*)(Device, unsigned int*, unsigned int*);
using DeviceSetPowerLimitFn = Return (*)(Device, unsigned int);
}

}  // namespace headroom::agent::nvml

namespace headroom::agent::nvml {
// The layouts above must match nvml.h byte for byte.
static_assert(sizeof(Memory) == 24);
static_assert(sizeof(Utilization) == 8);
static_assert(sizeof(GpuFabricInfo) == 28);
}  // namespace headroom::agent::nvml
