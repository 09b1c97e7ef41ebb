#include "sim/queue_tally.h"

#include <algorithm>

#include "sim/stats.h"

namespace headroom::sim {

QueueTally::QueueTally(const engine::QuotaTree& tree, const std::vector<model::Job>& jobs) {
  if (tree.empty()) return;
  leaf_of_.reserve(jobs.size());
  for (const model::Job& job : jobs) leaf_of_.push_back(tree.QueueOf(job.tenant));
  tallies_.resize(tree.size());
}

void QueueTally::Started(uint32_t job, double wait_s) {
  if (!empty()) tallies_[leaf_of_[job]].waits.push_back(wait_s);
}

void QueueTally::Completed(uint32_t job, double jct_s) {
  if (!empty()) tallies_[leaf_of_[job]].jcts.push_back(jct_s);
}

void QueueTally::Preempted(uint32_t job, double lost_device_us) {
  if (empty()) return;
  Tally& tally = tallies_[leaf_of_[job]];
  ++tally.preemptions;
  tally.lost_device_us += lost_device_us;
}

std::vector<double> QueueTally::Usage(const engine::QuotaTree& tree) const {
  std::vector<double> usage;
  if (empty()) return usage;
  for (uint32_t q = 1; q < tree.size(); ++q) {
    usage.push_back(static_cast<double>(tree.usage(q)[0]) / model::kMilliPerDevice);
  }
  return usage;
}

void QueueTally::SampleModels(const engine::QuotaTree& tree) {
  if (empty() || tree.device_models().empty()) return;
  peaks_.resize(tree.size());
  for (uint32_t q = 1; q < tree.size(); ++q) {
    for (size_t k = engine::kFixedQuotaResources; k < engine::kQuotaResources; ++k) {
      peaks_[q][k] = std::max(peaks_[q][k], tree.usage(q)[k]);
    }
  }
}

std::vector<double> QueueTally::UsageShares(
    const std::vector<engine::Engine::QueueFairShare>& levels) {
  std::vector<double> shares;
  for (const engine::Engine::QueueFairShare& level : levels) shares.push_back(level.usage_share);
  return shares;
}

std::vector<QueueRun> QueueTally::Finish(const engine::QuotaTree& tree,
                                         const std::vector<SeriesPoint>& series,
                                         const std::vector<engine::Engine::QueueFairShare>& levels,
                                         double cluster_devices) const {
  std::vector<QueueRun> runs;
  if (empty()) return runs;
  // The product of S down each queue's path: its share of the cluster when every queue is busy.
  std::vector<double> path_share(tree.size(), 1.0);
  const bool fair_tree = levels.size() + 1 == tree.size();
  for (uint32_t q = 1; q < tree.size() && fair_tree; ++q) {
    path_share[q] = path_share[tree.parent(q)] * levels[q - 1].share;
  }
  for (uint32_t q = 1; q < tree.size(); ++q) {
    const Tally& tally = tallies_[q];
    QueueRun run;
    run.name = tree.name(q);
    run.parent = tree.parent(q) == engine::QuotaTree::kRoot ? "" : tree.name(tree.parent(q));
    run.guaranteed_devices = static_cast<double>(tree.guaranteed(q)[0]) / model::kMilliPerDevice;
    const int64_t borrowing = tree.borrowing_limit(q)[0];
    if (borrowing != engine::kNoQuotaLimit) {
      run.limit_devices =
          static_cast<double>(tree.guaranteed(q)[0] + borrowing) / model::kMilliPerDevice;
    }
    run.jobs_started = tally.waits.size();
    run.jobs_completed = tally.jcts.size();
    run.wait_s = Summarize(tally.waits);
    run.jct_s = Summarize(tally.jcts);
    run.preemptions = tally.preemptions;
    run.preemption_lost_device_hours = tally.lost_device_us / (3600.0 * kUsPerSecond);
    double sum = 0;
    for (const SeriesPoint& point : series) {
      const double usage =
          q - 1 < point.queue_usage_devices.size() ? point.queue_usage_devices[q - 1] : 0;
      sum += usage;
      run.peak_usage_devices = std::max(run.peak_usage_devices, usage);
    }
    run.mean_usage_devices = series.empty() ? 0 : sum / static_cast<double>(series.size());
    for (size_t m = 0; m < tree.device_models().size(); ++m) {
      const size_t k = engine::kFixedQuotaResources + m;
      QueueModelRun model{.model = tree.device_models()[m],
                          .guaranteed_devices =
                              static_cast<double>(tree.guaranteed(q)[k]) / model::kMilliPerDevice};
      if (tree.borrowing_limit(q)[k] != engine::kNoQuotaLimit) {
        model.limit_devices =
            static_cast<double>(tree.guaranteed(q)[k] + tree.borrowing_limit(q)[k]) /
            model::kMilliPerDevice;
      }
      if (q < peaks_.size()) {
        model.peak_usage_devices = static_cast<double>(peaks_[q][k]) / model::kMilliPerDevice;
      }
      run.device_models.push_back(std::move(model));
    }
    if (fair_tree) {
      run.fair_share = levels[q - 1].share;
      run.fair_share_devices = path_share[q] * cluster_devices;
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

}  // namespace headroom::sim
