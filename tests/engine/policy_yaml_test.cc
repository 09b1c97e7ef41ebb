// Policy files (policy_yaml.h): the shipped presets are the files in configs/policies/, an
// operator's file sets every piece and parameter it names and keeps the defaults of the rest,
// and a broken file is one error naming its file, line and field.
#include "engine/policy_yaml.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "engine/presets.h"

namespace headroom::engine {
namespace {

std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(PolicyYamlTest, EveryPresetIsItsFileInConfigsPolicies) {
  const std::filesystem::path dir = std::filesystem::path(HEADROOM_SOURCE_DIR) / "configs/policies";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() == ".yaml") ++files;
  }
  EXPECT_EQ(files, ShippedPolicyNames().size());
  for (std::string_view name : ShippedPolicyNames()) {
    const std::filesystem::path file = dir / (std::string(name) + ".yaml");
    auto text = PresetPolicyText(name);
    ASSERT_TRUE(text.has_value()) << name;
    EXPECT_EQ(*text, ReadFile(file)) << "the build embeds a stale copy of " << file;
    auto policy = PresetPolicy(name);
    ASSERT_TRUE(policy.has_value()) << policy.error().message;
    EXPECT_EQ(policy->name, name);
    EXPECT_FALSE(policy->description.empty());
  }
  EXPECT_FALSE(PresetPolicy("nosuch").has_value());
}

// The policies kept to compare with (configs/examples/) are valid policy files too.
TEST(PolicyYamlTest, EveryExamplePolicyParses) {
  const std::filesystem::path dir = std::filesystem::path(HEADROOM_SOURCE_DIR) / "configs/examples";
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    ++files;
    auto policy = ParsePolicyYaml(ReadFile(entry.path()), entry.path().string());
    ASSERT_TRUE(policy.has_value()) << policy.error().message;
    EXPECT_EQ(policy->name, entry.path().stem().string());
  }
  EXPECT_GT(files, 0u);
}

