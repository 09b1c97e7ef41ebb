// DCGM telemetry: the device readings a dcgm-exporter publishes in Prometheus text, read by the
// `gpu` label (the NVML device index), and a TelemetrySource that scrapes an exporter's URL.
// Fields (https://docs.nvidia.com/datacenter/dcgm/latest/dcgm-api/dcgm-api-field-ids.html and
// dcgm-exporter's default-counters.csv):
//   DCGM_FI_DEV_GPU_TEMP     gauge, degrees C          -> temp_c
//   DCGM_FI_DEV_POWER_USAGE  gauge, W                  -> power_w
//   DCGM_FI_DEV_GPU_UTIL     gauge, percent (0..100)   -> util (fraction)
//   DCGM_FI_DEV_XID_ERRORS   gauge, last XID (0: none) -> xid_errors
//
// Promises: a sample of these four names without a `gpu` label holding a device index, a
// utilization outside 0..100, or an XID that is not a non-negative integer is an error naming its
// line; NaN readings count as absent; for a repeated (name, gpu) the first sample wins (MIG
// instances repeat device fields with extra labels). Other metrics are ignored.
// Threading: DcgmTelemetryFromSamples is pure; a DcgmExporterSource is used by one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/device_telemetry.h"
#include "agent/prometheus_text.h"

namespace headroom::agent {

// The readings in `samples`, one per device index that appears, ordered by index.
Result<std::vector<DeviceTelemetry>> DcgmTelemetryFromSamples(
    const std::vector<PrometheusSample>& samples);

struct DcgmExporterOptions {
  std::string url;  // http://host:port/metrics
  double timeout_s = 2.0;
};

// Checks that `url` reads http://host[:port]/path; the message names what is wrong.
tl::expected<void, Error> ValidateDcgmUrl(const std::string& url);

// Scrapes the exporter on every Sample(): one HTTP GET with the timeout, then the strict parse.
std::unique_ptr<TelemetrySource> MakeDcgmExporterSource(DcgmExporterOptions options);

}  // namespace headroom::agent
