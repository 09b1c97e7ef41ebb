#include "sim/fill/fill_experiment.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <map>
#include <thread>

#include "base/check.h"
#include "base/go_rand.h"
#include "engine/cluster_state.h"
#include "engine/engine.h"
#include "engine/frag.h"
#include "engine/share_placement.h"
#include "sim/fill/artifact_arithmetic.h"

namespace headroom::sim {
namespace {

struct Pod {
  const model::Job* job;
  engine::PodShape shape;
};

struct Prepared {
  std::vector<Pod> pods;  // Sorted by name.
  engine::ShapeTypes types;
  std::map<std::string, uint32_t> type_by_selector;
  std::vector<engine::TypicalShape> typical;
  uint64_t capacity_milli = 0;
};

Result<Prepared> Prepare(const model::Cluster& cluster, const model::Workload& workload,
                         double typical_coverage) {
  Prepared prepared;
  if (!engine::SharePlaceable(cluster)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the fill experiment places on nodes of at most {} devices, all of one class",
                     engine::kMaxShareGpus);
  }
  prepared.types.accepts.emplace_back(cluster.device_classes().size(), 1);  // Type 0: any.
  std::map<std::string, uint32_t>& type_by_selector = prepared.type_by_selector;
  prepared.pods.reserve(workload.jobs.size());
  for (const model::Job& job : workload.jobs) {
    if (job.task_count != 1) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}: job '{}' has {} tasks; the fill experiment places single-task pods",
                       workload.source, job.name, job.task_count);
    }
    uint32_t type = 0;
    if (!job.task.selector.MatchesAll()) {
      auto [it, inserted] = type_by_selector.try_emplace(
          job.task.selector.text(), static_cast<uint32_t>(prepared.types.accepts.size()));
      if (inserted) {
        prepared.types.accepts.push_back(engine::AcceptedModels(cluster, job.task.selector));
      }
      type = it->second;
    }
    prepared.pods.push_back({&job, engine::PodShapeOf(job.task, type)});
  }
  std::stable_sort(prepared.pods.begin(), prepared.pods.end(),
                   [](const Pod& a, const Pod& b) { return a.job->name < b.job->name; });
  std::vector<engine::PodShape> shapes;
  shapes.reserve(prepared.pods.size());
  for (const Pod& pod : prepared.pods) shapes.push_back(pod.shape);
  prepared.typical = engine::TypicalShapes(shapes, typical_coverage);
  prepared.capacity_milli = uint64_t{cluster.device_count()} * model::kMilliPerDevice;
  return prepared;
}

// The artifact's core.go Simulate, draw for draw from its global math/rand: Seed(seed); one
// Int() (evaluated as an argument of a debug log line); SortClusterPods (pods sorted by name,
// then Shuffle); TunePodsByNodeTotalResource (tune-down removes random pods, tune-up appends
// pods drawn with replacement until the next draw's per-GPU request would pass the target).
// The informers' draws, the node permutation (SharePlacer) and the Random policy's picks follow.
std::vector<uint32_t> ArrivalOrder(const Prepared& prepared, GoRand& rng, double tune) {
  (void)rng.Int();
  const uint32_t n = static_cast<uint32_t>(prepared.pods.size());
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = i;
  rng.Shuffle(n, [&](int64_t i, int64_t j) { std::swap(order[i], order[j]); });

  uint64_t total = 0;
  for (const Pod& pod : prepared.pods) total += pod.shape.total_milli();
  const double target = tune * static_cast<double>(prepared.capacity_milli);
  if (tune <= 0 || n == 0 || static_cast<double>(total) == target) return order;
  if (static_cast<double>(total) > target) {
    while (static_cast<double>(total) > target && !order.empty()) {
      const auto victim = static_cast<size_t>(rng.Intn(static_cast<int64_t>(order.size())));
      total -= prepared.pods[order[victim]].shape.total_milli();
      order.erase(order.begin() + static_cast<ptrdiff_t>(victim));
    }
    return order;
  }
  while (true) {
    const auto drawn = static_cast<uint32_t>(rng.Intn(n));
    const engine::PodShape& shape = prepared.pods[drawn].shape;
    if (static_cast<double>(total + shape.milli_per_gpu) > target) break;
    total += shape.total_milli();
    order.push_back(drawn);
  }
  return order;
}

