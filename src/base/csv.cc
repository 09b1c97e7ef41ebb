#include "base/csv.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

namespace headroom {
namespace {

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

// Splits one line into fields. Quoted fields may contain commas and doubled quotes.
Result<std::vector<std::string>> SplitLine(std::string_view line) {
  std::vector<std::string> fields;
  size_t i = 0;
  while (true) {
    std::string field;
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
    if (i < line.size() && line[i] == '"') {
      ++i;
      bool closed = false;
      while (i < line.size()) {
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field.push_back('"');
            i += 2;
            continue;
          }
          closed = true;
          ++i;
          break;
        }
        field.push_back(line[i++]);
      }
      if (!closed) return MakeError(ErrorCode::kInvalidArgument, "unterminated quoted field");
      while (i < line.size() && line[i] != ',') {
        if (line[i] != ' ' && line[i] != '\t') {
          return MakeError(ErrorCode::kInvalidArgument, "text after a closing quote");
        }
        ++i;
      }
    } else {
      const size_t end = line.find(',', i);
      field = std::string(Trim(line.substr(i, end == std::string_view::npos ? end : end - i)));
      i = end == std::string_view::npos ? line.size() : end;
    }
    fields.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i;  // The comma.
  }
  return fields;
}

}  // namespace

Result<CsvTable> CsvTable::Parse(std::string_view text, std::string source, bool allow_short_rows) {
  CsvTable table;
  table.source_ = std::move(source);
  int64_t line_number = 0;
  size_t pos = 0;
  bool have_header = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find('\0') != std::string_view::npos) {
      return MakeError(ErrorCode::kInvalidArgument, "{}:{}: expected text, got a NUL byte",
                       table.source_, line_number);
    }
    if (Trim(line).empty()) continue;
    auto fields = SplitLine(line);
    if (!fields)
      return tl::unexpected(
          WithContext(fields.error(), fmt::format("{}:{}", table.source_, line_number)));
    if (!have_header) {
      table.header_ = std::move(*fields);
      have_header = true;
      continue;
    }
    if (fields->size() != table.header_.size()) {
      if (!(allow_short_rows && fields->size() < table.header_.size())) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "{}:{}: expected {} fields as in the header, got {}", table.source_,
                         line_number, table.header_.size(), fields->size());
      }
      fields->resize(table.header_.size());
    }
    table.rows_.push_back(Row{line_number, std::move(*fields)});
  }
  if (!have_header) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected a header line, got an empty file",
                     table.source_);
  }
  return table;
}

Result<CsvTable> CsvTable::ReadFile(const std::string& path, bool allow_short_rows) {
  auto text = ReadTextFile(path);
  if (!text) return tl::unexpected(text.error());
  return Parse(*text, path, allow_short_rows);
}

Result<size_t> CsvTable::Column(std::string_view name) const {
  for (size_t i = 0; i < header_.size(); ++i) {
    if (header_[i] == name) return i;
  }
  std::string have;
  for (const auto& column : header_) have += (have.empty() ? "" : ", ") + column;
  return MakeError(ErrorCode::kInvalidArgument, "{}:1: expected a column '{}', got columns: {}",
                   source_, name, have);
}

bool CsvTable::HasColumn(std::string_view name) const {
  for (const auto& column : header_) {
    if (column == name) return true;
  }
  return false;
}

std::string_view CsvTable::Field(size_t row, size_t column) const {
  return rows_[row].fields[column];
}

std::string CsvTable::Where(size_t row, size_t column) const {
  return fmt::format("{}:{}: field '{}'", source_, rows_[row].line, header_[column]);
}

Result<int64_t> CsvTable::Int(size_t row, size_t column) const {
  const std::string_view text = Field(row, column);
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected an integer, got \"{}\"",
                     Where(row, column), text);
  }
  return value;
}

Result<double> CsvTable::Double(size_t row, size_t column) const {
  const std::string_view text = Field(row, column);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(value)) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: expected a number, got \"{}\"",
                     Where(row, column), text);
  }
  return value;
}

Result<std::string> ReadTextFile(const std::string& path, size_t max_bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return MakeError(ErrorCode::kNotFound, "{}: cannot open file", path);
  if (max_bytes == SIZE_MAX) {
    std::ostringstream buffer;
    buffer << in.rdbuf();
    if (in.bad()) return MakeError(ErrorCode::kIo, "{}: read failed", path);
    return buffer.str();
  }
  std::string text(max_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return MakeError(ErrorCode::kIo, "{}: read failed", path);
  text.resize(static_cast<size_t>(in.gcount()));
  if (text.size() > max_bytes) {
    return MakeError(ErrorCode::kInvalidArgument, "{}: larger than {} bytes", path, max_bytes);
  }
  return text;
}

}  // namespace headroom
