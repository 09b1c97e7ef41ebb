#include "sim/traces/mooncake_trace.h"

#include <cmath>
#include <optional>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

using Json = nlohmann::json;

}  // namespace

Result<RequestTrace> ParseMooncakeTrace(std::string_view text, std::string source) {
  RequestTrace trace;
  trace.format = "mooncake";
  int64_t line_number = 0;
  auto where = [&](std::string_view field) {
    return fmt::format("{}:{}: field '{}': ", source, line_number, field);
  };
  // Non-negative numbers only; `max` bounds the value before any conversion.
  auto number = [&](const Json& object, const char* field, double max,
                    bool whole) -> Result<double> {
    const auto it = object.find(field);
    const char* expected = whole ? "a non-negative integer" : "a non-negative number";
    if (it == object.end()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}expected {}, got nothing", where(field),
                       expected);
    }
    const bool integral = it->is_number_integer();
    const bool ok = whole ? integral : it->is_number();
    const double value = ok ? it->get<double>() : 0;
    if (!ok || !std::isfinite(value) || value < 0 || value > max) {
      return MakeError(ErrorCode::kInvalidArgument, "{}expected {} at most {}, got {}",
                       where(field), expected, static_cast<int64_t>(max), ShownJson(*it));
    }
    return value;
  };
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const Json object = Json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!object.is_object()) {
      return MakeError(ErrorCode::kInvalidArgument, "{}:{}: expected a JSON object, got \"{}\"",
                       source, line_number, line.substr(0, 40));
    }
    constexpr double kMaxMs = static_cast<double>(kMaxTraceSeconds) * 1000;
    auto timestamp_ms = number(object, "timestamp", kMaxMs, false);
    if (!timestamp_ms) return tl::unexpected(timestamp_ms.error());
    auto input = number(object, "input_length", kMaxRequestTokens, true);
    if (!input) return tl::unexpected(input.error());
    auto output = number(object, "output_length", kMaxRequestTokens, true);
    if (!output) return tl::unexpected(output.error());
    trace.requests.push_back({static_cast<TimeUs>(std::llround(*timestamp_ms * 1000)),
                              static_cast<uint32_t>(*input), static_cast<uint32_t>(*output)});
  }
  trace.source = std::move(source);
  NormalizeArrivals(trace);
  return trace;
}

}  // namespace headroom::sim