struct Bin {
  // Per arrival, in order, rounded as merge_alloc_discrete.py rounds each row (Python's round on
  // a float); the bin's mean is then NumPy's (pairwise sum) rounded by NumPy (np.float64).
  std::vector<double> allocated;
  double fragmented = 0;
  double ratio = 0;
  uint64_t ratio_count = 0;
};

// The engine as the artifact's scheduler runs: every pod placed by the share scorer, one at a
// time in arrival order; a pod that does not fit fails and is not tried again (cancelled).
engine::PolicyConfig FillPolicy(engine::SharePolicy policy) {
  engine::PolicyConfig config;
  config.name = fmt::format("fill-{}", engine::SharePolicyName(policy));
  config.queue_order = "fifo";
  config.backfill = engine::BackfillMode::kNone;
  config.share.scorer = engine::SharePolicyName(policy);
  config.share.every_single_task = true;
  auto valid = engine::ValidatePolicy(std::move(config));
  HR_CHECK(valid.has_value());
  return *valid;
}

FillCurve RunPrepared(const model::Cluster& cluster, const Prepared& prepared,
                      engine::SharePolicy policy, uint64_t seed, double tune) {
  GoRand rng(static_cast<int64_t>(seed));
  const std::vector<uint32_t> order = ArrivalOrder(prepared, rng, tune);
  for (int i = 0; i < kInformerDraws; ++i) (void)rng.Int63();
  const engine::ShareSetup setup{prepared.typical, prepared.types, prepared.type_by_selector,
                                 std::move(rng)};
  engine::Engine engine(cluster, FillPolicy(policy), {}, &setup);
  HR_CHECK(engine.share_placement() != nullptr);
  const engine::SharePlacer& placer = engine.share_placement()->placer();
  const engine::ClusterState& state = engine.cluster_state();
  std::vector<double> node_frag(cluster.nodes().size());
  double total_frag = 0;
  for (const model::Node& node : cluster.nodes()) {
    node_frag[node.id.value()] =
        engine::NodeFragMilli(placer.ViewOf(state, node.id), prepared.typical, prepared.types);
    total_frag += node_frag[node.id.value()];
  }

  const double capacity_gpus = static_cast<double>(cluster.device_count());
  std::vector<Bin> bins(kFillMaxArrivedPct + 1);
  uint64_t arrived = 0;
  FillCurve curve;
  auto record = [&] {
    // Python's round() is half-to-even, as is nearbyint in the default rounding mode.
    const double arrived_pct = std::nearbyint(static_cast<double>(arrived) / capacity_gpus / 10);
    if (arrived_pct < 0 || arrived_pct > kFillMaxArrivedPct) return;
    Bin& bin = bins[static_cast<size_t>(arrived_pct)];
    bin.allocated.push_back(
        PyRound(static_cast<double>(state.allocated_milli()) / capacity_gpus / 10, 2));
    bin.fragmented += total_frag;
    const double free_milli =
        static_cast<double>(prepared.capacity_milli - state.allocated_milli());
    if (free_milli > 0) {
      bin.ratio += 100 * total_frag / free_milli;
      ++bin.ratio_count;
    }
  };
  uint32_t next_id = 0;
  std::vector<engine::Event> events;
  for (uint32_t index : order) {
    const Pod& pod = prepared.pods[index];
    arrived += pod.shape.total_milli();
    ++curve.tasks;
    const JobId id(next_id++);
    events.clear();
    events.emplace_back(engine::JobSubmitted{id, *pod.job});
    const engine::Decisions decisions = engine.Step(events, 0);
    if (!decisions.starts.empty()) {
      const NodeId node = decisions.starts.front().tasks.front().node;
      const uint32_t n = node.value();
      total_frag -= node_frag[n];
      node_frag[n] =
          engine::NodeFragMilli(placer.ViewOf(state, node), prepared.typical, prepared.types);
      total_frag += node_frag[n];
    } else {
      ++curve.failed;
      events.clear();
      events.emplace_back(engine::JobCancelled{id});
      engine.Step(events, 0);
    }
    record();
  }

  const double nan = std::numeric_limits<double>::quiet_NaN();
  curve.allocated_pct.assign(bins.size(), nan);
  curve.fragmented_pct.assign(bins.size(), nan);
  curve.fragmentation_ratio_pct.assign(bins.size(), nan);
  for (size_t p = 0; p < bins.size(); ++p) {
    // merge_*_discrete.py: the bin itself, else its neighbours within one percent.
    Bin merged = bins[p];
    if (merged.allocated.empty()) {
      for (size_t q = p == 0 ? 0 : p - 1; q <= std::min(p + 1, bins.size() - 1); ++q) {
        merged.allocated.insert(merged.allocated.end(), bins[q].allocated.begin(),
                                bins[q].allocated.end());
        merged.fragmented += bins[q].fragmented;
        merged.ratio += bins[q].ratio;
        merged.ratio_count += bins[q].ratio_count;
      }
    }
    if (merged.allocated.empty()) continue;
    const double count = static_cast<double>(merged.allocated.size());
    curve.allocated_pct[p] =
        NumpyRound(PairwiseSum(merged.allocated.data(), merged.allocated.size()) / count, 2);
    curve.fragmented_pct[p] = NumpyRound(100 * merged.fragmented / count / 1000 / capacity_gpus, 2);
    if (merged.ratio_count > 0) {
      curve.fragmentation_ratio_pct[p] =
          NumpyRound(merged.ratio / static_cast<double>(merged.ratio_count), 2);
    }
  }
  return curve;
}

}  // namespace

