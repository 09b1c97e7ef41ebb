#include "engine/fair_share.h"

#include <cmath>

namespace headroom::engine {

void FairShare::EnsureTenant(TenantId tenant) {
  if (tenant.value() >= usage_.size()) {
    usage_.resize(tenant.value() + 1, 0);
    running_milli_.resize(tenant.value() + 1, 0);
  }
}

void FairShare::AddRunning(TenantId tenant, int64_t milli) {
  EnsureTenant(tenant);
  running_milli_[tenant.value()] += milli;
}

void FairShare::Advance(TimeUs now) {
  if (!started_) {
    started_ = true;
    last_us_ = now;
    return;
  }
  if (now <= last_us_) return;
  const double dt_s = UsToSeconds(now - last_us_);
  const double decay =
      std::exp2(-static_cast<double>(now - last_us_) / static_cast<double>(half_life_us_));
  for (size_t t = 0; t < usage_.size(); ++t) {
    usage_[t] = usage_[t] * decay + static_cast<double>(running_milli_[t]) * dt_s;
  }
  last_us_ = now;
}

double FairShare::Factor(TenantId tenant) const {
  if (tenant.value() >= usage_.size()) return 1;
  return Factors()[tenant.value()];
}

std::vector<double> FairShare::Factors() const {
  std::vector<double> factors(usage_.size(), 1.0);
  double total = 0;
  for (double usage : usage_) total += usage;
  if (total <= 0) return factors;
  const double share = 1.0 / static_cast<double>(usage_.size());
  for (size_t t = 0; t < usage_.size(); ++t) {
    factors[t] = std::exp2(-(usage_[t] / total) / share);
  }
  return factors;
}

}  // namespace headroom::engine
