// MakeElastic: which jobs it declares elastic, with what range, and that a seed fixes the draw.
#include "sim/traces/elastic_jobs.h"

#include <gtest/gtest.h>

namespace headroom::sim {
namespace {

model::Workload Gangs(uint32_t count) {
  model::Workload workload;
  for (uint32_t i = 0; i < count; ++i) {
    model::Job job;
    job.task_count = 1 + i % 4;  // 1, 2, 3, 4, 1, ...
    job.task.devices = 8;
    workload.jobs.push_back(job);
  }
  return workload;
}

TEST(MakeElastic, AllMultiTaskJobsAtShareOneFromOneTaskUp) {
  model::Workload workload = Gangs(40);
  EXPECT_EQ(MakeElastic(workload, 1.0, 7), 30u);
  for (const model::Job& job : workload.jobs) {
    if (job.task_count == 1) {
      EXPECT_FALSE(job.elastic());
      EXPECT_EQ(job.min_task_count, 0u);
    } else {
      EXPECT_TRUE(job.elastic());
      EXPECT_EQ(job.min_task_count, 1u);
      EXPECT_EQ(job.task_count_step, 1u);
    }
  }
  // Declared once: a second pass finds nothing left to declare.
  EXPECT_EQ(MakeElastic(workload, 1.0, 7), 0u);
}

TEST(MakeElastic, NoneAtShareZero) {
  model::Workload workload = Gangs(40);
  EXPECT_EQ(MakeElastic(workload, 0.0, 7), 0u);
  for (const model::Job& job : workload.jobs) EXPECT_FALSE(job.elastic());
}

TEST(MakeElastic, ASeedFixesWhichJobsAndTheShareIsRoughlyKept) {
  model::Workload first = Gangs(4000);
  model::Workload again = Gangs(4000);
  model::Workload other = Gangs(4000);
  const uint64_t declared = MakeElastic(first, 0.5, 7);
  EXPECT_EQ(MakeElastic(again, 0.5, 7), declared);
  MakeElastic(other, 0.5, 8);
  bool same = true;
  bool differs = false;
  for (size_t i = 0; i < first.jobs.size(); ++i) {
    same = same && first.jobs[i].elastic() == again.jobs[i].elastic();
    differs = differs || first.jobs[i].elastic() != other.jobs[i].elastic();
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differs);
  // 3,000 multi-task jobs at one half: within five standard deviations (~137) of 1,500.
  EXPECT_NEAR(static_cast<double>(declared), 1500, 140);
}

}  // namespace
}  // namespace headroom::sim
