// Service: an inference deployment as an operator declares it (issue 13): the model it serves
// on how many devices of which kind per replica, how many replicas it may run, how long a
// replica takes to load before it serves, and the latency it promises. Unlike a batch job it
// has no time limit: its replicas run until it scales down.
// Promises: ValidateService names the field and what was expected; a valid service's replica
// fits on its devices (model::EstimateServingCapacity succeeds for it).
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "base/time.h"
#include "model/serving_capacity.h"

namespace headroom::model {

// Per request: time to first token (queueing and prefill), and time between tokens.
struct LatencySlo {
  TimeUs ttft_us = 2 * kUsPerSecond;
  double tbt_s = 0.2;
};

struct Service {
  std::string name;
  std::string tenant = "inference";
  // Above every training priority in the shipped workloads, so that priority-only preemption
  // (Kubernetes' scheduler) lets a replica take a training job's devices.
  int32_t priority = 1000;
  ServedModel model;
  std::string device_model = "H100";
  uint32_t devices_per_replica = 4;
  uint32_t min_replicas = 1;
  uint32_t max_replicas = 64;
  // Model load and warm-up, from start to serving.
  TimeUs startup_us = 60 * kUsPerSecond;
  double target_utilization = 0.7;
  LatencySlo slo;
};

Result<void> ValidateService(const Service& service);

// The capacity of one of its replicas (ValidateService first).
Result<ServingCapacity> ReplicaCapacity(const Service& service);

}  // namespace headroom::model
