#include "engine/policy_yaml.h"

#include <cmath>
#include <initializer_list>
#include <limits>
#include <utility>

#include "base/check.h"
#include "engine/attained_service.h"
#include "engine/filter.h"
#include "engine/queue_order.h"
#include "engine/quota_yaml.h"
#include "engine/scorer.h"
#include "engine/share_scorers.h"
#include "engine/victim_selector.h"
#include "model/yaml_field.h"

namespace headroom::engine {
namespace {

using model::YamlField;
using model::YamlMap;
using Status = tl::expected<void, Error>;

constexpr double kMaxWeight = 1e12;
constexpr int64_t kMaxSeconds = int64_t{100} * 365 * 24 * 3600;  // A century.

// One of `names`, as written.
template <typename Names>
Result<std::string> OneOf(const YamlField& field, const Names& names) {
  YAML_FIELD_TRY(text, field.Name());
  std::string known;
  for (std::string_view name : names) {
    if (name == *text) return std::string(name);
    known += (known.empty() ? "" : ", ") + std::string(name);
  }
  return tl::unexpected(field.Invalid("one of " + known));
}

template <typename Piece, typename... Args>
Result<std::string> Registered(const YamlField& field, const Registry<Piece, Args...>& registry) {
  return OneOf(field, registry.Names());
}

Result<TimeUs> Seconds(const YamlField& field, bool positive) {
  YAML_FIELD_TRY(seconds, field.Integer(positive ? 1 : 0, kMaxSeconds,
                                        positive ? "a positive whole number of seconds"
                                                 : "a whole number of seconds, 0 or more"));
  return *seconds * kUsPerSecond;
}

Result<uint32_t> Count(const YamlField& field, int64_t min, std::string_view expected) {
  YAML_FIELD_TRY(count, field.Integer(min, std::numeric_limits<uint32_t>::max(), expected));
  return static_cast<uint32_t>(*count);
}

// Applies `parse` to map[key] when present.
template <typename Parse>
Status Optional(const YamlMap& map, std::string_view key, Parse parse) {
  if (const YamlField* field = map.Find(key)) return parse(*field);
  return {};
}

#define POLICY_TRY(expr)                              \
  if (Status status = (expr); !status) {              \
    return tl::unexpected(std::move(status).error()); \
  }

Status ParseMultifactor(const YamlField& field, MultifactorWeights& out) {
  YAML_FIELD_TRY(map, field.Map({"weights", "max_age_s", "decay_half_life_s", "recalc_period_s",
                                 "shares", "fairshare_algorithm"}));
  POLICY_TRY(Optional(*map, "fairshare_algorithm", [&](const YamlField& value) -> Status {
    constexpr std::string_view kAlgorithms[] = {"fair_tree", "classic"};
    YAML_FIELD_TRY(algorithm, OneOf(value, kAlgorithms));
    out.fairshare_algorithm =
        *algorithm == "classic" ? FairShareAlgorithm::kClassic : FairShareAlgorithm::kFairTree;
    return {};
  }));
  POLICY_TRY(Optional(*map, "shares", [&](const YamlField& shares) -> Status {
    YAML_FIELD_TRY(by_tenant, shares.FreeMap());
    for (const auto& [tenant, value] : by_tenant->entries()) {
      YAML_FIELD_TRY(share, value.Number(0, false, kMaxWeight, "a share above 0"));
      out.tenant_shares[tenant] = *share;
    }
    return {};
  }));
  POLICY_TRY(Optional(*map, "weights", [&](const YamlField& weights) -> Status {
    YAML_FIELD_TRY(w, weights.Map({"age", "fairshare", "job_size", "qos"}));
    for (const auto& [key, value] : w->entries()) {
      YAML_FIELD_TRY(number, value.Number(0, true, kMaxWeight, "a weight, 0 or more"));
      double& slot = key == "age"         ? out.age
                     : key == "fairshare" ? out.fairshare
                     : key == "job_size"  ? out.job_size
                                          : out.qos;
      slot = *number;
    }
    return {};
  }));
  const std::pair<std::string_view, TimeUs*> times[] = {
      {"max_age_s", &out.max_age_us},
      {"decay_half_life_s", &out.decay_half_life_us},
      {"recalc_period_s", &out.recalc_period_us}};
  for (const auto& [key, time_slot] : times) {
    TimeUs* slot = time_slot;  // clang before 16 cannot capture a structured binding.
    POLICY_TRY(Optional(*map, key, [&](const YamlField& value) -> Status {
      YAML_FIELD_TRY(us, Seconds(value, true));
      *slot = *us;
      return {};
    }));
  }
  return {};
}

Status ParseAttainedService(const YamlField& field, AttainedServiceConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"limits_device_s", "promote_knob", "priority_first"}));
  POLICY_TRY(Optional(*map, "limits_device_s", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(items, value.Items());
    out.limits_device_s.clear();
    for (const YamlField& item : *items) {
      const int64_t floor = out.limits_device_s.empty() ? 1 : out.limits_device_s.back() + 1;
      YAML_FIELD_TRY(limit, item.Integer(floor, kMaxServiceLimitDeviceS,
                                         out.limits_device_s.empty()
                                             ? "a positive whole number of device-seconds"
                                             : "device-seconds above the limit before"));
      out.limits_device_s.push_back(*limit);
    }
    return {};
  }));
  POLICY_TRY(Optional(*map, "promote_knob", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(knob, value.Number(0, true, kMaxWeight, "a number, 0 (never) or more"));
    out.promote_knob = *knob;
    return {};
  }));
  return Optional(*map, "priority_first", [&](const YamlField& value) -> Status {
    constexpr std::string_view kBooleans[] = {"true", "false"};
    YAML_FIELD_TRY(on, OneOf(value, kBooleans));
    out.priority_first = *on == "true";
    return {};
  });
}

