// Exporter readings: the per-device samples a GPU exporter publishes in Prometheus text, in
// either vendor's names, so that device health does not tie an operator to one supplier's tools.
//
// NVIDIA dcgm-exporter (DCGM field ids, docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/
// dcgm-api-field-ids.html; labels `gpu` = NVML index, `UUID`, `modelName`, `Hostname`):
//   DCGM_FI_DEV_GPU_TEMP °C -> temp_c          DCGM_FI_DEV_POWER_USAGE W -> power_w
//   DCGM_FI_PROF_GR_ENGINE_ACTIVE ratio, else DCGM_FI_DEV_GPU_UTIL % -> util (fraction)
//   DCGM_FI_DEV_XID_ERRORS last XID -> xid_errors
//   DCGM_FI_DEV_ECC_DBE_VOL_TOTAL -> ecc_uncorrectable
//   DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS -> remapped_rows
//   DCGM_FI_DEV_ROW_REMAP_FAILURE 0/1 -> row_remap_failure
//   DCGM_FI_DEV_NVLINK_{CRC_FLIT,CRC_DATA,REPLAY,RECOVERY}_ERROR_COUNT_TOTAL, summed ->
//   nvlink_errors
// AMD device-metrics-exporter (ROCm/device-metrics-exporter docs/configuration/metricslist.md;
// names lowercased as it serves them, optionally prefixed `amd_`; labels `gpu_id`, `gpu_uuid`,
// `card_series`, `hostname`):
//   gpu_junction_temperature (MI3xx), else gpu_edge_temperature (MI2xx) °C -> temp_c
//   gpu_power_usage, else gpu_package_power, else gpu_average_package_power W -> power_w
//   gpu_gfx_activity % -> util        gpu_ecc_uncorrect_total -> ecc_uncorrectable
//
// Promises: a sample of a known name without its index label, with an index outside 0..1023,
// or with a value out of its range (a percentage outside 0..100, a count or XID that is not a
// non-negative integer, a flag other than 0 or 1) is an error "line N: NAME: expected …, got …";
// NaN readings count as absent; for a repeated (name, index) the first sample wins (MIG and
// partition instances repeat device fields with extra labels); where two names feed one field,
// the preferred one wins whatever the order. Other metrics are ignored.
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/agent_protocol.h"
#include "model/prometheus_text.h"

namespace headroom::model {

enum class ExporterVendor : uint8_t { kNvidia, kAmd };
std::string_view ExporterVendorName(ExporterVendor vendor);  // "nvidia", "amd"

struct ExporterDevice {
  DeviceTelemetry reading;
  ExporterVendor vendor = ExporterVendor::kNvidia;
  std::string uuid;      // "" when the exporter gives none.
  std::string model;     // modelName or card_series; "" when none.
  std::string hostname;  // "" when none.
};

// One entry per device index that appears, ordered by index.
Result<std::vector<ExporterDevice>> ExporterDevicesFromSamples(
    const std::vector<PrometheusSample>& samples);

// The same from a whole exposition (ParsePrometheusText first).
Result<std::vector<ExporterDevice>> ParseExporterText(std::string_view text);

// The same from a file of at most kMaxExporterFileBytes; errors start with the path.
inline constexpr size_t kMaxExporterFileBytes = 16u << 20;
Result<std::vector<ExporterDevice>> LoadExporterFile(const std::string& path);

nlohmann::json ExporterDeviceJson(const ExporterDevice& device);

}  // namespace headroom::model
