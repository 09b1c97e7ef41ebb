#include "engine/policy_config.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "engine/attained_service.h"
#include "engine/facility_ledger.h"
#include "engine/filter.h"
#include "engine/queue_order.h"
#include "engine/scorer.h"
#include "engine/share_scorers.h"
#include "engine/victim_selector.h"

namespace headroom::engine {

Result<PolicyConfig> ValidatePolicy(PolicyConfig config) {
  auto context = [&](Error error) {
    return tl::unexpected(WithContext(std::move(error), "policy '" + config.name + "'"));
  };
  if (auto order = MakeQueueOrder(config.queue_order, config); !order) {
    return context(order.error());
  }
  if (config.node_scorers.empty()) {
    return context(Error{ErrorCode::kInvalidArgument, "node_scorers: expected at least one"});
  }
  for (const NamedWeight& scorer : config.node_scorers) {
    if (Scorers().Find(scorer.name) == nullptr) return context(Scorers().Unknown(scorer.name));
    if (!(scorer.weight >= 0)) {
      return context(Error{ErrorCode::kInvalidArgument,
                           fmt::format("scorer '{}': expected a non-negative weight, got {}",
                                       scorer.name, scorer.weight)});
    }
  }
  if (auto filters = PolicyFilters(config.filters); !filters) return context(filters.error());
  if (!(config.facility_margin >= 0 && config.facility_margin <= 0.5)) {
    return context(Error{ErrorCode::kInvalidArgument,
                         fmt::format("placement.facility_margin: expected a share of each limit, "
                                     "0 to 0.5, got {}",
                                     config.facility_margin)});
  }
  if (!(config.power.min_start_speed > 0 && config.power.min_start_speed <= 1)) {
    return context(Error{ErrorCode::kInvalidArgument,
                         fmt::format("power.min_start_speed: expected a share of uncapped "
                                     "throughput above 0 and at most 1, got {}",
                                     config.power.min_start_speed)});
  }
  if (config.power.static_cap != 0 &&
      (config.power.caps || FacilityLedger::RungAtShare(config.power.static_cap) == 0)) {
    return context(Error{ErrorCode::kInvalidArgument,
                         fmt::format("power.static_cap: expected one of 0.9, 0.8, 0.7, 0.6, 0.5 or "
                                     "0.4 of the TDP, without power.caps, got {}",
                                     config.power.static_cap)});
  }
  if (config.power.caps &&
      std::find(config.filters.begin(), config.filters.end(), "facility") == config.filters.end()) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "power.caps: expected the 'facility' filter among placement.filters (the "
                         "caps keep to its projection of the building)"});
  }
  if (VictimSelectors().Find(config.victim_selector) == nullptr) {
    return context(VictimSelectors().Unknown(config.victim_selector));
  }
  if (auto queues = ValidateQueues(config.queues); !queues) return context(queues.error());
  if (!config.share.scorer.empty()) {
    if (auto share = SharePolicyByName(config.share.scorer); !share) {
      return context(WithContext(share.error(), "share.scorer"));
    }
  }
  if (!(config.share.typical_coverage > 0 && config.share.typical_coverage <= 1)) {
    return context(Error{ErrorCode::kInvalidArgument,
                         fmt::format("share.typical_coverage: expected a share above 0 and at "
                                     "most 1, got {}",
                                     config.share.typical_coverage)});
  }
  const MultifactorWeights& w = config.multifactor;
  if (w.max_age_us <= 0 || w.decay_half_life_us <= 0 || w.recalc_period_us <= 0) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "multifactor: expected positive max age, half-life and period"});
  }
  for (const auto& [tenant, share] : w.tenant_shares) {
    if (!(share > 0 && std::isfinite(share))) {
      return context(Error{
          ErrorCode::kInvalidArgument,
          fmt::format("multifactor.shares.{}: expected a share above 0, got {}", tenant, share)});
    }
  }
  if (config.backfill_interval_us < 0 || config.reserve_after_us < 0 ||
      config.service.age_limit_us < 0) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "backfill interval, reserve_after and qssf age_limit: expected "
                         "non-negative times"});
  }
  const std::vector<int64_t>& limits = config.las.limits_device_s;
  for (size_t i = 0; i < limits.size(); ++i) {
    if (limits[i] <= 0 || limits[i] > kMaxServiceLimitDeviceS ||
        (i > 0 && limits[i] <= limits[i - 1])) {
      return context(Error{ErrorCode::kInvalidArgument,
                           fmt::format("las.limits_device_s: expected positive device-seconds "
                                       "(at most {}) in strictly ascending order, got {} at "
                                       "position {}",
                                       kMaxServiceLimitDeviceS, limits[i], i + 1)});
    }
  }
  if (!(config.las.promote_knob >= 0 && std::isfinite(config.las.promote_knob))) {
    return context(Error{ErrorCode::kInvalidArgument,
                         fmt::format("las.promote_knob: expected a non-negative number, got {}",
                                     config.las.promote_knob)});
  }
  if (config.reserve_after_us > 0 && config.backfill != BackfillMode::kEasy) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "backfill.reserve_after_s: only backfill mode easy makes reservations"});
  }
  const MigrationConfig& m = config.migration;
  if (m.checkpoint_us < 0 || m.restart_us < 0 || m.horizon_us < 0) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "migration: expected non-negative checkpoint, restart and horizon times"});
  }
  if (m.budget_device_s_per_hour < 0) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "migration.budget_device_s_per_hour: expected a non-negative number"});
  }
  if (m.enabled && (m.max_placements == 0 || m.max_moves == 0)) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "migration: expected max_placements and max_moves of at least 1"});
  }
  const PreemptionConfig& p = config.preemption;
  if (p.min_run_us < 0 || p.checkpoint_interval_us < 0 || p.restart_us < 0 ||
      p.reclaim_after_us < 0 || p.preempt_after_us < 0 ||
      p.changeover_budget_device_s_per_hour < 0 || p.service_budget_device_s_per_hour < 0) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "preemption: expected non-negative min_run, checkpoint_interval, "
                         "restart, reclaim_after and preempt_after times and changeover and "
                         "service budgets"});
  }
  if (p.enabled && (p.max_placements == 0 || p.max_victims == 0 || p.max_searches_per_pass == 0)) {
    return context(Error{ErrorCode::kInvalidArgument,
                         "preemption: expected max_placements, max_victims and "
                         "max_searches_per_pass of at least 1"});
  }
  return config;
}

Result<uint32_t> SpareLevel(const RecoveryConfig& recovery, const model::Cluster& cluster) {
  const std::vector<std::string>& names = cluster.level_names();
  if (recovery.spare_level.empty()) return cluster.deepest_level();
  const auto it = std::find(names.begin(), names.end(), recovery.spare_level);
  if (it == names.end()) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "recovery.hot_spares.level: the cluster has no level \"{}\" (its levels: {})",
                     recovery.spare_level, fmt::join(names, ", "));
  }
  return static_cast<uint32_t>(it - names.begin());
}

}  // namespace headroom::engine
