// Exporter sources: TelemetrySources that read a GPU exporter's Prometheus text, NVIDIA's
// dcgm-exporter or AMD's device-metrics-exporter (model/exporter_readings.h has the names), by
// scraping its URL or by reading a file the operator's tooling writes (as node-exporter's
// textfile collector reads *.prom files).
//
// Promises: every Sample() reads afresh (one HTTP GET with the timeout, or one read of the
// whole file) and applies the strict parse; an error names the URL or file and the line.
// Threading: a source is used by one thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "agent/device_telemetry.h"
#include "model/exporter_readings.h"

namespace headroom::agent {

struct ExporterUrlOptions {
  std::string url;  // http://host:port/metrics
  double timeout_s = 2.0;
};

// Checks that `url` reads http://host[:port]/path; the message names what is wrong.
tl::expected<void, Error> ValidateExporterUrl(const std::string& url);

// Scrapes the exporter on every Sample(). name() is "exporter".
std::unique_ptr<TelemetrySource> MakeExporterUrlSource(ExporterUrlOptions options);

// Reads the file on every Sample() (model::LoadExporterFile). name() is "file".
std::unique_ptr<TelemetrySource> MakeExporterFileSource(std::string path);

// The readings of `devices`, in their order.
std::vector<DeviceTelemetry> ReadingsOf(std::vector<model::ExporterDevice> devices);

}  // namespace headroom::agent
