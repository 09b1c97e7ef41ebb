// The fidelity gate of the fill experiment: our medians over seeds 42–51 against the FGD
// artifact's own per-seed results (../shared/reference/fgd-atc23/analysis_allo_discrete.csv),
// for every baseline at 95, 100, 110 and 130% arrived workload, within 0.3 percentage points
// (0.5 for Random); and headroom's goal against FGD's published medians. CI runs the default
// trace; every variant:
//   HEADROOM_FILL_VARIANTS=all ./build/bin/headroom_tests --gtest_filter='FillFidelity*'
// (or a comma-separated list of variants, e.g. cpu050,multigpu20).
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>

#include "base/csv.h"
#include "model/cluster_source.h"
#include "sim/fill/fill_experiment.h"
#include "sim/report/fill_report.h"
#include "sim/traces/workload_loader.h"
#include "testing/traces.h"

namespace headroom::sim {
namespace {

constexpr const char* kAllVariants[] = {
    "default",    "cpu050",     "cpu100",     "cpu200",     "cpu250",    "gpushare100",
    "gpushare40", "gpushare60", "gpushare80", "gpuspec10",  "gpuspec20", "gpuspec25",
    "gpuspec33",  "multigpu20", "multigpu30", "multigpu40", "multigpu50"};

std::vector<std::string> Variants() {
  const char* env = std::getenv("HEADROOM_FILL_VARIANTS");
  if (env == nullptr || *env == '\0') return {"default"};
  if (std::string(env) == "all") return {std::begin(kAllVariants), std::end(kAllVariants)};
  std::vector<std::string> variants;
  std::stringstream list(env);
  for (std::string item; std::getline(list, item, ',');) variants.push_back(item);
  return variants;
}

// The artifact's per-seed allocation curves: (workload, policy dir, seed) → allocated GPU % at
// 0..130% arrived (NaN where the artifact has no value).
class Reference {
 public:
  static Result<Reference> Load(const std::string& path) {
    auto table = CsvTable::ReadFile(path);
    if (!table) return tl::unexpected(table.error());
    Reference reference;
    auto workload = table->Column("workload");
    auto policy = table->Column("sc_policy");
    auto seed = table->Column("seed");
    if (!workload || !policy || !seed) {
      return tl::unexpected((!workload ? workload : !policy ? policy : seed).error());
    }
    for (size_t row = 0; row < table->row_count(); ++row) {
      auto seed_value = table->Int(row, *seed);
      if (!seed_value) return tl::unexpected(seed_value.error());
      std::vector<double>& curve =
          reference.curves_[{std::string(table->Field(row, *workload)),
                             std::string(table->Field(row, *policy)), *seed_value}];
      curve.assign(kFillMaxArrivedPct + 1, std::nan(""));
      for (int pct = 0; pct <= kFillMaxArrivedPct; ++pct) {
        auto column = table->Column(std::to_string(pct));
        if (!column) return tl::unexpected(column.error());
        const std::string_view cell = table->Field(row, *column);
        if (!cell.empty()) curve[pct] = std::stod(std::string(cell));
      }
    }
    return reference;
  }

  const std::vector<double>* Curve(const std::string& workload, std::string_view policy,
                                   int64_t seed) const {
    auto it = curves_.find({workload, std::string(policy), seed});
    return it == curves_.end() ? nullptr : &it->second;
  }

  // The median over seeds 42–51 of the unallocated GPU %.
  std::optional<double> Median(const std::string& workload, std::string_view policy,
                               int pct) const {
    std::vector<double> v;
    for (int64_t seed = 42; seed <= 51; ++seed) {
      const std::vector<double>* curve = Curve(workload, policy, seed);
      if (curve == nullptr || std::isnan((*curve)[pct])) return std::nullopt;
      v.push_back(100 - (*curve)[pct]);
    }
    std::sort(v.begin(), v.end());
    return (v[4] + v[5]) / 2;
  }

