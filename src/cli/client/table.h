// Table: plain-text columns as squeue and sinfo print them — a header row, then one row per
// item, columns separated by two spaces, padded to the widest cell (the last column is not
// padded, so lines carry no trailing blanks). Pure; any thread.
#pragma once

#include <string>
#include <vector>

namespace headroom::cli {

struct Column {
  std::string header;
  bool align_right = false;  // numbers
};

class Table {
 public:
  explicit Table(std::vector<Column> columns);

  // Precondition: cells.size() == number of columns (missing cells are left blank, extra
  // ones dropped). Control bytes in cells are printed escaped (\x1b, \n, \u009b).
  void AddRow(std::vector<std::string> cells);

  std::string Render() const;

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace headroom::cli
