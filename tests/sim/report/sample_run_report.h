// A small hand-built RunReport shared by the report writer tests: two policies with known
// metrics, short time series and wait lists, so expected output can be written by hand.
#pragma once

#include <string>
#include <utility>

#include "sim/run_result.h"

namespace headroom::sim::testing {

inline PolicyRun SamplePolicy(std::string name, std::string description, double scale) {
  PolicyRun run;
  run.name = std::move(name);
  run.description = std::move(description);
  PolicyMetrics& m = run.metrics;
  m.allocation_rate = 0.75 * scale;
  m.wait_s = {.mean = 125 * scale, .p50 = 30, .p95 = 900, .p99 = 7200, .max = 9000, .count = 4};
  m.jct_s = {.mean = 3600, .p50 = 1800, .p95 = 14400, .p99 = 36000, .max = 40000, .count = 4};
  m.bounded_slowdown = {.mean = 1.5, .p50 = 1, .p95 = 4, .p99 = 12.25, .max = 20, .count = 4};
  m.fragmentation_rate = 0.125;
  m.jobs_completed = 118;
  m.jobs_unplaced = 2;
  m.makespan_s = 90000;
  m.mean_slowdown_from_placement = 1.0625;
  m.engine_steps = 4096;
  m.events = 12345;
  for (int i = 0; i < 5; ++i) {
    run.series.push_back(SeriesPoint{.time_s = 3600.0 * i,
                                     .allocation = 0.25 * i * scale,
                                     .fragmentation = 0.0625 * i,
                                     .pending_jobs = static_cast<uint64_t>(10 - 2 * i),
                                     .running_jobs = static_cast<uint64_t>(i)});
  }
  run.sorted_wait_s = {0, 0, 5, 30, 600, 9000};
  return run;
}

inline RunReport SampleRunReport() {
  RunReport report;
  report.cluster.source = "configs/tiny.yaml";
  report.cluster.devices = 64;
  report.cluster.nodes = 8;
  report.cluster.levels = {"rack", "node"};
  report.cluster.devices_by_model = {{"A100", 32}, {"H100", 32}};
  report.workload.format = "philly";
  report.workload.source = "traces/philly_slice.csv";
  report.workload.jobs = 120;
  report.workload.offered_load = 0.8;
  report.workload.load_scale = 1.5;
  report.workload.arrival_span_s = 86400;
  report.workload.skipped_rows = 3;
  report.workload.skipped_reasons = {{"bad duration", 2}, {"zero gpus", 1}};
  report.seed = 42;
  report.policies.push_back(SamplePolicy("fifo", "FIFO order, no backfill, first fit", 1));
  report.policies.push_back(SamplePolicy("fgd", "FIFO order, EASY backfill, FGD scorer", 0.5));
  return report;
}

}  // namespace headroom::sim::testing
