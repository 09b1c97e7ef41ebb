// `headroom telemetry parse FILE [--json]`: the device samples headroom reads from a GPU
// exporter's text (dcgm-exporter or AMD's device-metrics-exporter, model/exporter_readings.h),
// offline, so that an operator can check what an agent's --dcgm-url or --telemetry-file will
// report before pointing one at it. Exit status: 0 parsed, 2 unreadable or bad input, with one
// line naming the file and the line.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands/commands.h"
#include "model/exporter_readings.h"

namespace headroom::cli {
namespace {

struct TelemetryOptions {
  std::string file;
  bool json = false;
};

template <typename T>
std::string Shown(const std::optional<T>& value) {
  if (!value) return "-";
  if constexpr (std::is_same_v<T, bool>) return *value ? "yes" : "no";
  if constexpr (std::is_floating_point_v<T>) return fmt::format("{:g}", *value);
  return fmt::format("{}", *value);
}

int RunParse(const TelemetryOptions& options) {
  auto devices = model::LoadExporterFile(options.file);
  if (!devices) {
    std::fprintf(stderr, "headroom: telemetry parse: %s\n", devices.error().message.c_str());
    return 2;
  }
  if (options.json) {
    nlohmann::json out = nlohmann::json::array();
    for (const model::ExporterDevice& device : *devices) {
      out.push_back(model::ExporterDeviceJson(device));
    }
    std::printf("%s\n", out.dump(2).c_str());
    return 0;
  }
  std::string table =
      fmt::format("{:<5} {:<6} {:<12} {:>6} {:>7} {:>5} {:>4} {:>7} {:>8} {:>9} {:>6}  {}\n", "GPU",
                  "VENDOR", "UUID", "TEMP_C", "POWER_W", "UTIL", "XID", "ECC_UNC", "REMAPPED",
                  "REMAP_BAD", "NVLINK", "MODEL");
  for (const model::ExporterDevice& device : *devices) {
    const model::DeviceTelemetry& r = device.reading;
    table += fmt::format("{:<5} {:<6} {:<12} {:>6} {:>7} {:>5} {:>4} {:>7} {:>8} {:>9} {:>6}  {}\n",
                         r.index, model::ExporterVendorName(device.vendor),
                         device.uuid.empty() ? "-" : device.uuid, Shown(r.temp_c), Shown(r.power_w),
                         Shown(r.util), Shown(r.xid_errors), Shown(r.ecc_uncorrectable),
                         Shown(r.remapped_rows), Shown(r.row_remap_failure), Shown(r.nvlink_errors),
                         device.model.empty() ? "-" : device.model);
  }
  table += fmt::format("{} devices\n", devices->size());
  std::fputs(table.c_str(), stdout);
  return 0;
}

}  // namespace

std::function<int()> AddTelemetryCommand(CLI::App& app) {
  auto options = std::make_shared<TelemetryOptions>();
  CLI::App* telemetry =
      app.add_subcommand("telemetry", "Read GPU exporter text as headroom's agents do");
  telemetry->require_subcommand(1);
  CLI::App* parse = telemetry->add_subcommand(
      "parse",
      "The device samples in a dcgm-exporter or AMD device-metrics-exporter text file "
      "(exit 2 with the line on bad input)");
  parse->add_option("file", options->file, "the exporter's /metrics text")->required();
  parse->add_flag("--json", options->json, "print the samples as JSON");
  return [options] { return RunParse(*options); };
}

}  // namespace headroom::cli