TEST(PolicyYamlTest, AnOperatorsFileSetsEveryPieceItNames) {
  const std::string text = R"(
name: mine
description: worst-fit packing with priority victims
queue:
  order: multifactor
  main_depth: 50
  multifactor:
    weights: {age: 1, fairshare: 2, job_size: 3, qos: 4}
    max_age_s: 3600
    decay_half_life_s: 7200
    recalc_period_s: 30
    shares: {team-a: 3, team-b: 0.5}
    fairshare_algorithm: classic
  qssf: {age_limit_s: 86400}
  las: {limits_device_s: [100, 200, 300], promote_knob: 2.5, priority_first: true}
backfill: {mode: easy, interval_s: 10, max_jobs: 20, reserve_after_s: 600}
placement:
  gang: per_task
  domain_order: worst_fit
  domains_tried_per_level: all
  filters: [device_selector, facility]
  facility_margin: 0.1
  share: {scorer: fgd, tasks: single_task, typical_coverage: 0.9}
  scorers:
    - {name: most_allocated, weight: 2}
    - {name: first_fit}
victim_selector: lowest_priority
power: {caps: true, min_start_speed: 0.75}
migration:
  enabled: true
  checkpoint_s: 5
  restart_s: 7
  budget_device_s_per_hour: 100
  horizon_s: 900
  max_placements: 3
  max_moves: 2
preemption:
  enabled: true
  min_run_s: 300
  checkpoint_interval_s: 1800
  restart_s: 120
  max_placements: 9
  max_victims: 4
  max_searches_per_pass: 2
  changeover_budget_device_s_per_hour: 7200
  max_preemptions_per_job: 3
  scope: cluster
  reclaim_after_s: 90
  preempt_after_s: 45
  raise_requeued_after_s: 7200
  service_max_lost_s: 300
  service_budget_device_s_per_hour: 36000
queues:
  - {name: org, guaranteed: {devices: 16}}
  - {name: vision, parent: org, tenants: [alice], share: 2.5, guaranteed: {devices: 8}}
)";
  auto policy = ParsePolicyYaml(text, "mine.yaml");
  ASSERT_TRUE(policy.has_value()) << policy.error().message;
  EXPECT_EQ(policy->name, "mine");
  EXPECT_EQ(policy->description, "worst-fit packing with priority victims");
  EXPECT_EQ(policy->queue_order, "multifactor");
  EXPECT_EQ(policy->main_queue_depth, 50u);
  EXPECT_EQ(policy->multifactor.age, 1);
  EXPECT_EQ(policy->multifactor.fairshare, 2);
  EXPECT_EQ(policy->multifactor.job_size, 3);
  EXPECT_EQ(policy->multifactor.qos, 4);
  EXPECT_EQ(policy->multifactor.max_age_us, 3600 * kUsPerSecond);
  EXPECT_EQ(policy->multifactor.decay_half_life_us, 7200 * kUsPerSecond);
  EXPECT_EQ(policy->multifactor.recalc_period_us, 30 * kUsPerSecond);
  EXPECT_EQ(policy->backfill, BackfillMode::kEasy);
  EXPECT_EQ(policy->backfill_interval_us, 10 * kUsPerSecond);
  EXPECT_EQ(policy->backfill_max_jobs, 20u);
  EXPECT_EQ(policy->reserve_after_us, 600 * kUsPerSecond);
  EXPECT_EQ(policy->multifactor.tenant_shares,
            (std::map<std::string, double>{{"team-a", 3}, {"team-b", 0.5}}));
  EXPECT_EQ(policy->multifactor.fairshare_algorithm, FairShareAlgorithm::kClassic);
  EXPECT_EQ(policy->service.age_limit_us, 86400 * kUsPerSecond);
  EXPECT_EQ(policy->las.limits_device_s, (std::vector<int64_t>{100, 200, 300}));
  EXPECT_EQ(policy->las.promote_knob, 2.5);
  EXPECT_TRUE(policy->las.priority_first);
  EXPECT_EQ(policy->gang_placement, GangPlacement::kPerTask);
  EXPECT_EQ(policy->domain_order, FitOrder::kWorstFit);
  EXPECT_EQ(policy->domains_tried_per_level, UINT32_MAX);
  EXPECT_EQ(policy->filters, (std::vector<std::string>{"device_selector", "facility"}));
  EXPECT_EQ(policy->facility_margin, 0.1);
  EXPECT_TRUE(policy->power.caps);
  EXPECT_EQ(policy->power.min_start_speed, 0.75);
  EXPECT_EQ(policy->share.scorer, "fgd");
  EXPECT_TRUE(policy->share.every_single_task);
  EXPECT_EQ(policy->share.typical_coverage, 0.9);
  ASSERT_EQ(policy->node_scorers.size(), 2u);
  EXPECT_EQ(policy->node_scorers[0].name, "most_allocated");
  EXPECT_EQ(policy->node_scorers[0].weight, 2);
  EXPECT_EQ(policy->node_scorers[1].name, "first_fit");
  EXPECT_EQ(policy->node_scorers[1].weight, 1);
  EXPECT_EQ(policy->victim_selector, "lowest_priority");
  EXPECT_TRUE(policy->migration.enabled);
  EXPECT_EQ(policy->migration.checkpoint_us, 5 * kUsPerSecond);
  EXPECT_EQ(policy->migration.restart_us, 7 * kUsPerSecond);
  EXPECT_EQ(policy->migration.budget_device_s_per_hour, 100);
  EXPECT_EQ(policy->migration.horizon_us, 900 * kUsPerSecond);
  EXPECT_EQ(policy->migration.max_placements, 3u);
  EXPECT_EQ(policy->migration.max_moves, 2u);
  EXPECT_TRUE(policy->preemption.enabled);
  EXPECT_EQ(policy->preemption.min_run_us, 300 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.checkpoint_interval_us, 1800 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.restart_us, 120 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.max_placements, 9u);
  EXPECT_EQ(policy->preemption.max_victims, 4u);
  EXPECT_EQ(policy->preemption.max_searches_per_pass, 2u);
  EXPECT_EQ(policy->preemption.changeover_budget_device_s_per_hour, 7200);
  EXPECT_EQ(policy->preemption.max_preemptions_per_job, 3u);
  EXPECT_EQ(policy->preemption.scope, PreemptionScope::kCluster);
  EXPECT_EQ(policy->preemption.reclaim_after_us, 90 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.preempt_after_us, 45 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.raise_requeued_after_us, 7200 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.service_max_lost_us, 300 * kUsPerSecond);
  EXPECT_EQ(policy->preemption.service_budget_device_s_per_hour, 36000);
  ASSERT_EQ(policy->queues.size(), 2u);
  EXPECT_EQ(policy->queues[1].name, "vision");
  EXPECT_EQ(policy->queues[1].parent, "org");
  EXPECT_EQ(policy->queues[1].tenants, std::vector<std::string>{"alice"});
  EXPECT_EQ(policy->queues[1].guaranteed[0], 8000);
  EXPECT_EQ(policy->queues[1].share, 2.5);
}

