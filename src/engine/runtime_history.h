// RuntimeHistory: how long each tenant's jobs ran, by job size, so that the queue can put a
// pending job's expected service (devices × predicted runtime) first without trusting its
// time limit. The prediction is the naive estimator of Helios's quasi-shortest-service-first
// (Hu et al., "Characterization and Prediction of Deep Learning Workloads in Large-Scale GPU
// Datacenters", SC'21, §5; S-Lab-System-Group/HeliosArtifact, estimators/estimator.py): the mean
// runtime of the tenant's earlier jobs of the same size, else of all the tenant's jobs, else of
// every job (the traces we replay carry no job names, the artifact's first key).
// Promise: a pure function of the runs recorded (order does not matter); 0 before any run.
// Threading: single-threaded, owned by the engine.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "base/ids.h"
#include "base/time.h"

namespace headroom::engine {

// Runs of one kind: their count and summed runtime.
struct RuntimeTally {
  uint64_t runs = 0;
  double sum_s = 0;

  void Add(const RuntimeTally& other) {
    runs += other.runs;
    sum_s += other.sum_s;
  }
  bool operator==(const RuntimeTally&) const = default;
};

// Tallies by tenant name, then by job size in milli-devices (carried_state.h).
using RuntimeTallies = std::map<std::string, std::map<uint64_t, RuntimeTally>>;

class RuntimeHistory {
 public:
  // A job of `size_milli` milli-devices of `tenant` ran `runtime_us` (negative counts as 0).
  void Record(TenantId tenant, uint64_t size_milli, TimeUs runtime_us);
  // Mean runtime of the closest kind with a run (see above); 0 when nothing ran yet.
  TimeUs Predict(TenantId tenant, uint64_t size_milli) const;

  // What was recorded, with tenant names from `names` (by id), and back: for carried state.
  RuntimeTallies Tallies(const std::vector<const std::string*>& names) const;
  void Seed(TenantId tenant, uint64_t size_milli, const RuntimeTally& tally);

 private:
  void Add(TenantId tenant, uint64_t size_milli, const RuntimeTally& tally);

  std::vector<std::map<uint64_t, RuntimeTally>> sizes_by_tenant_;  // By tenant id, then size.
  std::vector<RuntimeTally> by_tenant_;
  RuntimeTally all_;
};

}  // namespace headroom::engine