Status ParseQueue(const YamlField& field, PolicyConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"order", "main_depth", "multifactor", "qssf", "las"}));
  POLICY_TRY(Optional(*map, "order", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(name, Registered(value, QueueOrders()));
    out.queue_order = *name;
    return {};
  }));
  POLICY_TRY(Optional(*map, "main_depth", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(depth, Count(value, 0, "a number of jobs, 0 (all) or more"));
    out.main_queue_depth = *depth;
    return {};
  }));
  POLICY_TRY(Optional(*map, "multifactor", [&](const YamlField& value) {
    return ParseMultifactor(value, out.multifactor);
  }));
  POLICY_TRY(Optional(
      *map, "las", [&](const YamlField& value) { return ParseAttainedService(value, out.las); }));
  return Optional(*map, "qssf", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(qssf, value.Map({"age_limit_s"}));
    return Optional(*qssf, "age_limit_s", [&](const YamlField& limit) -> Status {
      YAML_FIELD_TRY(us, Seconds(limit, false));
      out.service.age_limit_us = *us;
      return {};
    });
  });
}

Status ParseBackfill(const YamlField& field, PolicyConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"mode", "interval_s", "max_jobs", "reserve_after_s"}));
  POLICY_TRY(Optional(*map, "mode", [&](const YamlField& value) -> Status {
    constexpr std::string_view kModes[] = {"none", "skip", "easy"};
    YAML_FIELD_TRY(mode, OneOf(value, kModes));
    out.backfill = *mode == "none"   ? BackfillMode::kNone
                   : *mode == "skip" ? BackfillMode::kSkip
                                     : BackfillMode::kEasy;
    return {};
  }));
  POLICY_TRY(Optional(*map, "interval_s", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(us, Seconds(value, false));
    out.backfill_interval_us = *us;
    return {};
  }));
  POLICY_TRY(Optional(*map, "reserve_after_s", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(us, Seconds(value, false));
    if (*us > 0 && out.backfill != BackfillMode::kEasy) {
      return tl::unexpected(value.Invalid("0, or mode easy (only EASY makes reservations)"));
    }
    out.reserve_after_us = *us;
    return {};
  }));
  return Optional(*map, "max_jobs", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(jobs, Count(value, 0, "a number of jobs, 0 (all) or more"));
    out.backfill_max_jobs = *jobs;
    return {};
  });
}

