#include "engine/fair_share.h"

#include <cmath>
#include <utility>

#include "base/check.h"

namespace headroom::engine {

void FairShare::EnsureTenant(TenantId tenant) {
  if (tenant.value() >= usage_.size()) {
    usage_.resize(tenant.value() + 1, 0);
    running_milli_.resize(tenant.value() + 1, 0);
    shares_.resize(tenant.value() + 1, 1.0);
    tree_.Grow(usage_.size());
    factors_.clear();
  }
}

void FairShare::UseTree(FairShareTree tree, FairShareAlgorithm algorithm) {
  HR_CHECK(usage_.empty());
  tree_ = std::move(tree);
  algorithm_ = algorithm;
  factors_.clear();
}

void FairShare::Place(TenantId tenant, uint32_t queue) {
  EnsureTenant(tenant);
  tree_.Place(tenant, queue);
  factors_.clear();
}

void FairShare::SetShare(TenantId tenant, double share) {
  HR_CHECK(share > 0 && std::isfinite(share));
  EnsureTenant(tenant);
  shares_[tenant.value()] = share;
  factors_.clear();
}

std::vector<double> FairShare::NormalizedShares() const { return tree_.TenantShares(shares_); }

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
  Integrate(usage_, now, true);
  last_us_ = now;
  factors_.clear();
}

std::vector<double> FairShare::UsageAt(TimeUs now) const {
  std::vector<double> usage = usage_;
  if (started_ && now > last_us_) Integrate(usage, now, true);
  return usage;
}

void FairShare::Integrate(std::vector<double>& usage, TimeUs now, bool count_running) const {
  const double dt_s = count_running ? UsToSeconds(now - last_us_) : 0.0;
  const double decay =
      std::exp2(-static_cast<double>(now - last_us_) / static_cast<double>(half_life_us_));
  for (size_t t = 0; t < usage.size(); ++t) {
    usage[t] = usage[t] * decay + static_cast<double>(running_milli_[t]) * dt_s;
  }
}

void FairShare::Seed(TenantId tenant, double usage, TimeUs as_of) {
  EnsureTenant(tenant);
  usage_[tenant.value()] = usage;
  started_ = true;
  last_us_ = as_of;
  factors_.clear();
}

void FairShare::DecayTo(TimeUs now) {
  if (!started_ || now <= last_us_) return;
  Integrate(usage_, now, false);
  last_us_ = now;
  factors_.clear();
}

double FairShare::Factor(TenantId tenant) const {
  if (tenant.value() >= usage_.size()) return 1;
  return Factors()[tenant.value()];
}

const std::vector<double>& FairShare::Factors() const {
  if (factors_.empty()) factors_ = FactorsOf(usage_);  // Every change empties it.
  return factors_;
}

std::vector<double> FairShare::FactorsOf(const std::vector<double>& usage) const {
  return algorithm_ == FairShareAlgorithm::kFairTree ? tree_.FairTreeFactors(usage, shares_)
                                                     : tree_.ClassicFactors(usage, shares_);
}

}  // namespace headroom::engine
