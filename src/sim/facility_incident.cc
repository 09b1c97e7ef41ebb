#include "sim/facility_incident.h"

#include <charconv>
#include <cmath>
#include <optional>
#include <vector>

#include <fmt/format.h>

namespace headroom::sim {
namespace {

std::vector<std::string_view> Split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  size_t begin = 0;
  while (true) {
    const size_t end = text.find(separator, begin);
    parts.push_back(text.substr(begin, end == std::string_view::npos ? end : end - begin));
    if (end == std::string_view::npos) return parts;
    begin = end + 1;
  }
}

std::optional<double> Number(std::string_view text) {
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

// The position of the item named `name` (a cooling zone, a power domain).
template <typename Items>
std::optional<uint32_t> IndexOf(const Items& items, std::string_view name) {
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].name == name) return static_cast<uint32_t>(i);
  }
  return std::nullopt;
}

// "a, b, c" of the first few names, for an error that says what is there.
template <typename Items>
std::string SomeNames(const Items& items) {
  std::string out;
  size_t shown = 0;
  for (const auto& item : items) {
    if (shown == 5) return out + ", ...";
    out += (shown++ == 0 ? "" : ", ") + item.name;
  }
  return out.empty() ? "none in this cluster" : out;
}

}  // namespace

Result<FacilityIncident> ParseFacilityIncident(std::string_view text,
                                               const model::Cluster& cluster) {
  const auto fail = [&](std::string_view field, std::string_view expected, std::string_view got) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--incident '{}': field '{}': expected {}, got \"{}\"", text, field, expected,
                     got);
  };
  const std::vector<std::string_view> parts = Split(text, ':');
  if (parts.size() != 5) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--incident '{}': expected KIND:NAME:START_S:DURATION_S:SHARE (5 fields), "
                     "got {}",
                     text, parts.size());
  }
  FacilityIncident incident;
  const model::Facility& facility = cluster.facility();
  if (parts[0] == "cooling") {
    incident.kind = FacilityIncident::Kind::kCooling;
    const std::optional<uint32_t> zone = IndexOf(facility.cooling_zones, parts[1]);
    if (!zone) {
      return fail("name", "a cooling zone (" + SomeNames(facility.cooling_zones) + ")", parts[1]);
    }
    incident.index = *zone;
  } else if (parts[0] == "feed") {
    incident.kind = FacilityIncident::Kind::kPower;
    const std::optional<uint32_t> domain = IndexOf(facility.power_domains, parts[1]);
    if (!domain) {
      return fail("name", "a power domain (" + SomeNames(facility.power_domains) + ")", parts[1]);
    }
    incident.index = *domain;
  } else {
    return fail("kind", "cooling or feed", parts[0]);
  }
  const std::optional<double> start_s = Number(parts[2]);
  if (!start_s || *start_s < 0 || *start_s > 1e9) {
    return fail("start_s", "seconds from the first arrival, 0 to 1e9", parts[2]);
  }
  const std::optional<double> duration_s = Number(parts[3]);
  if (!duration_s || *duration_s <= 0 || *duration_s > 1e9) {
    return fail("duration_s", "seconds, more than 0 and at most 1e9", parts[3]);
  }
  const std::optional<double> share = Number(parts[4]);
  if (!share || *share < 0 || *share > 1) return fail("share", "a share from 0 to 1", parts[4]);
  incident.start_us = SecondsToUs(*start_s);
  incident.duration_us = SecondsToUs(*duration_s);
  incident.share = *share;
  return incident;
}

}  // namespace headroom::sim