Status ParseScorers(const YamlField& field, PolicyConfig& out) {
  YAML_FIELD_TRY(items, field.Items());
  if (items->empty()) return tl::unexpected(field.Invalid("a list of at least one scorer"));
  out.node_scorers.clear();
  for (const YamlField& item : *items) {
    YAML_FIELD_TRY(entry, item.Map({"name", "weight"}));
    YAML_FIELD_TRY(name_field, entry->Require("name", "a scorer name"));
    YAML_FIELD_TRY(name, Registered(*name_field, Scorers()));
    NamedWeight scorer{*name, 1};
    POLICY_TRY(Optional(*entry, "weight", [&](const YamlField& value) -> Status {
      YAML_FIELD_TRY(weight, value.Number(0, true, kMaxWeight, "a weight, 0 or more"));
      scorer.weight = *weight;
      return {};
    }));
    out.node_scorers.push_back(std::move(scorer));
  }
  return {};
}

Status ParseShare(const YamlField& field, SharePlacementConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"scorer", "tasks", "typical_coverage"}));
  YAML_FIELD_TRY(scorer_field, map->Require("scorer", "a share scorer"));
  std::vector<std::string_view> scorers;
  for (const auto& [name, summary] : SharePolicySummaries()) scorers.push_back(name);
  YAML_FIELD_TRY(scorer, OneOf(*scorer_field, scorers));
  out.scorer = *scorer;
  POLICY_TRY(Optional(*map, "tasks", [&](const YamlField& value) -> Status {
    constexpr std::string_view kTasks[] = {"fractional", "single_task"};
    YAML_FIELD_TRY(tasks, OneOf(value, kTasks));
    out.every_single_task = *tasks == "single_task";
    return {};
  }));
  return Optional(*map, "typical_coverage", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(coverage, value.Number(0, false, 1, "a share above 0 and at most 1"));
    out.typical_coverage = *coverage;
    return {};
  });
}

Status ParsePlacement(const YamlField& field, PolicyConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"gang", "domain_order", "domains_tried_per_level", "filters",
                                 "facility_margin", "scorers", "share"}));
  POLICY_TRY(Optional(*map, "facility_margin", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(share, value.Number(0, true, 0.5, "a share of each limit, 0 to 0.5"));
    out.facility_margin = *share;
    return {};
  }));
  POLICY_TRY(Optional(*map, "gang", [&](const YamlField& value) -> Status {
    constexpr std::string_view kGangs[] = {"per_task", "topology_block"};
    YAML_FIELD_TRY(gang, OneOf(value, kGangs));
    out.gang_placement =
        *gang == "per_task" ? GangPlacement::kPerTask : GangPlacement::kTopologyBlock;
    return {};
  }));
  POLICY_TRY(Optional(*map, "domain_order", [&](const YamlField& value) -> Status {
    constexpr std::string_view kOrders[] = {"first_fit", "best_fit", "worst_fit"};
    YAML_FIELD_TRY(order, OneOf(value, kOrders));
    out.domain_order = *order == "first_fit"  ? FitOrder::kFirstFit
                       : *order == "best_fit" ? FitOrder::kBestFit
                                              : FitOrder::kWorstFit;
    return {};
  }));
  POLICY_TRY(Optional(*map, "domains_tried_per_level", [&](const YamlField& value) -> Status {
    if (value.IsScalar() && value.node().Scalar() == "all") {
      out.domains_tried_per_level = std::numeric_limits<uint32_t>::max();
      return {};
    }
    YAML_FIELD_TRY(count, Count(value, 1, "a number of domains, 1 or more, or all"));
    out.domains_tried_per_level = *count;
    return {};
  }));
  POLICY_TRY(Optional(*map, "filters", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(items, value.Items());
    out.filters.clear();
    for (const YamlField& item : *items) {
      YAML_FIELD_TRY(name, Registered(item, Filters()));
      out.filters.push_back(*name);
    }
    return {};
  }));
  POLICY_TRY(Optional(*map, "share",
                      [&](const YamlField& value) { return ParseShare(value, out.share); }));
  return Optional(*map, "scorers",
                  [&](const YamlField& value) { return ParseScorers(value, out); });
}

