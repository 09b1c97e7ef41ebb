#include "model/exporter_readings.h"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "base/csv.h"
#include "model/yaml_field.h"

namespace headroom::model {
namespace {

enum class Field : uint8_t {
  kTemp,
  kPower,
  kUtil,
  kXid,
  kEccUncorrectable,
  kRemappedRows,
  kRowRemapFailure,
  kNvlinkErrors,
  kCount
};

// How a sample's value is read: its range and its conversion to the field's unit.
enum class Kind : uint8_t { kNumber, kPercent, kRatio, kXid, kCounter, kFlag };

struct Source {
  std::string_view name;
  ExporterVendor vendor;
  Field field;
  Kind kind;
  // Where two names feed one field, the lower rank wins whatever the order of the lines.
  int rank = 0;
  // Summed with the other names of the field rather than ranked (NVLink error kinds).
  bool summed = false;
};

constexpr Source kSources[] = {
    {"DCGM_FI_DEV_GPU_TEMP", ExporterVendor::kNvidia, Field::kTemp, Kind::kNumber},
    {"DCGM_FI_DEV_POWER_USAGE", ExporterVendor::kNvidia, Field::kPower, Kind::kNumber},
    // GR_ENGINE_ACTIVE measures the share of time the graphics engine was busy; GPU_UTIL only
    // whether a kernel ran in the sample period, so the former is preferred where published.
    {"DCGM_FI_PROF_GR_ENGINE_ACTIVE", ExporterVendor::kNvidia, Field::kUtil, Kind::kRatio, 0},
    {"DCGM_FI_DEV_GPU_UTIL", ExporterVendor::kNvidia, Field::kUtil, Kind::kPercent, 1},
    {"DCGM_FI_DEV_XID_ERRORS", ExporterVendor::kNvidia, Field::kXid, Kind::kXid},
    {"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", ExporterVendor::kNvidia, Field::kEccUncorrectable,
     Kind::kCounter},
    {"DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS", ExporterVendor::kNvidia, Field::kRemappedRows,
     Kind::kCounter},
    {"DCGM_FI_DEV_ROW_REMAP_FAILURE", ExporterVendor::kNvidia, Field::kRowRemapFailure,
     Kind::kFlag},
    {"DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL", ExporterVendor::kNvidia, Field::kNvlinkErrors,
     Kind::kCounter, 0, true},
    {"DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL", ExporterVendor::kNvidia, Field::kNvlinkErrors,
     Kind::kCounter, 0, true},
    {"DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL", ExporterVendor::kNvidia, Field::kNvlinkErrors,
     Kind::kCounter, 0, true},
    {"DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", ExporterVendor::kNvidia, Field::kNvlinkErrors,
     Kind::kCounter, 0, true},
    // MI3xx publishes the junction (hotspot) temperature, MI2xx the edge one.
    {"gpu_junction_temperature", ExporterVendor::kAmd, Field::kTemp, Kind::kNumber, 0},
    {"gpu_edge_temperature", ExporterVendor::kAmd, Field::kTemp, Kind::kNumber, 1},
    {"gpu_power_usage", ExporterVendor::kAmd, Field::kPower, Kind::kNumber, 0},
    {"gpu_package_power", ExporterVendor::kAmd, Field::kPower, Kind::kNumber, 1},
    {"gpu_average_package_power", ExporterVendor::kAmd, Field::kPower, Kind::kNumber, 2},
    {"gpu_gfx_activity", ExporterVendor::kAmd, Field::kUtil, Kind::kPercent},
    {"gpu_ecc_uncorrect_total", ExporterVendor::kAmd, Field::kEccUncorrectable, Kind::kCounter},
};

const Source* SourceOf(std::string_view name) {
  // AMD's documented ConfigMap example sets MetricsFieldPrefix "amd_".
  std::string_view unprefixed = name;
  if (unprefixed.starts_with("amd_gpu_")) unprefixed.remove_prefix(4);
  for (const Source& source : kSources) {
    if (source.name == name ||
        (source.vendor == ExporterVendor::kAmd && source.name == unprefixed)) {
      return &source;
    }
  }
  return nullptr;
}

struct VendorLabels {
  std::string_view index;
  std::string_view uuid;
  std::string_view model;
  std::string_view model_fallback;
  std::string_view hostname;
};

VendorLabels LabelsOf(ExporterVendor vendor) {
  if (vendor == ExporterVendor::kNvidia) return {"gpu", "UUID", "modelName", "", "Hostname"};
  return {"gpu_id", "gpu_uuid", "card_series", "card_model", "hostname"};
}

std::optional<int> DeviceIndex(const std::string& text) {
  int index = -1;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), index);
  if (error != std::errc() || end != text.data() + text.size() || index < 0 ||
      index > kMaxDeviceIndex || (text.size() > 1 && text[0] == '0')) {
    return std::nullopt;
  }
  return index;
}

// Counters above 2^53 lose integer precision as doubles; far above any real count.
constexpr double kMaxCount = 9.0e15;

// What a sample of the kind must hold, for the error.
std::string_view Expected(Kind kind) {
  switch (kind) {
    case Kind::kNumber:
      return "a finite number";
    case Kind::kPercent:
      return "a percentage in 0..100";
    case Kind::kRatio:
      return "a ratio in 0..1";
    case Kind::kXid:
      return "a non-negative integer XID";
    case Kind::kCounter:
      return "a non-negative integer count";
    case Kind::kFlag:
      return "0 or 1";
  }
  return "";
}

