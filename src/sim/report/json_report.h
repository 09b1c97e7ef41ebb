// WriteJsonReport: the machine-readable result of a simulation run, a contract other tools
// (plots, CI quality bands, the dashboard) read. Shape, with keys in exactly this order:
//
//   {"cluster": {"devices", "nodes", "source", "levels": [..], "devices_by_model": {model: n}},
//    "workload": {"format", "source", "jobs", "offered_load", "load_scale", "arrival_span_s",
//                 "elastic_jobs", "skipped_rows", "skipped_reasons": {reason: n}},
//    ["services", "failures": with those options; "incidents": [as given], with --incident]
//    "seed",
//    "policies": [{"name", "description",
//                  "metrics": {"allocation_rate",
//                              "wait_s": {"mean", "p50", "p95", "p99", "max"},
//                              "jct_s": {"mean", "p50", "p95", "p99", "max"},
//                              "bounded_slowdown": {"mean", "p50", "p95", "p99"},
//                              "fragmentation_rate", "jobs_completed", "jobs_unplaced",
//                              "makespan_s", "mean_slowdown_from_placement",
//                              "engine_steps", "events", "multi_node_jobs",
//                              "multi_node_within_one_block",
//                              "multi_node_within_one_block_by_level": [by level, root first],
//                              "migrations", "migration_cost_device_hours", "preemptions",
//                              "preemption_lost_device_hours", "elastic_resizes", "power_caps",
//                              "goodput_device_hours"},
//                  "facility": {"throttled_device_h", "energy_kwh", "cooling_energy_kwh",
//                               "useful_device_h_per_kwh", "peak_power_kw", "power_violations",
//                               "power_violation_kw_s", "max_inlet_c",
//                               "inlet_over_limit_zone_s", "devices_per_feed_kw"},
//                  "series": {"time_s": [..], "allocation": [..], "fragmentation": [..],
//                             "pending_jobs": [..],
//                             "largest_free_block": {level name: [whole free devices]},
//                             "power_kw": {"all": [..], top power domain: [..]}}}]}
//
// Promises:
//   1. Byte-identical output for identical input: 2-space indentation, fixed key order,
//      a trailing newline, no clock or locale.
//   2. Every double is rounded to 6 significant digits, except that values of 1e6 and more
//      are rounded to an integer (so times of a month stay exact to the second). Rounding
//      keeps floating-point noise out of the bytes; -0 is written as 0.
//   3. NaN and ±infinity are written as null — never as a number, never as invalid JSON.
//      Readers must accept null wherever the shape has a double.
//   4. Counts (devices, jobs, steps, pending_jobs, …) are JSON integers.
//   5. Object keys built from data (models, skip reasons) keep the report's order; a repeated
//      key keeps its first position and its last value. Invalid UTF-8 in strings is replaced
//      with U+FFFD rather than failing.
// Threading: a stateless function, safe to call from any thread.
#pragma once

#include <string>

#include "sim/run_result.h"

namespace headroom::sim {

std::string WriteJsonReport(const RunReport& report);

// The rounding of promise 2, exposed for tests: the double the writer prints for `value`.
// Returns NaN for NaN and infinite input (printed as null).
double RoundForReport(double value);

}  // namespace headroom::sim