TEST(PolicyYamlTest, AbsentKeysKeepTheDefaults) {
  auto policy = ParsePolicyYaml("name: bare\n", "bare.yaml");
  ASSERT_TRUE(policy.has_value()) << policy.error().message;
  const PolicyConfig defaults;
  EXPECT_EQ(policy->queue_order, defaults.queue_order);
  EXPECT_EQ(policy->backfill, defaults.backfill);
  EXPECT_EQ(policy->gang_placement, defaults.gang_placement);
  EXPECT_EQ(policy->domain_order, defaults.domain_order);
  ASSERT_EQ(policy->node_scorers.size(), 1u);
  EXPECT_EQ(policy->node_scorers[0].name, defaults.node_scorers[0].name);
  EXPECT_EQ(policy->victim_selector, defaults.victim_selector);
  EXPECT_EQ(policy->share.scorer, "");  // Off: every job placed by the node scorers.
  EXPECT_EQ(policy->migration.enabled, defaults.migration.enabled);
  EXPECT_EQ(policy->preemption.enabled, defaults.preemption.enabled);
  EXPECT_EQ(policy->preemption.checkpoint_interval_us, defaults.preemption.checkpoint_interval_us);
  EXPECT_EQ(policy->multifactor.recalc_period_us, defaults.multifactor.recalc_period_us);
  EXPECT_FALSE(policy->elastic.shrink);
  EXPECT_FALSE(policy->elastic.grow);
}

TEST(PolicyYamlTest, ElasticResizesAreSwitchedOneByOne) {
  auto shrink = ParsePolicyYaml("name: s\nelastic: {shrink: true}\n", "s.yaml");
  ASSERT_TRUE(shrink.has_value()) << shrink.error().message;
  EXPECT_TRUE(shrink->elastic.shrink);
  EXPECT_FALSE(shrink->elastic.grow);
  EXPECT_TRUE(PresetPolicy("headroom")->elastic.grow);
  EXPECT_FALSE(PresetPolicy("k8s-preemption")->elastic.shrink);
}

