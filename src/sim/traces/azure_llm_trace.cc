#include "sim/traces/azure_llm_trace.h"

#include <chrono>
#include <utility>

#include "base/csv.h"
#include "sim/traces/trace_fields.h"

namespace headroom::sim {
namespace {

// The digits text[begin, begin + count) as a number; nullopt if any is not a digit.
std::optional<int64_t> Digits(std::string_view text, size_t begin, size_t count) {
  if (begin + count > text.size()) return std::nullopt;
  int64_t value = 0;
  for (size_t i = begin; i < begin + count; ++i) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    value = value * 10 + (text[i] - '0');
  }
  return value;
}

}  // namespace

std::optional<TimeUs> ParseWallClockUs(std::string_view text) {
  // YYYY-MM-DD HH:MM:SS
  // 0123456789012345678
  if (text.size() < 19 || text[4] != '-' || text[7] != '-' || text[10] != ' ' || text[13] != ':' ||
      text[16] != ':') {
    return std::nullopt;
  }
  const auto year = Digits(text, 0, 4), month = Digits(text, 5, 2), day = Digits(text, 8, 2);
  const auto hour = Digits(text, 11, 2), minute = Digits(text, 14, 2), second = Digits(text, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  // The calendar's own check: months of 1 to 12, days that the month has (29 February in leap
  // years only).
  const std::chrono::year_month_day date{std::chrono::year(static_cast<int>(*year)),
                                         std::chrono::month(static_cast<unsigned>(*month)),
                                         std::chrono::day(static_cast<unsigned>(*day))};
  if (*year < 1970 || !date.ok() || *hour > 23 || *minute > 59 || *second > 59) {
    return std::nullopt;
  }
  int64_t micros = 0;
  if (text.size() > 19) {
    const size_t digits = text.size() - 20;
    if (text[19] != '.' || digits == 0 || digits > 9) return std::nullopt;
    const auto fraction = Digits(text, 20, digits);
    if (!fraction) return std::nullopt;
    micros = *fraction;
    for (size_t i = digits; i < 6; ++i) micros *= 10;
    for (size_t i = 6; i < digits; ++i) micros /= 10;
  }
  const int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  const int64_t seconds = days * 86400 + *hour * 3600 + *minute * 60 + *second;
  return seconds * kUsPerSecond + micros;
}

Result<RequestTrace> ParseAzureLlmTrace(std::string_view text, std::string source) {
  auto table = CsvTable::Parse(text, source);
  if (!table) return tl::unexpected(table.error());
  size_t columns[3] = {};
  const char* const names[3] = {"TIMESTAMP", "ContextTokens", "GeneratedTokens"};
  for (size_t i = 0; i < 3; ++i) {
    auto column = table->Column(names[i]);
    if (!column) return tl::unexpected(column.error());
    columns[i] = *column;
  }
  const auto [timestamp, context_tokens, generated_tokens] = columns;

  RequestTrace trace;
  trace.format = "azure-llm";
  trace.source = std::move(source);
  trace.requests.reserve(table->row_count());
  for (size_t row = 0; row < table->row_count(); ++row) {
    const std::string_view cell = table->Field(row, timestamp);
    const std::optional<TimeUs> arrival_us = ParseWallClockUs(cell);
    if (!arrival_us) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: expected a time as YYYY-MM-DD HH:MM:SS.fffffff, got \"{}\"",
                       table->Where(row, timestamp), cell);
    }
    auto input = ReadCount(*table, row, context_tokens, kMaxRequestTokens);
    if (!input) return tl::unexpected(input.error());
    auto output = ReadCount(*table, row, generated_tokens, kMaxRequestTokens);
    if (!output) return tl::unexpected(output.error());
    trace.requests.push_back(
        {*arrival_us, static_cast<uint32_t>(*input), static_cast<uint32_t>(*output)});
  }
  NormalizeArrivals(trace);
  return trace;
}

}  // namespace headroom::sim
