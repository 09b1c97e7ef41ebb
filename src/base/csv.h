// A strict reader for the comma-separated files the public traces ship. It accepts what those
// files really contain (CRLF or LF endings, a missing final newline, spaces around fields,
// double-quoted fields) and reports anything else as "file:line: field 'x': expected ..., got ...".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace headroom {

class CsvTable {
 public:
  // Parses `text`; `source` names it in messages (usually the file path). The first row is
  // the header. Rows with a different number of fields than the header are errors, except
  // that a row may omit trailing empty fields when `allow_short_rows` is set.
  static Result<CsvTable> Parse(std::string_view text, std::string source,
                                bool allow_short_rows = false);
  static Result<CsvTable> ReadFile(const std::string& path, bool allow_short_rows = false);

  const std::string& source() const { return source_; }
  const std::vector<std::string>& header() const { return header_; }
  size_t row_count() const { return rows_.size(); }

  // Column index by header name (trimmed, exact), or an error naming the file and the
  // columns that are there.
  Result<size_t> Column(std::string_view name) const;
  bool HasColumn(std::string_view name) const;

  std::string_view Field(size_t row, size_t column) const;
  // 1-based line of a row in the source, for messages.
  int64_t LineOf(size_t row) const { return rows_[row].line; }

  Result<int64_t> Int(size_t row, size_t column) const;
  Result<double> Double(size_t row, size_t column) const;

  // "source:line: field 'name': " — the prefix of every message about one cell.
  std::string Where(size_t row, size_t column) const;

 private:
  struct Row {
    int64_t line = 0;
    std::vector<std::string> fields;
  };

  std::string source_;
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

// Reads a whole file into a string, or an error naming the path; a file of more than
// `max_bytes` is an error too (read no further than that).
Result<std::string> ReadTextFile(const std::string& path, size_t max_bytes = SIZE_MAX);

}  // namespace headroom
