// Device attributes: named values a request's selector tests, in the spirit of Kubernetes
// Dynamic Resource Allocation (a device is described by attributes, not only counted). A value
// is a string or a number. Keys are kept sorted so lookups are a binary search and two attribute
// sets compare equal when they hold the same pairs.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace headroom::model {

using AttributeValue = std::variant<std::string, double>;

class Attributes {
 public:
  Attributes() = default;

  // Sets `key` (replacing an earlier value).
  void Set(std::string key, AttributeValue value);
  const AttributeValue* Find(std::string_view key) const;

  const std::vector<std::pair<std::string, AttributeValue>>& entries() const { return entries_; }
  friend bool operator==(const Attributes&, const Attributes&) = default;

 private:
  std::vector<std::pair<std::string, AttributeValue>> entries_;  // Sorted by key.
};

// "model=H100, memory_gib=80" — for messages and reports.
std::string ToString(const Attributes& attributes);
std::string ToString(const AttributeValue& value);

}  // namespace headroom::model
