// FairShare: decayed device usage per tenant, for the multifactor queue order. Usage is
// integrated in milli-device-seconds between updates and halves every decay half-life
// (Slurm PriorityDecayHalfLife). The factor is Slurm's classic 2^(−UE/S) over the tree of
// queues (fair_share_tree.h; without queues 2^(−U/S), U = tenant usage ÷ total usage and S =
// the tenant's raw share ÷ the sum of every tenant's, 1 each unless set), or its Fair Tree rank.
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <vector>

#include "base/ids.h"
#include "base/time.h"
#include "engine/fair_share_tree.h"
#include "engine/policy_config.h"

namespace headroom::engine {

class FairShare {
 public:
  explicit FairShare(TimeUs half_life_us) : half_life_us_(half_life_us) {}

  void EnsureTenant(TenantId tenant);
  // Factors over `tree` (before any tenant), by `algorithm`; without it, the root alone and
  // the classic formula.
  void UseTree(FairShareTree tree, FairShareAlgorithm algorithm);
  const FairShareTree& tree() const { return tree_; }
  // The leaf queue the tenant's usage counts in (the root until placed).
  void Place(TenantId tenant, uint32_t queue);
  // The tenant's raw share (> 0); 1 until set.
  void SetShare(TenantId tenant, double share);
  // Normalized shares S by tenant id, over the shares of the tenant's siblings in its queue
  // (without queues, every tenant's: they sum to 1).
  std::vector<double> NormalizedShares() const;
  const std::vector<double>& raw_shares() const { return shares_; }
  // Running allocation changes (milli-devices) for a tenant.
  void AddRunning(TenantId tenant, int64_t milli);
  // Integrates usage up to `now` and applies decay.
  void Advance(TimeUs now);
  double Factor(TenantId tenant) const;
  // Factors of every tenant at once, by tenant id, computed once per change of usage, shares
  // or tenants.
  const std::vector<double>& Factors() const;
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
  FairShareTree tree_;
  FairShareAlgorithm algorithm_ = FairShareAlgorithm::kClassic;
  mutable std::vector<double> factors_;  // Factors() of the current usage; empty when stale.
};

}  // namespace headroom::engine
