// The naming conventions of the cluster YAML, shared by the parser, the writer and the
// generator so that repeated domains and nodes get the same names everywhere:
//  - children of the root at level L are named "<L><i>" (pod0, pod1, ...);
//  - children of any other domain D at level L are named "<D>-<L><i>" (pod0-leaf0);
//  - nodes of domain D are named "<D>-n<i>" (pod0-leaf0-rack0-n0).
// Counting starts at 0 unless an entry says `first:`.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace headroom::model {

inline std::string DefaultDomainPrefix(std::string_view parent_name, bool parent_is_root,
                                       std::string_view level_name) {
  if (parent_is_root) return std::string(level_name);
  std::string prefix(parent_name);
  prefix += '-';
  prefix += level_name;
  return prefix;
}

inline std::string DefaultNodePrefix(std::string_view domain_name) {
  return std::string(domain_name) + "-n";
}

// Splits "rack12" into {"rack", 12} so that prefix + std::to_string(number) == name; leading
// zeros stay in the prefix ("n007" → {"n00", 7}). Nullopt when the name ends in no digit, is
// only digits (the prefix would be empty) or the number has more than 9 digits.
inline std::optional<std::pair<std::string, uint64_t>> SplitNumberedName(std::string_view name) {
  size_t start = name.size();
  while (start > 0 && name[start - 1] >= '0' && name[start - 1] <= '9') --start;
  if (start == name.size() || start == 0) return std::nullopt;
  while (start + 1 < name.size() && name[start] == '0') ++start;
  if (name.size() - start > 9) return std::nullopt;
  uint64_t number = 0;
  for (size_t i = start; i < name.size(); ++i) number = number * 10 + (name[i] - '0');
  return std::make_pair(std::string(name.substr(0, start)), number);
}

}  // namespace headroom::model
