// FairShare: decayed device usage per tenant, for the multifactor queue order. Usage is
// integrated in milli-device-seconds between updates and halves every decay half-life
// (Slurm PriorityDecayHalfLife). The factor is Slurm's classic 2^(−U/S) with U = tenant usage ÷
// total usage and S = the tenant's raw share ÷ the sum of every tenant's (1 each unless set).
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <vector>

#include "base/ids.h"
#include "base/time.h"

namespace headroom::engine {

class FairShare {
 public:
  explicit FairShare(TimeUs half_life_us) : half_life_us_(half_life_us) {}

  void EnsureTenant(TenantId tenant);
  // The tenant's raw share (> 0); 1 until set.
  void SetShare(TenantId tenant, double share);
  // Normalized shares S by tenant id (they sum to 1).
  std::vector<double> NormalizedShares() const;
  // Running allocation changes (milli-devices) for a tenant.
  void AddRunning(TenantId tenant, int64_t milli);
  // Integrates usage up to `now` and applies decay.
  void Advance(TimeUs now);
  double Factor(TenantId tenant) const;
  // Factors of every tenant at once, by tenant id: O(tenants) rather than O(tenants²).
  std::vector<double> Factors() const { return FactorsOf(usage_); }
  // Factors on the usage UsageAt(now) gives, without changing anything.
  std::vector<double> FactorsAt(TimeUs now) const { return FactorsOf(UsageAt(now)); }

  // Each tenant's usage as Advance(now) would make it, without changing anything.
  std::vector<double> UsageAt(TimeUs now) const;
  // Usage carried from an earlier engine (carried_state.h), taken at `as_of`.
  void Seed(TenantId tenant, double usage, TimeUs as_of);
  // Decays usage up to `now` without integrating the running work: for the gap between a
  // seed and the first step (a daemon that was down did not run what it runs now).
  void DecayTo(TimeUs now);

 private:
  std::vector<double> FactorsOf(const std::vector<double>& usage) const;
  // `usage` decayed from last_us_ to `now`, plus (with `count_running`) the running work over
  // that time.
  void Integrate(std::vector<double>& usage, TimeUs now, bool count_running) const;

  TimeUs half_life_us_;
  TimeUs last_us_ = 0;
  bool started_ = false;
  std::vector<double> usage_;  // Decayed milli-device-seconds.
  std::vector<int64_t> running_milli_;
  std::vector<double> shares_;  // Raw shares.
};

}  // namespace headroom::engine