Result<FillCurve> RunFill(const model::Cluster& cluster, const model::Workload& workload,
                          engine::SharePolicy policy, uint64_t seed, double tune,
                          double typical_coverage) {
  auto prepared = Prepare(cluster, workload, typical_coverage);
  if (!prepared) return tl::unexpected(prepared.error());
  return RunPrepared(cluster, *prepared, policy, seed, tune);
}

Result<FillReport> RunFillExperiment(const model::Cluster& cluster, const model::Workload& workload,
                                     const FillOptions& options) {
  if (!(options.tune > 0)) {
    return MakeError(ErrorCode::kInvalidArgument, "--tune: expected a positive ratio, got {}",
                     options.tune);
  }
  auto prepared = Prepare(cluster, workload, options.typical_coverage);
  if (!prepared) return tl::unexpected(prepared.error());

  FillReport report;
  report.workload_source = workload.source;
  report.capacity_gpus = cluster.device_count();
  report.workload_tasks = workload.jobs.size();
  report.tune = options.tune;
  for (engine::SharePolicy policy : options.policies) {
    FillPolicyResult result{policy, options.seeds, {}};
    result.runs.resize(options.seeds.size());
    report.policies.push_back(std::move(result));
  }

  const size_t seeds = options.seeds.size();
  const size_t jobs = report.policies.size() * seeds;
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t j = next++; j < jobs; j = next++) {
      FillPolicyResult& result = report.policies[j / seeds];
      result.runs[j % seeds] =
          RunPrepared(cluster, *prepared, result.policy, options.seeds[j % seeds], options.tune);
    }
  };
  const size_t threads = std::max<size_t>(1, std::min<size_t>(options.threads, jobs));
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  return report;
}

}  // namespace headroom::sim
