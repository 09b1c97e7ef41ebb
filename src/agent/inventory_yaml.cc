#include "agent/inventory_yaml.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <utility>

#include "base/csv.h"
#include "model/yaml_field.h"

namespace headroom::agent {
namespace {

using model::YamlField;
using model::YamlMap;

constexpr std::string_view kCpuExpected =
    "CPU cores as an integer >= 1 or millicores like \"500m\"";
constexpr std::string_view kMemoryExpected = "an amount like 512Gi (units Mi, Gi or Ti)";
// Upper bounds far above any real node, so arithmetic on them cannot overflow.
constexpr int64_t kMaxCpuMilli = int64_t{1} << 40;
constexpr int64_t kMaxMemoryMib = int64_t{1} << 40;

std::optional<int64_t> PositiveInteger(std::string_view text) {
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < 1) {
    return std::nullopt;
  }
  return value;
}

Result<int64_t> ParseCpuMilli(const YamlField& field) {
  if (!field.IsScalar()) return tl::unexpected(field.Invalid(kCpuExpected));
  std::string_view digits = field.node().Scalar();
  int64_t scale = 1000;
  if (digits.ends_with("m")) {
    digits.remove_suffix(1);
    scale = 1;
  }
  const std::optional<int64_t> value = PositiveInteger(digits);
  if (!value || *value > kMaxCpuMilli / scale) {
    return tl::unexpected(field.Invalid(kCpuExpected));
  }
  return *value * scale;
}

Result<int64_t> ParseMemoryMib(const YamlField& field) {
  if (!field.IsScalar()) return tl::unexpected(field.Invalid(kMemoryExpected));
  std::string_view text = field.node().Scalar();
  int64_t scale = 0;
  if (text.ends_with("Mi")) {
    scale = 1;
  } else if (text.ends_with("Gi")) {
    scale = 1024;
  } else if (text.ends_with("Ti")) {
    scale = 1024 * 1024;
  }
  if (scale == 0) return tl::unexpected(field.Invalid(kMemoryExpected));
  text.remove_suffix(2);
  const std::optional<int64_t> value = PositiveInteger(text);
  if (!value || *value > kMaxMemoryMib / scale) {
    return tl::unexpected(field.Invalid(kMemoryExpected));
  }
  return *value * scale;
}

Result<DeviceTelemetry> ParseTelemetry(const YamlField& field, int index) {
  YAML_FIELD_TRY(map, field.Map({"temp_c", "power_w", "util", "xid_errors"}));
  DeviceTelemetry telemetry;
  telemetry.index = index;
  if (const YamlField* temp = map->Find("temp_c")) {
    YAML_FIELD_TRY(value, temp->Number(-273.15, true, 1000.0, "degrees Celsius in -273.15..1000"));
    telemetry.temp_c = *value;
  }
  if (const YamlField* power = map->Find("power_w")) {
    YAML_FIELD_TRY(value, power->Number(0.0, true, 1e6, "watts in 0..1000000"));
    telemetry.power_w = *value;
  }
  if (const YamlField* util = map->Find("util")) {
    YAML_FIELD_TRY(value, util->Number(0.0, true, 1.0, "a fraction in 0..1"));
    telemetry.util = *value;
  }
  if (const YamlField* xid = map->Find("xid_errors")) {
    YAML_FIELD_TRY(value, xid->Integer(0, 1'000'000'000, "an XID code >= 0 (0: none)"));
    telemetry.xid_errors = *value;
  }
  return telemetry;
}

Result<InventoryDevice> ParseDevice(const YamlField& field) {
  YAML_FIELD_TRY(map, field.Map({"index", "uuid", "model", "memory", "clique_id", "telemetry"}));
  InventoryDevice device;
  YAML_FIELD_TRY(index_field, map->Require("index", "a device index in 0..1023"));
  YAML_FIELD_TRY(index, index_field->Integer(0, kMaxDeviceIndex, "a device index in 0..1023"));
  device.index = static_cast<int>(*index);
  YAML_FIELD_TRY(uuid_field, map->Require("uuid", "the device UUID, like GPU-8f3e..."));
  YAML_FIELD_TRY(uuid, uuid_field->Name());
  device.uuid = std::move(*uuid);
  YAML_FIELD_TRY(model_field, map->Require("model", "the device model, like H100"));
  YAML_FIELD_TRY(model_name, model_field->Name());
  device.model = std::move(*model_name);
  YAML_FIELD_TRY(memory_field, map->Require("memory", kMemoryExpected));
  YAML_FIELD_TRY(memory, ParseMemoryMib(*memory_field));
  device.memory_mib = *memory;
  if (const YamlField* clique = map->Find("clique_id")) {
    YAML_FIELD_TRY(clique_id, clique->Name());
    device.clique_id = std::move(*clique_id);
  }
  if (const YamlField* telemetry = map->Find("telemetry")) {
    YAML_FIELD_TRY(values, ParseTelemetry(*telemetry, device.index));
    device.fake_telemetry = std::move(*values);
  }
  return device;
}

Result<Inventory> ParseDocument(const YamlField& document) {
  YAML_FIELD_TRY(map, document.Map({"cpu", "memory", "devices"}));
  Inventory inventory;
  YAML_FIELD_TRY(cpu_field, map->Require("cpu", kCpuExpected));
  YAML_FIELD_TRY(cpu, ParseCpuMilli(*cpu_field));
  inventory.cpu_milli = *cpu;
  YAML_FIELD_TRY(memory_field, map->Require("memory", kMemoryExpected));
  YAML_FIELD_TRY(memory, ParseMemoryMib(*memory_field));
  inventory.memory_mib = *memory;
  YAML_FIELD_TRY(devices_field, map->Require("devices", "a list of devices (may be empty: [])"));
  YAML_FIELD_TRY(items, devices_field->Items());
  std::set<int> indices;
  std::set<std::string> uuids;
  for (const YamlField& item : *items) {
    YAML_FIELD_TRY(device, ParseDevice(item));
    if (!indices.insert(device->index).second) {
      return tl::unexpected(item.Invalid("a device index not used by an earlier device",
                                         fmt::format("index {} again", device->index)));
    }
    if (!uuids.insert(device->uuid).second) {
      return tl::unexpected(item.Invalid("a UUID not used by an earlier device",
                                         model::QuoteForMessage(device->uuid)));
    }
    inventory.devices.push_back(std::move(*device));
  }
  std::sort(inventory.devices.begin(), inventory.devices.end(),
            [](const InventoryDevice& a, const InventoryDevice& b) { return a.index < b.index; });
  return inventory;
}

}  // namespace

Result<Inventory> ParseInventoryYaml(std::string_view text, const std::string& source_name) {
  YAML_FIELD_TRY(document, model::LoadYamlDocument(text, source_name));
  try {
    return ParseDocument(YamlField::Document(*document, source_name));
  } catch (const std::exception& e) {
    // Nothing above throws by design; this keeps a library surprise from ending the agent.
    return MakeError(ErrorCode::kInvalidArgument, "{}:1: cannot read the inventory: {}",
                     source_name, e.what());
  }
}

Result<Inventory> LoadInventoryYaml(const std::string& path) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return ParseInventoryYaml(*text, path);
}

}  // namespace headroom::agent
