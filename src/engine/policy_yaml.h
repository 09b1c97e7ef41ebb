// Policy files: a scheduling policy as YAML, naming its pieces (policy roles, each looked up in
// its registry) and their parameters, in the spirit of a KubeSchedulerConfiguration profile.
// The built-in presets are such files (configs/policies/, embedded at build time); an operator
// writes their own the same way (docs/engine.md, "Policy files"). Every key is optional except
// `name`; an absent one keeps PolicyConfig's default.
//
//   name: my-policy
//   description: multifactor order, EASY backfill, topology best fit
//   queue:
//     order: multifactor              # fifo | priority | multifactor
//     main_depth: 0                   # jobs the main pass examines per step; 0 = all
//     multifactor:
//       weights: {age: 1000, fairshare: 100000, job_size: 1000, qos: 10000}
//       max_age_s: 604800             # PriorityMaxAge
//       decay_half_life_s: 604800     # PriorityDecayHalfLife
//       recalc_period_s: 60           # PriorityCalcPeriod
//       fairshare_algorithm: classic  # or fair_tree (Slurm's two)
//   backfill: {mode: easy, interval_s: 0, max_jobs: 0}    # mode: none | skip | easy
//   placement:
//     gang: topology_block            # per_task | topology_block
//     domain_order: best_fit          # first_fit | best_fit | worst_fit
//     domains_tried_per_level: 16     # or all
//     filters: [drained, device_selector]
//     scorers:
//       - {name: best_fit, weight: 1}
//   victim_selector: cheapest_move
//   migration:
//     enabled: true
//     checkpoint_s: 60
//     restart_s: 600
//     budget_device_s_per_hour: 28800
//     horizon_s: 3600
//     max_placements: 64
//     max_moves: 4
//   queues:                           # queues with quotas, as quota_yaml.h describes
//     - {name: research, guaranteed: {devices: 512}, borrowing_limit: {devices: 128}}
//
// Errors are one line, "file:line: field 'placement.scorers[1].name': expected one of best_fit,
// ..., got \"bset_fit\"", and the parser never throws. Threading: pure function; reads no file
// (the caller passes the text and the name to report it under).
#pragma once

#include <string_view>

#include "base/result.h"
#include "engine/policy_config.h"

namespace headroom::engine {

// Parses and validates (ValidatePolicy) one policy document; `source` names it in errors.
Result<PolicyConfig> ParsePolicyYaml(std::string_view text, std::string_view source);

}  // namespace headroom::engine