// Optional times in whole seconds (0 or more).
Status ParseTimes(const YamlMap& map,
                  std::initializer_list<std::pair<std::string_view, TimeUs*>> times) {
  for (const auto& [key, slot] : times) {
    TimeUs* time = slot;
    POLICY_TRY(Optional(map, key, [&](const YamlField& value) -> Status {
      YAML_FIELD_TRY(us, Seconds(value, false));
      *time = *us;
      return {};
    }));
  }
  return {};
}

// A switchable section of seconds and counts: `enabled` (true or false), each time in whole
// seconds (0 or more), each count 1 or more.
Status ParseSection(const YamlMap& map, bool& enabled,
                    std::initializer_list<std::pair<std::string_view, TimeUs*>> times,
                    std::initializer_list<std::pair<std::string_view, uint32_t*>> counts) {
  POLICY_TRY(Optional(map, "enabled", [&](const YamlField& value) -> Status {
    constexpr std::string_view kBooleans[] = {"true", "false"};
    YAML_FIELD_TRY(on, OneOf(value, kBooleans));
    enabled = *on == "true";
    return {};
  }));
  POLICY_TRY(ParseTimes(map, times));
  for (const auto& [key, slot] : counts) {
    uint32_t* count = slot;
    POLICY_TRY(Optional(map, key, [&](const YamlField& value) -> Status {
      YAML_FIELD_TRY(number, Count(value, 1, "a whole number, 1 or more"));
      *count = *number;
      return {};
    }));
  }
  return {};
}

Status ParseMigration(const YamlField& field, MigrationConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"enabled", "checkpoint_s", "restart_s", "budget_device_s_per_hour",
                                 "horizon_s", "max_placements", "max_moves"}));
  POLICY_TRY(
      ParseSection(*map, out.enabled,
                   {{"checkpoint_s", &out.checkpoint_us},
                    {"restart_s", &out.restart_us},
                    {"horizon_s", &out.horizon_us}},
                   {{"max_placements", &out.max_placements}, {"max_moves", &out.max_moves}}));
  return Optional(*map, "budget_device_s_per_hour", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(budget, value.Integer(0, kMaxSeconds, "device-seconds, 0 or more"));
    out.budget_device_s_per_hour = *budget;
    return {};
  });
}

Status ParsePreemption(const YamlField& field, PreemptionConfig& out) {
  YAML_FIELD_TRY(
      map, field.Map({"enabled", "min_run_s", "checkpoint_interval_s", "restart_s",
                      "max_placements", "max_victims", "max_searches_per_pass",
                      "changeover_budget_device_s_per_hour", "max_preemptions_per_job", "scope",
                      "reclaim_after_s", "preempt_after_s", "raise_requeued_after_s",
                      "service_max_lost_s", "service_budget_device_s_per_hour"}));
  POLICY_TRY(ParseSection(*map, out.enabled,
                          {{"min_run_s", &out.min_run_us},
                           {"reclaim_after_s", &out.reclaim_after_us},
                           {"preempt_after_s", &out.preempt_after_us},
                           {"raise_requeued_after_s", &out.raise_requeued_after_us},
                           {"service_max_lost_s", &out.service_max_lost_us},
                           {"checkpoint_interval_s", &out.checkpoint_interval_us},
                           {"restart_s", &out.restart_us}},
                          {{"max_placements", &out.max_placements},
                           {"max_victims", &out.max_victims},
                           {"max_searches_per_pass", &out.max_searches_per_pass}}));
  POLICY_TRY(Optional(*map, "scope", [&](const YamlField& value) -> Status {
    constexpr std::string_view kScopes[] = {"queue", "cluster"};
    YAML_FIELD_TRY(scope, OneOf(value, kScopes));
    out.scope = *scope == "queue" ? PreemptionScope::kQueue : PreemptionScope::kCluster;
    return {};
  }));
  POLICY_TRY(Optional(*map, "max_preemptions_per_job", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(count, Count(value, 0, "a whole number, 0 (no limit) or more"));
    out.max_preemptions_per_job = *count;
    return {};
  }));
  for (const auto& [key, slot] :
       {std::pair{"changeover_budget_device_s_per_hour", &out.changeover_budget_device_s_per_hour},
        std::pair{"service_budget_device_s_per_hour", &out.service_budget_device_s_per_hour}}) {
    int64_t* budget_slot = slot;
    POLICY_TRY(Optional(*map, key, [&](const YamlField& value) -> Status {
      YAML_FIELD_TRY(budget, value.Integer(0, kMaxSeconds, "device-seconds, 0 (no limit) or more"));
      *budget_slot = *budget;
      return {};
    }));
  }
  return {};
}

