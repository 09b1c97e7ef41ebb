#include "sim/traces/trace_fields.h"

#include <charconv>
#include <string>

#include <nlohmann/json.hpp>

namespace headroom::sim {
namespace {

// Parses all of `text` as a decimal integer (an optional leading '-'); false if anything else.
bool ParseWhole(std::string_view text, int64_t& value) {
  if (text.empty()) return false;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

}  // namespace

Result<int64_t> ReadCount(const CsvTable& table, size_t row, size_t column, int64_t max) {
  const std::string_view text = table.Field(row, column);
  int64_t value = 0;
  if (!ParseWhole(text, value) || value < 0) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected a non-negative integer, got \"{}\"",
                     table.Where(row, column), text);
  }
  if (value > max) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected a non-negative integer at most {}, got \"{}\"",
                     table.Where(row, column), max, text);
  }
  return value;
}

Result<int64_t> ReadSignedInteger(const CsvTable& table, size_t row, size_t column, int64_t max) {
  const std::string_view text = table.Field(row, column);
  int64_t value = 0;
  if (!ParseWhole(text, value)) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected an integer, got \"{}\"",
                     table.Where(row, column), text);
  }
  if (value > max || value < -max) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}: expected an integer between -{} and {}, got \"{}\"",
                     table.Where(row, column), max, max, text);
  }
  return value;
}

void CountSkipped(LoadedWorkload& loaded, std::string_view reason) {
  for (auto& [name, count] : loaded.skipped) {
    if (name == reason) {
      ++count;
      return;
    }
  }
  loaded.skipped.emplace_back(std::string(reason), 1);
}

std::string ShownJson(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

}  // namespace headroom::sim
