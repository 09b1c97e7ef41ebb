#include "sim/report/jobs_csv.h"

#include <gtest/gtest.h>

namespace headroom::sim {
namespace {

constexpr const char* kHeader =
    "job,name,tenant,tasks,devices,submit_s,start_s,end_s,wait_s,run_s,preemptions,migrations\r\n";

model::Workload TwoJobs() {
  model::Workload workload;
  model::Job gang;
  gang.name = "a,\"b\"";
  gang.tenant = "t";
  gang.task_count = 2;
  gang.task.devices = 8;
  gang.submit_time_us = SecondsToUs(10);
  model::Job single;
  single.name = "plain";
  single.tenant = "u";
  single.task.devices = 1;
  single.submit_time_us = SecondsToUs(12);
  workload.jobs = {gang, single};
  return workload;
}

// Times from the first arrival; a name with a comma and quotes quoted as RFC 4180 says; the wait
// is all the time pending (5 s to the first start, 2 s after a preemption), the run the rest; a
// job that never started has its start, end, wait and run empty.
TEST(JobsCsvTest, OneRowPerJobWithItsTimesAndQuotedNames) {
  PolicyRun run;
  run.jobs = {JobOutcome{.first_start_us = SecondsToUs(15),
                         .end_us = SecondsToUs(25),
                         .wait_us = SecondsToUs(7),
                         .preemptions = 1,
                         .migrations = 2},
              JobOutcome{}};
  EXPECT_EQ(WriteJobsCsv(TwoJobs(), run),
            std::string(kHeader) +
                "0,\"a,\"\"b\"\"\",t,2,16,0.000,5.000,15.000,7.000,8.000,1,2\r\n"
                "1,plain,u,1,1,2.000,,,,,0,0\r\n");
}

TEST(JobsCsvTest, ARunThatKeptNoOutcomesGivesTheHeaderOnly) {
  EXPECT_EQ(WriteJobsCsv(TwoJobs(), PolicyRun{}), kHeader);
}

}  // namespace
}  // namespace headroom::sim
