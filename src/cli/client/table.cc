#include "cli/client/table.h"

#include <algorithm>

#include "model/yaml_field.h"

namespace headroom::cli {
namespace {

// Display width: counts UTF-8 code points, so "×" or "≈" take one column.
size_t Width(const std::string& text) {
  return static_cast<size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  }));
}

}  // namespace

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::AddRow(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  // Cells are the server's strings (node names, drain reasons, job names): a terminal must not
  // read an escape sequence in them.
  for (std::string& cell : cells) cell = model::PrintableLine(cell);
  rows_.push_back(std::move(cells));
}

std::string Table::Render() const {
  std::vector<size_t> widths(columns_.size(), 0);
  for (size_t c = 0; c < columns_.size(); ++c) {
    widths[c] = Width(columns_[c].header);
    for (const auto& row : rows_) widths[c] = std::max(widths[c], Width(row[c]));
  }
  std::string out;
  const auto emit = [&](const std::vector<std::string>& cells) {
    std::string line;
    for (size_t c = 0; c < cells.size(); ++c) {
      const size_t pad = widths[c] - Width(cells[c]);
      const bool last = c + 1 == cells.size();
      if (c > 0) line += "  ";
      if (columns_[c].align_right) line.append(pad, ' ');
      line += cells[c];
      if (!columns_[c].align_right && !last) line.append(pad, ' ');
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line;
    out += '\n';
  };
  std::vector<std::string> headers;
  for (const Column& column : columns_) headers.push_back(column.header);
  emit(headers);
  for (const auto& row : rows_) emit(row);
  return out;
}

}  // namespace headroom::cli
