// Tests for OfferedLoad and ScaleToLoad: the formulas on hand-built workloads, and the property
// that scaling to a load gives that load.
#include "sim/traces/load_scaling.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

namespace headroom::sim {
namespace {

model::Job MakeJob(double submit_s, double runtime_s, uint32_t tasks, uint32_t devices,
                   uint32_t milli = model::kMilliPerDevice) {
  model::Job job;
  job.submit_time_us = SecondsToUs(submit_s);
  job.runtime_us = SecondsToUs(runtime_s);
  job.runtime_estimate_us = job.runtime_us;
  job.task_count = tasks;
  job.task.devices = devices;
  job.task.milli_per_device = milli;
  return job;
}

model::Workload MakeWorkload(std::vector<model::Job> jobs) {
  model::Workload workload;
  workload.jobs = std::move(jobs);
  return workload;
}

TEST(LoadScalingTest, OfferedLoadIsDeviceTimeOverCapacityTimesSpan) {
  // Demand: 1 x 100 s + 2 x 4 devices x 50 s + 0.5 device x 200 s = 100 + 400 + 100 = 600
  // device-seconds. Span: 100 s. Capacity 10 devices: 600 / (10 x 100) = 0.6.
  const model::Workload w = MakeWorkload({MakeJob(50, 100, 1, 1), MakeJob(100, 50, 2, 4),
                                          MakeJob(150, 200, 1, 1, 500), MakeJob(120, 80, 1, 0)});
  EXPECT_DOUBLE_EQ(OfferedLoad(w, 10'000), 0.6);
  EXPECT_DOUBLE_EQ(OfferedLoad(w, 6'000), 1.0);
}

TEST(LoadScalingTest, SimultaneousArrivalsUseTheLastCompletion) {
  // All at t = 10: span = max(submit + runtime) - first = 100 s; demand 8 x 100 + 2 x 50.
  const model::Workload w = MakeWorkload({MakeJob(10, 100, 1, 8), MakeJob(10, 50, 1, 2)});
  EXPECT_DOUBLE_EQ(OfferedLoad(w, 8'000), 900.0 / 800.0);
}

TEST(LoadScalingTest, EmptyAndDemandlessWorkloadsHaveNoLoad) {
  EXPECT_EQ(OfferedLoad(model::Workload{}, 1000), 0);
  EXPECT_EQ(OfferedLoad(MakeWorkload({MakeJob(0, 10, 1, 0), MakeJob(5, 10, 1, 0)}), 1000), 0);
}

TEST(LoadScalingTest, ScaleToLoadStretchesArrivalsFromTheFirst) {
  model::Workload w = MakeWorkload({MakeJob(1000, 100, 1, 1), MakeJob(1100, 50, 2, 4),
                                    MakeJob(1150, 200, 1, 1, 500), MakeJob(1200, 80, 1, 0)});
  // Load on 10 devices: 600 / (10 x 200) = 0.3; to reach 0.15 the span doubles.
  ASSERT_DOUBLE_EQ(OfferedLoad(w, 10'000), 0.3);
  EXPECT_DOUBLE_EQ(ScaleToLoad(w, 0.15, 10'000), 2.0);
  EXPECT_EQ(w.jobs[0].submit_time_us, SecondsToUs(1000));
  EXPECT_EQ(w.jobs[1].submit_time_us, SecondsToUs(1200));
  EXPECT_EQ(w.jobs[2].submit_time_us, SecondsToUs(1300));
  EXPECT_EQ(w.jobs[3].submit_time_us, SecondsToUs(1400));
  EXPECT_EQ(w.jobs[1].runtime_us, SecondsToUs(50));  // Runtimes untouched.
  EXPECT_DOUBLE_EQ(OfferedLoad(w, 10'000), 0.15);
  // And back up: the span halves.
  EXPECT_DOUBLE_EQ(ScaleToLoad(w, 0.3, 10'000), 0.5);
  EXPECT_EQ(w.jobs[3].submit_time_us, SecondsToUs(1200));
}

TEST(LoadScalingTest, ScaleToLoadLeavesSimultaneousArrivalsAlone) {
  model::Workload w = MakeWorkload({MakeJob(10, 100, 1, 8), MakeJob(10, 50, 1, 2)});
  EXPECT_EQ(ScaleToLoad(w, 0.5, 8'000), 1.0);
  EXPECT_EQ(w.jobs[0].submit_time_us, SecondsToUs(10));
  model::Workload empty;
  EXPECT_EQ(ScaleToLoad(empty, 0.5, 8'000), 1.0);
}

RC_GTEST_PROP(LoadScalingTest, ScaleToLoadReachesTheTarget, ()) {
  const auto count = *rc::gen::inRange<size_t>(2, 40);
  std::vector<model::Job> jobs;
  for (size_t i = 0; i < count; ++i) {
    model::Job job;
    job.submit_time_us = *rc::gen::inRange<TimeUs>(0, TimeUs{1'000'000} * kUsPerSecond);
    job.runtime_us = *rc::gen::inRange<TimeUs>(1, TimeUs{100'000} * kUsPerSecond);
    job.task_count = *rc::gen::inRange<uint32_t>(1, 9);
    job.task.devices = *rc::gen::inRange<uint32_t>(0, 9);
    job.task.milli_per_device = *rc::gen::inRange<uint32_t>(1, 1001);
    jobs.push_back(job);
  }
  model::Workload w = MakeWorkload(std::move(jobs));
  const uint64_t capacity_milli = *rc::gen::inRange<uint64_t>(1, 100'000'000);
  const double target = *rc::gen::inRange<int>(1, 5000) / 1000.0;
  const double before = OfferedLoad(w, capacity_milli);
  TimeUs first = w.jobs[0].submit_time_us, last = first;
  for (const model::Job& job : w.jobs) {
    first = std::min(first, job.submit_time_us);
    last = std::max(last, job.submit_time_us);
  }
  RC_PRE(before > 0);
  RC_PRE(last - first >= 1000);  // Room for microsecond rounding to stay negligible.
  const double factor = ScaleToLoad(w, target, capacity_milli);
  RC_PRE(static_cast<double>(last - first) * factor >= 1e6);
  const double after = OfferedLoad(w, capacity_milli);
  RC_ASSERT(std::abs(after - target) <= 1e-4 * target);
  RC_ASSERT(std::abs(factor - before / target) <= 1e-9 * factor);
}

}  // namespace
}  // namespace headroom::sim
