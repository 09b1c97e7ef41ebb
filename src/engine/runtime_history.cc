#include "engine/runtime_history.h"

#include <algorithm>
#include <cmath>

#include "base/check.h"

namespace headroom::engine {
namespace {

TimeUs MeanUs(const RuntimeTally& tally) {
  return static_cast<TimeUs>(std::llround(tally.sum_s / static_cast<double>(tally.runs) *
                                          static_cast<double>(kUsPerSecond)));
}

}  // namespace

void RuntimeHistory::Record(TenantId tenant, uint64_t size_milli, TimeUs runtime_us) {
  const double runtime_s =
      static_cast<double>(std::max<TimeUs>(runtime_us, 0)) / static_cast<double>(kUsPerSecond);
  Add(tenant, size_milli, RuntimeTally{.runs = 1, .sum_s = runtime_s});
}

void RuntimeHistory::Seed(TenantId tenant, uint64_t size_milli, const RuntimeTally& tally) {
  HR_CHECK(tally.sum_s >= 0);
  if (tally.runs > 0) Add(tenant, size_milli, tally);
}

void RuntimeHistory::Add(TenantId tenant, uint64_t size_milli, const RuntimeTally& tally) {
  HR_CHECK(tenant.valid());
  if (tenant.value() >= by_tenant_.size()) {
    by_tenant_.resize(tenant.value() + 1);
    sizes_by_tenant_.resize(tenant.value() + 1);
  }
  by_tenant_[tenant.value()].Add(tally);
  sizes_by_tenant_[tenant.value()][size_milli].Add(tally);
  all_.Add(tally);
}

TimeUs RuntimeHistory::Predict(TenantId tenant, uint64_t size_milli) const {
  if (tenant.value() < by_tenant_.size()) {
    const auto& sizes = sizes_by_tenant_[tenant.value()];
    if (auto it = sizes.find(size_milli); it != sizes.end()) return MeanUs(it->second);
    if (by_tenant_[tenant.value()].runs > 0) return MeanUs(by_tenant_[tenant.value()]);
  }
  return all_.runs > 0 ? MeanUs(all_) : 0;
}

RuntimeTallies RuntimeHistory::Tallies(const std::vector<const std::string*>& names) const {
  RuntimeTallies tallies;
  for (size_t tenant = 0; tenant < sizes_by_tenant_.size(); ++tenant) {
    if (sizes_by_tenant_[tenant].empty()) continue;
    HR_CHECK(tenant < names.size() && names[tenant] != nullptr);
    tallies[*names[tenant]] = sizes_by_tenant_[tenant];
  }
  return tallies;
}

}  // namespace headroom::engine
