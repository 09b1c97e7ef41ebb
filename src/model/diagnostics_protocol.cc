#include "model/diagnostics_protocol.h"

#include <set>

#include <fmt/format.h>

#include "model/agent_protocol.h"
#include "model/yaml_field.h"

namespace headroom::model {
namespace {

using json = nlohmann::json;

Error Invalid(std::string_view path, std::string_view expected, const json& got) {
  const std::string text = got.dump();
  return Error{ErrorCode::kInvalidArgument,
               fmt::format("{}: expected {}, got {}", path, expected,
                           text.size() > 40 ? text.substr(0, 40) + "..." : text)};
}

// A device index 0..kMaxDeviceIndex not in `seen` yet.
Result<uint32_t> DeviceIndex(const json& value, const std::string& path, std::set<uint32_t>& seen) {
  if (!value.is_number_integer() || value.get<int64_t>() < 0 ||
      value.get<int64_t>() > kMaxDeviceIndex) {
    return tl::unexpected(Invalid(path, "a device index 0..1023", value));
  }
  const auto index = value.get<uint32_t>();
  if (!seen.insert(index).second) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: device {} is listed twice", path, index);
  }
  return index;
}

}  // namespace

json DiagnoseJson(const std::vector<uint32_t>& devices) { return {{"diagnose", devices}}; }

Result<std::vector<uint32_t>> ParseDiagnose(std::string_view body) {
  const json document = json::parse(body, nullptr, false);
  if (!document.is_object()) return tl::unexpected(Invalid("diagnostics", "a JSON object", {}));
  for (const auto& [key, value] : document.items()) {
    if (key != "diagnose") {
      return MakeError(ErrorCode::kInvalidArgument, "diagnostics: unknown field {}",
                       QuoteForMessage(key));
    }
  }
  if (!document.contains("diagnose") || !document["diagnose"].is_array()) {
    return tl::unexpected(
        Invalid("diagnose", "a list of device indices", document.value("diagnose", json())));
  }
  std::vector<uint32_t> devices;
  std::set<uint32_t> seen;
  const json& list = document["diagnose"];
  for (size_t i = 0; i < list.size(); ++i) {
    YAML_FIELD_TRY(index, DeviceIndex(list[i], fmt::format("diagnose[{}]", i), seen));
    devices.push_back(*index);
  }
  return devices;
}

json DiagnosticsResultsJson(const std::vector<DiagnosticsResult>& results) {
  json list = json::array();
  for (const DiagnosticsResult& result : results) {
    list.push_back(
        {{"index", result.index}, {"passed", result.passed}, {"message", result.message}});
  }
  return {{"results", std::move(list)}};
}

Result<std::vector<DiagnosticsResult>> ParseDiagnosticsResults(const json& body) {
  if (!body.is_object()) return tl::unexpected(Invalid("body", "a JSON object", body));
  for (const auto& [key, value] : body.items()) {
    if (key != "results") {
      return MakeError(ErrorCode::kInvalidArgument, "unknown field {}", QuoteForMessage(key));
    }
  }
  if (!body.contains("results") || !body["results"].is_array() ||
      body["results"].size() > static_cast<size_t>(kMaxDeviceIndex) + 1) {
    return tl::unexpected(
        Invalid("results", "a list of at most 1024 results", body.value("results", json())));
  }
  std::vector<DiagnosticsResult> results;
  std::set<uint32_t> seen;
  const json& list = body["results"];
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string path = fmt::format("results[{}]", i);
    const json& item = list[i];
    if (!item.is_object()) return tl::unexpected(Invalid(path, "a result object", item));
    for (const auto& [key, value] : item.items()) {
      if (key != "index" && key != "passed" && key != "message") {
        return MakeError(ErrorCode::kInvalidArgument, "{}: unknown field {}", path,
                         QuoteForMessage(key));
      }
    }
    DiagnosticsResult result;
    YAML_FIELD_TRY(index, DeviceIndex(item.value("index", json()), path + ".index", seen));
    result.index = *index;
    if (!item.contains("passed") || !item["passed"].is_boolean()) {
      return tl::unexpected(
          Invalid(path + ".passed", "true or false", item.value("passed", json())));
    }
    result.passed = item["passed"].get<bool>();
    if (item.contains("message")) {
      const json& message = item["message"];
      if (!message.is_string() ||
          message.get_ref<const std::string&>().size() > kMaxReadinessMessageBytes) {
        return tl::unexpected(
            Invalid(path + ".message", "a string of at most 1024 bytes", message));
      }
      result.message = message.get<std::string>();
    }
    results.push_back(std::move(result));
  }
  return results;
}

}  // namespace headroom::model