// A map of optional boolean flags: keys[i] sets *flags[i].
Status ParseFlags(const YamlField& field, std::initializer_list<std::string_view> keys,
                  std::initializer_list<bool*> flags) {
  HR_CHECK(keys.size() == flags.size());
  YAML_FIELD_TRY(map, field.Map(keys));
  bool* const* flag = flags.begin();
  for (std::string_view key : keys) {
    bool* slot = *flag++;
    POLICY_TRY(Optional(*map, key, [&](const YamlField& value) -> Status {
      constexpr std::string_view kBooleans[] = {"true", "false"};
      YAML_FIELD_TRY(on, OneOf(value, kBooleans));
      *slot = *on == "true";
      return {};
    }));
  }
  return {};
}

Status ParseReadiness(const YamlField& field, ReadinessConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"check_s", "verified_for_s", "gang_check_s", "diagnostics_s"}));
  return ParseTimes(*map, {{"check_s", &out.check_us},
                           {"verified_for_s", &out.verified_for_us},
                           {"gang_check_s", &out.gang_check_us},
                           {"diagnostics_s", &out.diagnostics_us}});
}

Status ParseHotSpares(const YamlField& field, RecoveryConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"nodes", "level"}));
  POLICY_TRY(Optional(*map, "nodes", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(count, Count(value, 0, "a number of nodes per domain, 0 (none) or more"));
    out.spare_nodes = *count;
    return {};
  }));
  return Optional(*map, "level", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(name, value.Name());
    out.spare_level = *name;
    return {};
  });
}

Status ParseRecovery(const YamlField& field, RecoveryConfig& out) {
  YAML_FIELD_TRY(
      map, field.Map({"expedite", "keep_nodes", "hold_after", "hold_window_s",
                      "node_faults_per_day", "direct_checkpoints", "hot_spares", "evacuate"}));
  // Not a structured binding: Debian 12's clang refuses a lambda's capture of one.
  for (const auto& entry :
       {std::pair{"expedite", &out.expedite}, std::pair{"keep_nodes", &out.keep_nodes},
        std::pair{"direct_checkpoints", &out.direct_checkpoints},
        std::pair{"evacuate", &out.evacuate}}) {
    bool* flag = entry.second;
    POLICY_TRY(Optional(*map, entry.first, [&](const YamlField& value) -> Status {
      constexpr std::string_view kBooleans[] = {"true", "false"};
      YAML_FIELD_TRY(on, OneOf(value, kBooleans));
      *flag = *on == "true";
      return {};
    }));
  }
  POLICY_TRY(Optional(*map, "hold_after", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(count, Count(value, 0, "a number of interruptions, 0 (never hold) or more"));
    out.hold_after = *count;
    return {};
  }));
  POLICY_TRY(Optional(*map, "node_faults_per_day", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(rate, value.Number(0, false, 1000, "faults per node-day, above 0"));
    out.node_faults_per_day = *rate;
    return {};
  }));
  POLICY_TRY(Optional(*map, "hot_spares",
                      [&](const YamlField& value) { return ParseHotSpares(value, out); }));
  return Optional(*map, "hold_window_s", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(us, Seconds(value, true));
    out.hold_window_us = *us;
    return {};
  });
}

Status ParseAutoscaling(const YamlField& field, AutoscalingConfig& out) {
  POLICY_TRY(ParseFlags(field, {"forecast", "fixed_at_peak"}, {&out.forecast, &out.fixed_at_peak}));
  if (out.forecast && out.fixed_at_peak) {
    return tl::unexpected(field.Invalid("forecast or fixed_at_peak, not both", "both"));
  }
  return {};
}

