// WriteJobsCsv: one replay's jobs, a row each (`headroom sim --jobs-csv`), to see who waited:
// which jobs make a policy's p99, how long the large gangs queued, who was preempted or moved.
// Columns: job,name,tenant,tasks,devices,submit_s,start_s,end_s,wait_s,run_s,preemptions,
// migrations. `job` is the index in the workload (arrival order); times are seconds from the
// first arrival; start_s and wait_s are empty for a job that never started, end_s and run_s for
// one that never completed; wait_s is all its time pending (to its first start, and from each
// preemption to its next start), run_s the rest of its time to its end (time holding devices,
// restart and migration pauses included).
//
// Promises:
//   1. A pure function of its inputs: the same bytes for the same workload and run.
//   2. RFC 4180: every line ends with "\r\n"; a name or tenant holding a comma, a quote or a
//      line break is quoted, its quotes doubled.
//   3. One row per workload job, in workload order, when the run kept outcomes
//      (SimOptions::job_outcomes); only the header otherwise.
// Threading: a stateless function.
#pragma once

#include <string>

#include "model/workload.h"
#include "sim/run_result.h"

namespace headroom::sim {

std::string WriteJobsCsv(const model::Workload& workload, const PolicyRun& run);

}  // namespace headroom::sim
