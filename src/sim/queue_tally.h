// QueueTally: what a simulated run with queues (engine/quota.h) measures per queue — waits,
// JCTs and preemptions of each leaf's jobs, and every queue's usage on the series' grid — for
// report.json's "queues" and report.html's usage plots (PolicyRun::queues). Empty, and free,
// without queues. Threading: one per run.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/engine.h"
#include "engine/quota.h"
#include "model/job.h"
#include "sim/run_result.h"

namespace headroom::sim {

class QueueTally {
 public:
  QueueTally(const engine::QuotaTree& tree, const std::vector<model::Job>& jobs);

  bool empty() const { return leaf_of_.empty(); }
  void Started(uint32_t job, double wait_s);
  void Completed(uint32_t job, double jct_s);
  void Preempted(uint32_t job, double lost_device_us);
  // Devices each queue (root excluded, in the tree's order) holds now.
  std::vector<double> Usage(const engine::QuotaTree& tree) const;
  // Keeps each queue's peak use of each device model with quotas (on the series' grid).
  void SampleModels(const engine::QuotaTree& tree);
  // Each queue's decayed usage over its parent's (U at its level), from the engine's levels
  // (Engine::QueueFairShares); empty without them.
  static std::vector<double> UsageShares(const std::vector<engine::Engine::QueueFairShare>& levels);
  // Per queue, with the usage samples of `series` (queue_usage_devices) and the final levels.
  std::vector<QueueRun> Finish(const engine::QuotaTree& tree,
                               const std::vector<SeriesPoint>& series,
                               const std::vector<engine::Engine::QueueFairShare>& levels,
                               double cluster_devices) const;

 private:
  struct Tally {
    std::vector<double> waits;
    std::vector<double> jcts;
    uint64_t preemptions = 0;
    double lost_device_us = 0;
  };
  std::vector<uint32_t> leaf_of_;            // By job; empty without queues.
  std::vector<Tally> tallies_;               // By queue.
  std::vector<engine::QuotaAmounts> peaks_;  // By queue: peak usage sampled, per slot.
};

}  // namespace headroom::sim