Status ParsePower(const YamlField& field, PowerCapConfig& out) {
  YAML_FIELD_TRY(map, field.Map({"caps", "min_start_speed", "static_cap"}));
  POLICY_TRY(Optional(*map, "static_cap", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(share, value.Number(0, false, 1, "a share of the TDP"));
    out.static_cap = *share;
    return {};
  }));
  POLICY_TRY(Optional(*map, "caps", [&](const YamlField& value) -> Status {
    constexpr std::string_view kBooleans[] = {"true", "false"};
    YAML_FIELD_TRY(on, OneOf(value, kBooleans));
    out.caps = *on == "true";
    return {};
  }));
  return Optional(*map, "min_start_speed", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(speed,
                   value.Number(0, false, 1, "a share of uncapped throughput, above 0 to 1"));
    out.min_start_speed = *speed;
    return {};
  });
}

Result<PolicyConfig> Parse(const YamlField& document) {
  YAML_FIELD_TRY(map, document.Map({"name", "description", "queue", "backfill", "placement",
                                    "victim_selector", "migration", "preemption", "elastic",
                                    "autoscaling", "recovery", "readiness", "power", "queues"}));
  PolicyConfig config;
  YAML_FIELD_TRY(name_field, map->Require("name", "a policy name"));
  YAML_FIELD_TRY(name, name_field->Name());
  config.name = *name;
  POLICY_TRY(Optional(*map, "description", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(text, value.Text());
    config.description = model::PrintableLine(*text);
    return {};
  }));
  POLICY_TRY(Optional(*map, "queue", [&](const YamlField& v) { return ParseQueue(v, config); }));
  POLICY_TRY(
      Optional(*map, "backfill", [&](const YamlField& v) { return ParseBackfill(v, config); }));
  POLICY_TRY(
      Optional(*map, "placement", [&](const YamlField& v) { return ParsePlacement(v, config); }));
  POLICY_TRY(Optional(*map, "victim_selector", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(selector, Registered(value, VictimSelectors()));
    config.victim_selector = *selector;
    return {};
  }));
  POLICY_TRY(Optional(*map, "migration",
                      [&](const YamlField& v) { return ParseMigration(v, config.migration); }));
  POLICY_TRY(Optional(*map, "preemption",
                      [&](const YamlField& v) { return ParsePreemption(v, config.preemption); }));
  POLICY_TRY(Optional(*map, "elastic", [&](const YamlField& v) {
    return ParseFlags(v, {"shrink", "grow"}, {&config.elastic.shrink, &config.elastic.grow});
  }));
  POLICY_TRY(Optional(*map, "autoscaling",
                      [&](const YamlField& v) { return ParseAutoscaling(v, config.autoscaling); }));
  POLICY_TRY(Optional(*map, "recovery",
                      [&](const YamlField& v) { return ParseRecovery(v, config.recovery); }));
  POLICY_TRY(Optional(*map, "readiness",
                      [&](const YamlField& v) { return ParseReadiness(v, config.readiness); }));
  POLICY_TRY(
      Optional(*map, "power", [&](const YamlField& v) { return ParsePower(v, config.power); }));
  POLICY_TRY(Optional(*map, "queues", [&](const YamlField& value) -> Status {
    YAML_FIELD_TRY(queues, ParseQueuesField(value));
    config.queues = std::move(*queues);
    return {};
  }));
  return config;
}

}  // namespace

Result<PolicyConfig> ParsePolicyYaml(std::string_view text, std::string_view source) {
  auto node = model::LoadYamlDocument(text, source);
  if (!node) return tl::unexpected(node.error());
  const YamlField document = YamlField::Document(*node, source);
  if (document.IsNull()) return tl::unexpected(document.Invalid("a policy (a map with a name)"));
  auto config = Parse(document);
  if (!config) return config;
  auto valid = ValidatePolicy(std::move(*config));
  if (!valid) return tl::unexpected(WithContext(valid.error(), source));
  return valid;
}

}  // namespace headroom::engine
