#include "model/attributes.h"

#include <algorithm>

#include <fmt/format.h>

namespace headroom::model {

void Attributes::Set(std::string key, AttributeValue value) {
  auto it =
      std::lower_bound(entries_.begin(), entries_.end(), key,
                       [](const auto& entry, const std::string& k) { return entry.first < k; });
  if (it != entries_.end() && it->first == key) {
    it->second = std::move(value);
  } else {
    entries_.insert(it, {std::move(key), std::move(value)});
  }
}

const AttributeValue* Attributes::Find(std::string_view key) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                             [](const auto& entry, std::string_view k) { return entry.first < k; });
  if (it == entries_.end() || it->first != key) return nullptr;
  return &it->second;
}

std::string ToString(const AttributeValue& value) {
  if (const auto* text = std::get_if<std::string>(&value)) return fmt::format("\"{}\"", *text);
  return fmt::format("{}", std::get<double>(value));
}

std::string ToString(const Attributes& attributes) {
  std::string out;
  for (const auto& [key, value] : attributes.entries()) {
    if (!out.empty()) out += ", ";
    out += key + "=" + ToString(value);
  }
  return out;
}

}  // namespace headroom::model