 private:
  std::map<std::tuple<std::string, std::string, int64_t>, std::vector<double>> curves_;
};

TEST(FillFidelityTest, BaselinesMatchTheArtifactAndHeadroomBeatsFgd) {
#ifdef HEADROOM_SANITIZED
  GTEST_SKIP() << "60+ full fills are too slow under sanitizers; the plain build runs this";
#endif
  const std::string nodes =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv");
  const std::string reference_csv = testing::ReferencePath("fgd-atc23/analysis_allo_discrete.csv");
  HEADROOM_SKIP_IF_MISSING(nodes);
  HEADROOM_SKIP_IF_MISSING(reference_csv);
  auto reference = Reference::Load(reference_csv);
  ASSERT_TRUE(reference) << reference.error().message;
  auto cluster = model::LoadCluster("openb:" + nodes);
  ASSERT_TRUE(cluster) << cluster.error().message;

  for (const std::string& variant : Variants()) {
    const std::string pods =
        testing::TracePath("alibaba-gpu-v2023-openb/openb_pod_list_" + variant + ".csv");
    if (!testing::TraceExists(pods)) {
      ADD_FAILURE() << "missing " << pods;
      continue;
    }
    WorkloadOptions workload_options;
    workload_options.ignore_times = true;
    auto loaded = LoadWorkload("openb:" + pods, workload_options);
    ASSERT_TRUE(loaded) << loaded.error().message;

    FillOptions options;
    options.seeds = {42, 43, 44, 45, 46, 47, 48, 49, 50, 51};
    options.policies = {engine::SharePolicy::kRandom,     engine::SharePolicy::kDotProd,
                        engine::SharePolicy::kClustering, engine::SharePolicy::kPacking,
                        engine::SharePolicy::kBestFit,    engine::SharePolicy::kFgd,
                        engine::SharePolicy::kHeadroom};
    options.threads = std::max(1u, std::thread::hardware_concurrency());
    auto report = RunFillExperiment(*cluster, loaded->workload, options);
    ASSERT_TRUE(report) << report.error().message;

    const std::string workload = "openb_pod_list_" + variant;
    for (const FillPolicyResult& result : report->policies) {
      const std::string_view artifact = engine::SharePolicyArtifactName(result.policy);
      if (artifact.empty()) continue;
      for (int pct : {95, 100, 110, 130}) {
        // The gate: 0.3 pp, 0.5 for Random.
        const double tolerance = result.policy == engine::SharePolicy::kRandom ? 0.5 : 0.3;
        const auto published = reference->Median(workload, artifact, pct);
        ASSERT_TRUE(published) << workload << " " << artifact << " " << pct;
        EXPECT_NEAR(UnallocatedAt(result, pct).median, *published, tolerance)
            << variant << " " << engine::SharePolicyName(result.policy) << " at " << pct
            << "% arrived";
      }
    }
    // Seed for seed, the runs are the artifact's (Go's math/rand, the same draws, the same
    // arithmetic): every deterministic baseline identical at every point (docs/fill.md,
    // "Fidelity"). Random's placements follow the artifact's parallel filter order, so only the
    // arrivals are shared: its curve is identical until pods begin to fail (at 27% arrived at
    // the earliest in the artifact's runs).
    for (const FillPolicyResult& result : report->policies) {
      const std::string_view artifact = engine::SharePolicyArtifactName(result.policy);
      if (artifact.empty()) continue;
      const int identical_to =
          result.policy == engine::SharePolicy::kRandom ? 25 : kFillMaxArrivedPct;
      for (size_t i = 0; i < result.runs.size(); ++i) {
        const std::vector<double>* theirs =
            reference->Curve(workload, artifact, static_cast<int64_t>(result.seeds[i]));
        ASSERT_NE(theirs, nullptr);
        for (int pct = 0; pct <= identical_to; ++pct) {
          if (std::isnan((*theirs)[pct])) continue;
          ASSERT_DOUBLE_EQ(result.runs[i].allocated_pct[pct], (*theirs)[pct])
              << variant << " " << artifact << " seed " << result.seeds[i] << " at " << pct;
        }
      }
    }
    const double headroom = UnallocatedAt(report->policies.back(), 100).median;
    const auto fgd = reference->Median(workload, "06-FGD", 100);
    ASSERT_TRUE(fgd);
    EXPECT_LE(headroom, *fgd + 0.1) << variant << ": headroom vs FGD's published median";
    if (variant == "default") {
      EXPECT_LE(headroom, 4.3);
      // FGD's published fragmentation ratio at 90% arrived is 49.9%; the goal is 45%.
      EXPECT_LE(FragmentationRatioAt(report->policies.back(), 90).median, 45.0);
    }
  }
}

// CI runs the default trace only; this holds two runs of a GPU-model variant to the artifact's,
// point for point: FGD on gpuspec33 with seed 51, which parts from it at 13% arrived unless
// shapes whose gpu_spec repeats a model stay apart, and with seed 48, at 35% unless the typical
// weights and the fragmentation sums are computed in the artifact's order too.
TEST(FillFidelityTest, AWholeRunReplaysTheArtifactPointForPoint) {
  const std::string nodes =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_node_list_gpu_node.csv");
  const std::string pods =
      testing::TracePath("alibaba-gpu-v2023-openb/openb_pod_list_gpuspec33.csv");
  const std::string reference_csv = testing::ReferencePath("fgd-atc23/analysis_allo_discrete.csv");
  HEADROOM_SKIP_IF_MISSING(nodes);
  HEADROOM_SKIP_IF_MISSING(pods);
  HEADROOM_SKIP_IF_MISSING(reference_csv);
  auto reference = Reference::Load(reference_csv);
  ASSERT_TRUE(reference) << reference.error().message;
  auto cluster = model::LoadCluster("openb:" + nodes);
  ASSERT_TRUE(cluster) << cluster.error().message;
  WorkloadOptions workload_options;
  workload_options.ignore_times = true;
  auto loaded = LoadWorkload("openb:" + pods, workload_options);
  ASSERT_TRUE(loaded) << loaded.error().message;

  for (const uint64_t seed : {48, 51}) {
    auto ours = RunFill(*cluster, loaded->workload, engine::SharePolicy::kFgd, seed, 1.3, 0.95);
    ASSERT_TRUE(ours) << ours.error().message;
    const std::vector<double>* theirs =
        reference->Curve("openb_pod_list_gpuspec33", "06-FGD", static_cast<int64_t>(seed));
    ASSERT_NE(theirs, nullptr);
    for (int pct = 0; pct <= kFillMaxArrivedPct; ++pct) {
      EXPECT_DOUBLE_EQ(ours->allocated_pct[pct], (*theirs)[pct])
          << "seed " << seed << " at " << pct << "% arrived";
    }
  }
}

}  // namespace
}  // namespace headroom::sim
