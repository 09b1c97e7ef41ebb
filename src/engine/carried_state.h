// CarriedState: what an engine has learned that its inputs (cluster, policy, jobs) do not say —
// each tenant's decayed device usage (fair share), how long its jobs ran (runtime_history.h) and
// the migration and changeover budgets spent in the rolling hour. An engine built from another's
// CarriedState orders its queue and budgets its moves as the other would have; the daemon hands it
// across engine rebuilds and records it in its engine log's build records, so that a replay builds
// the same engine.
//
// Promise: Engine(cluster, policy, e.Carried(now)) stepped at `now` orders jobs by the same fair
// share factors as `e` stepped at `now`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "base/time.h"
#include "engine/runtime_history.h"

namespace headroom::engine {

struct CarriedState {
  // When the usage below was taken; 0 when there is none (a first engine).
  TimeUs as_of_us = 0;
  // Decayed milli-device-seconds by tenant name, every tenant the engine has seen.
  std::map<std::string, double> tenant_usage;
  // (time, cost in device-µs) of the moves charged to the migration budget's rolling hour.
  std::vector<std::pair<TimeUs, int64_t>> migration_spent;
  // (time, lost device-µs) of the preemptions charged to the changeover budget's rolling hour.
  std::vector<std::pair<TimeUs, int64_t>> preemption_spent;
  // (time, lost device-µs) of the preemptions by service charged to the turnover budget.
  std::vector<std::pair<TimeUs, int64_t>> turnover_spent;
  // Runs by tenant name and job size (milli-devices), for the runtime predictions.
  RuntimeTallies runtimes;

  bool operator==(const CarriedState&) const = default;
};

}  // namespace headroom::engine