// The sample's value in the field's unit, or nullopt when out of the kind's range.
std::optional<double> Convert(Kind kind, double value) {
  const bool whole = std::floor(value) == value;
  switch (kind) {
    case Kind::kNumber:
      if (!std::isfinite(value)) return std::nullopt;
      return value;
    case Kind::kPercent:
      if (!(value >= 0.0 && value <= 100.0)) return std::nullopt;
      return value / 100.0;
    case Kind::kRatio:
      if (!(value >= 0.0 && value <= 1.0)) return std::nullopt;
      return value;
    case Kind::kXid:
      if (!(value >= 0.0 && value <= 1e9 && whole)) return std::nullopt;
      return value;
    case Kind::kCounter:
      if (!(value >= 0.0 && value <= kMaxCount && whole)) return std::nullopt;
      return value;
    case Kind::kFlag:
      if (!(value == 0.0 || value == 1.0)) return std::nullopt;
      return value;
  }
  return std::nullopt;
}

void Store(DeviceTelemetry& reading, Field field, double value) {
  switch (field) {
    case Field::kTemp:
      reading.temp_c = value;
      break;
    case Field::kPower:
      reading.power_w = value;
      break;
    case Field::kUtil:
      reading.util = value;
      break;
    case Field::kXid:
      reading.xid_errors = static_cast<int64_t>(value);
      break;
    case Field::kEccUncorrectable:
      reading.ecc_uncorrectable = static_cast<int64_t>(value);
      break;
    case Field::kRemappedRows:
      reading.remapped_rows = static_cast<int64_t>(value);
      break;
    case Field::kRowRemapFailure:
      reading.row_remap_failure = value != 0.0;
      break;
    case Field::kNvlinkErrors:
      reading.nvlink_errors = reading.nvlink_errors.value_or(0) + static_cast<int64_t>(value);
      break;
    case Field::kCount:
      break;
  }
}

struct Building {
  ExporterDevice device;
  int rank[static_cast<size_t>(Field::kCount)];
};

void TakeLabel(const PrometheusSample& sample, std::string_view label, std::string& out) {
  if (!out.empty() || label.empty()) return;
  if (const std::string* value = sample.Label(label)) out = *value;
}

}  // namespace

std::string_view ExporterVendorName(ExporterVendor vendor) {
  return vendor == ExporterVendor::kNvidia ? "nvidia" : "amd";
}

Result<std::vector<ExporterDevice>> ExporterDevicesFromSamples(
    const std::vector<PrometheusSample>& samples) {
  std::map<int, Building> by_index;
  std::set<std::pair<const Source*, int>> seen;
  for (const PrometheusSample& sample : samples) {
    const Source* source = SourceOf(sample.name);
    if (source == nullptr) continue;
    const VendorLabels labels = LabelsOf(source->vendor);
    const std::string* index_text = sample.Label(labels.index);
    if (index_text == nullptr) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "line {}: {}: expected a '{}' label holding the device index, got none",
                       sample.line, sample.name, labels.index);
    }
    const std::optional<int> index = DeviceIndex(*index_text);
    if (!index) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "line {}: {}: expected label '{}' to hold a device index 0..{}, got {}",
                       sample.line, sample.name, labels.index, kMaxDeviceIndex,
                       QuoteForMessage(*index_text));
    }
    auto [it, added] = by_index.try_emplace(*index);
    Building& building = it->second;
    if (added) {
      building.device.reading.index = *index;
      building.device.vendor = source->vendor;
      for (int& rank : building.rank) rank = INT32_MAX;
    }
    ExporterDevice& device = building.device;
    TakeLabel(sample, labels.uuid, device.uuid);
    TakeLabel(sample, labels.model, device.model);
    TakeLabel(sample, labels.model_fallback, device.model);
    TakeLabel(sample, labels.hostname, device.hostname);
    if (std::isnan(sample.value)) continue;  // DCGM's "blank" reading: absent.
    const auto value = Convert(source->kind, sample.value);
    if (!value) {
      return MakeError(ErrorCode::kInvalidArgument, "line {}: {}: expected {}, got {}", sample.line,
                       sample.name, Expected(source->kind), sample.value);
    }
    if (!seen.insert({source, *index}).second) continue;  // The first of a (name, index) wins.
    int& rank = building.rank[static_cast<size_t>(source->field)];
    if (!source->summed && rank <= source->rank) continue;
    rank = source->rank;
    Store(device.reading, source->field, *value);
  }
  std::vector<ExporterDevice> out;
  out.reserve(by_index.size());
  for (auto& [index, building] : by_index) out.push_back(std::move(building.device));
  return out;
}

Result<std::vector<ExporterDevice>> ParseExporterText(std::string_view text) {
  auto samples = ParsePrometheusText(text);
  if (!samples) return tl::unexpected(std::move(samples).error());
  return ExporterDevicesFromSamples(*samples);
}

Result<std::vector<ExporterDevice>> LoadExporterFile(const std::string& path) {
  auto text = ReadTextFile(path, kMaxExporterFileBytes);
  if (!text) return tl::unexpected(std::move(text).error());
  auto devices = ParseExporterText(*text);
  if (!devices) return tl::unexpected(WithContext(std::move(devices).error(), path));
  return devices;
}

nlohmann::json ExporterDeviceJson(const ExporterDevice& device) {
  nlohmann::json out = TelemetryJson(LabelledTelemetry{.reading = device.reading});
  out.erase("job");
  out.erase("tenant");
  out["vendor"] = ExporterVendorName(device.vendor);
  out["uuid"] = device.uuid;
  out["model"] = device.model;
  out["hostname"] = device.hostname;
  return out;
}

}  // namespace headroom::model