TEST(PolicyYamlTest, RecoveryExpediteIsOffUnlessAsked) {
  auto expedite = ParsePolicyYaml("name: e\nrecovery: {expedite: true}\n", "e.yaml");
  ASSERT_TRUE(expedite.has_value()) << expedite.error().message;
  EXPECT_TRUE(expedite->recovery.expedite);
  EXPECT_FALSE(ParsePolicyYaml("name: e\n", "e.yaml")->recovery.expedite);
  EXPECT_TRUE(PresetPolicy("slurm-expedite")->recovery.expedite);
  EXPECT_TRUE(PresetPolicy("headroom")->recovery.expedite);
  EXPECT_FALSE(PresetPolicy("no-health")->recovery.expedite);
  EXPECT_FALSE(PresetPolicy("slurm-like")->recovery.expedite);
  // Directed checkpoints: headroom's own; no baseline tells a job how often to checkpoint.
  auto directing = ParsePolicyYaml("name: d\nrecovery: {direct_checkpoints: true}\n", "d.yaml");
  ASSERT_TRUE(directing.has_value()) << directing.error().message;
  EXPECT_TRUE(directing->recovery.direct_checkpoints);
  EXPECT_FALSE(ParsePolicyYaml("name: e\n", "e.yaml")->recovery.direct_checkpoints);
  EXPECT_TRUE(PresetPolicy("headroom")->recovery.direct_checkpoints);
  for (const char* baseline : {"no-health", "slurm-expedite", "slurm-like", "fifo"}) {
    EXPECT_FALSE(PresetPolicy(baseline)->recovery.direct_checkpoints) << baseline;
  }
  auto bad = ParsePolicyYaml("name: d\nrecovery: {direct_checkpoints: yes}\n", "d.yaml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("d.yaml:2: field 'recovery.direct_checkpoints'"),
            std::string::npos)
      << bad.error().message;
  auto checks = ParsePolicyYaml(
      "name: c\nreadiness: {check_s: 30, verified_for_s: 600, gang_check_s: 20}\n", "c.yaml");
  ASSERT_TRUE(checks.has_value()) << checks.error().message;
  EXPECT_EQ(checks->readiness.check_us, 30 * kUsPerSecond);
  EXPECT_EQ(checks->readiness.verified_for_us, 600 * kUsPerSecond);
  EXPECT_EQ(checks->readiness.gang_check_us, 20 * kUsPerSecond);
  EXPECT_EQ(PresetPolicy("no-health")->readiness.check_us, 0);
  EXPECT_EQ(PresetPolicy("no-health")->readiness.gang_check_us, 0);
  EXPECT_GT(PresetPolicy("headroom")->readiness.check_us, 0);
  auto negative = ParsePolicyYaml("name: c\nreadiness: {check_s: -1}\n", "c.yaml");
  ASSERT_FALSE(negative.has_value());
  EXPECT_NE(negative.error().message.find("c.yaml:2: field 'readiness.check_s'"), std::string::npos)
      << negative.error().message;
  auto typo = ParsePolicyYaml("name: e\nrecovery:\n  expedited: true\n", "e.yaml");
  ASSERT_FALSE(typo.has_value());
  EXPECT_NE(typo.error().message.find("e.yaml:3: field 'recovery.expedited': expected one of the "
                                      "keys expedite"),
            std::string::npos)
      << typo.error().message;
}

TEST(PolicyYamlTest, AutoscalingForecastIsHeadroomsNotTheBaselines) {
  auto forecast = ParsePolicyYaml("name: f\nautoscaling: {forecast: true}\n", "f.yaml");
  ASSERT_TRUE(forecast.has_value()) << forecast.error().message;
  EXPECT_TRUE(forecast->autoscaling.forecast);
  EXPECT_FALSE(ParsePolicyYaml("name: f\n", "f.yaml")->autoscaling.forecast);
  auto typo = ParsePolicyYaml("name: f\nautoscaling: {forecast: yes please}\n", "f.yaml");
  ASSERT_FALSE(typo.has_value());
  EXPECT_NE(typo.error().message.find("f.yaml:2: field 'autoscaling.forecast'"), std::string::npos)
      << typo.error().message;
  auto both =
      ParsePolicyYaml("name: f\nautoscaling: {forecast: true, fixed_at_peak: true}\n", "f.yaml");
  ASSERT_FALSE(both.has_value());
  EXPECT_NE(both.error().message.find("forecast or fixed_at_peak, not both"), std::string::npos)
      << both.error().message;
  EXPECT_TRUE(PresetPolicy("static-partition")->autoscaling.fixed_at_peak);
  EXPECT_FALSE(PresetPolicy("static-partition")->preemption.enabled);
  EXPECT_TRUE(PresetPolicy("headroom")->autoscaling.forecast);
  for (const char* baseline : {"k8s-preemption", "kueue-like", "fifo", "slurm-like", "spread"}) {
    EXPECT_FALSE(PresetPolicy(baseline)->autoscaling.forecast) << baseline;
  }
}

