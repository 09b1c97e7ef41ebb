// Dense strong ids. Each kind of entity (node, device, domain, job, ...) is numbered 0..n-1 and
// the id indexes flat vectors; distinct types keep a NodeId from being used as a DeviceId.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace headroom {

template <typename Tag>
class StrongId {
 public:
  static constexpr uint32_t kInvalidValue = std::numeric_limits<uint32_t>::max();

  constexpr StrongId() = default;
  constexpr explicit StrongId(uint32_t value) : value_(value) {}

  constexpr uint32_t value() const { return value_; }
  constexpr bool valid() const { return value_ != kInvalidValue; }

  friend constexpr auto operator<=>(StrongId, StrongId) = default;

 private:
  uint32_t value_ = kInvalidValue;
};

using NodeId = StrongId<struct NodeTag>;
using DeviceId = StrongId<struct DeviceTag>;
using DomainId = StrongId<struct DomainTag>;
using DeviceClassId = StrongId<struct DeviceClassTag>;
using JobId = StrongId<struct JobTag>;
using TenantId = StrongId<struct TenantTag>;

}  // namespace headroom

template <typename Tag>
struct std::hash<headroom::StrongId<Tag>> {
  size_t operator()(headroom::StrongId<Tag> id) const { return std::hash<uint32_t>()(id.value()); }
};