TEST(PolicyYamlTest, ABrokenFileIsOneErrorNamingFileLineAndField) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"", "p.yaml:1: document: expected a policy"},
      {"description: x\n", "p.yaml:1: field 'name': expected a policy name, got nothing"},
      {"name: x\nqueue:\n  order: lifo\n",
       "p.yaml:3: field 'queue.order': expected one of fifo, priority, multifactor, qssf, las, "
       "got \"lifo\""},
      {"name: x\nqueue:\n  las:\n    limits_device_s: [3250, 3250]\n",
       "p.yaml:4: field 'queue.las.limits_device_s[1]': expected device-seconds above the limit "
       "before, got \"3250\""},
      {"name: x\nqueue:\n  las: {limits_device_s: [0]}\n",
       "field 'queue.las.limits_device_s[0]': expected a positive whole number of device-seconds"},
      {"name: x\nqueue:\n  las: {promote_knob: -1}\n",
       "p.yaml:3: field 'queue.las.promote_knob': expected a number, 0 (never) or more"},
      {"name: x\nqueue:\n  las: {limits: [1]}\n", "p.yaml:3: field 'queue.las.limits'"},
      {"name: x\nplacement:\n  scorers:\n    - {name: best_fit}\n    - {name: bset_fit}\n",
       "p.yaml:5: field 'placement.scorers[1].name': expected one of best_fit, least_allocated, "
       "most_allocated, first_fit, keep_whole_nodes, domain_pack, got \"bset_fit\""},
      {"name: x\nplacement:\n  scorers:\n    - {name: best_fit, weight: -1}\n",
       "p.yaml:4: field 'placement.scorers[0].weight': expected a weight, 0 or more"},
      {"name: x\nplacement:\n  scorers: []\n",
       "p.yaml:3: field 'placement.scorers': expected a list of at least one scorer"},
      {"name: x\nplacement:\n  filters: [drained, healthy]\n",
       "field 'placement.filters[1]': expected one of drained, device_selector"},
      {"name: x\nplacement:\n  share: {scorer: fdg}\n",
       "p.yaml:3: field 'placement.share.scorer': expected one of random, dotprod, clustering, "
       "packing, bestfit, fgd, headroom, got \"fdg\""},
      {"name: x\nplacement:\n  share: {tasks: fractional}\n",
       "p.yaml:3: field 'placement.share.scorer': expected a share scorer, got nothing"},
      {"name: x\nplacement:\n  share: {scorer: fgd, tasks: gangs}\n",
       "field 'placement.share.tasks': expected one of fractional, single_task"},
      {"name: x\nplacement:\n  share: {scorer: fgd, typical_coverage: 0}\n",
       "field 'placement.share.typical_coverage': expected a share above 0 and at most 1"},
      {"name: x\nvictim_selector: oldest\n",
       "p.yaml:2: field 'victim_selector': expected one of cheapest_move, lowest_priority, "
       "lowest_priority_newest"},
      {"name: x\nelastic: {shrink: yes}\n",
       "p.yaml:2: field 'elastic.shrink': expected one of true, false, got \"yes\""},
      {"name: x\nelastic: {stretch: true}\n", "p.yaml:2: field 'elastic.stretch'"},
      {"name: x\npreemption: {enabled: true, scope: cohort}\n",
       "p.yaml:2: field 'preemption.scope': expected one of queue, cluster, got \"cohort\""},
      {"name: x\nbackfill: {mode: easy, interval_s: -5}\n",
       "p.yaml:2: field 'backfill.interval_s': expected a whole number of seconds, 0 or more"},
      {"name: x\nbackfill: {mode: skip, reserve_after_s: 60}\n",
       "p.yaml:2: field 'backfill.reserve_after_s': expected 0, or mode easy (only EASY makes "
       "reservations), got \"60\""},
      {"name: x\nqueue:\n  multifactor:\n    shares: {team-a: 0}\n",
       "p.yaml:4: field 'queue.multifactor.shares.team-a': expected a share above 0, got \"0\""},
      {"name: x\nqueue:\n  multifactor: {fairshare_algorithm: fairtree}\n",
       "p.yaml:3: field 'queue.multifactor.fairshare_algorithm': expected one of fair_tree, "
       "classic, got \"fairtree\""},
      {"name: x\nqueues:\n  - {name: a, share: 0}\n",
       "p.yaml:3: field 'queues[0].share': expected a fair-share share above 0, got \"0\""},
      {"name: x\nqueue:\n  qssf: {age_limit_s: 1.5}\n",
       "p.yaml:3: field 'queue.qssf.age_limit_s': expected a whole number of seconds, 0 or more"},
      {"name: x\nbackfill: {mode: eager}\n", "field 'backfill.mode': expected one of none, skip"},
      {"name: x\nmigration:\n  enabled: yes please\n",
       "p.yaml:3: field 'migration.enabled': expected one of true, false"},
      {"name: x\nmigration: {max_moves: 0}\n",
       "field 'migration.max_moves': expected a whole number, 1 or more"},
      {"name: x\npreemption: {enabled: true, max_victims: 0}\n",
       "field 'preemption.max_victims': expected a whole number, 1 or more"},
      {"name: x\npreemption:\n  min_run_s: -5\n",
       "p.yaml:3: field 'preemption.min_run_s': expected a whole number of seconds, 0 or more"},
      {"name: x\npreemption: {shrink: true}\n", "p.yaml:2: field 'preemption.shrink'"},
      {"name: x\nplacment: {}\n", "p.yaml:2: field 'placment'"},
      {"name: x\nqueues:\n  - {name: a, parent: b}\n",
       "p.yaml:3: field 'queues': queue 'a': parent 'b' is not a queue listed before it"},
      {"name: x\nqueue:\n  multifactor:\n    weights: {age: 1, speed: 2}\n",
       "p.yaml:4: field 'queue.multifactor.weights.speed'"},
      {"name: x\nqueue:\n  multifactor: {recalc_period_s: 0}\n",
       "field 'queue.multifactor.recalc_period_s': expected a positive whole number of seconds"},
      {"name: [x\n", "YAML syntax error"},
      {"name: x\n---\nname: y\n", "expected one YAML document, got a second one"},
      {"name: x\nplacement:\n  domains_tried_per_level: 0\n",
       "field 'placement.domains_tried_per_level': expected a number of domains, 1 or more, or "
       "all"},
      {"name: x\nplacement:\n  facility_margin: 0.9\n",
       "p.yaml:3: field 'placement.facility_margin': expected a share of each limit, 0 to 0.5"},
      {"name: x\npower: {caps: yes}\n",
       "p.yaml:2: field 'power.caps': expected one of true, false"},
      {"name: x\npower: {min_start_speed: 0}\n",
       "p.yaml:2: field 'power.min_start_speed': expected a share of uncapped throughput"},
      {"name: x\npower: {static_cap: 0.65}\n",
       "power.static_cap: expected one of 0.9, 0.8, 0.7, 0.6, 0.5 or 0.4 of the TDP"},
      {"name: x\npower: {caps: true}\n",
       "power.caps: expected the 'facility' filter among placement.filters"},
      {std::string(100000, '[') + "\n", "p.yaml:"},
  };
  for (const Case& c : cases) {
    auto policy = ParsePolicyYaml(c.text, "p.yaml");
    ASSERT_FALSE(policy.has_value()) << c.text.substr(0, 80);
    EXPECT_NE(policy.error().message.find(c.expected), std::string::npos)
        << c.text.substr(0, 80) << "\n"
        << policy.error().message;
    EXPECT_EQ(policy.error().message.find('\n'), std::string::npos) << policy.error().message;
  }
}

}  // namespace
}  // namespace headroom::engine
