// How the API's objects (docs/api.md) appear in the CLI's default output: `queue` like squeue,
// `nodes` like sinfo -N, `services` as one row per service. Promises: every formatter accepts
// the API's JSON as it is — absent or null fields print as "-" instead of failing — and is pure
// given `now_s` (Unix seconds), so output is reproducible in tests. Any thread.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace headroom::cli {

// ID NAME TENANT STATE TASKS×GPUS TIME NODES(REASON). TIME is the wait so far for pending jobs
// and the run time for running ones; a pending job shows "(code: message)" and, when known,
// when it is expected to start.
std::string FormatQueue(const nlohmann::json& jobs, double now_s);

// `headroom explain JOB`: the job's state and shape; for a pending job every blocking reason,
// the engine's sentence, the nodes each constraint turns away and the expected start; for a
// running job where it runs.
std::string FormatExplain(const nlohmann::json& job, double now_s);

// NODE STATE GPUS ALLOC MODEL RACK REASON.
std::string FormatNodes(const nlohmann::json& nodes);

// QUEUE PARENT GPUS USED GUARANTEED BORROW LIMIT LEND LIMIT BORROWING (devices; "-": no
// limit), then the tenant's fair share when the reply has one (a user's view).
std::string FormatQueues(const nlohmann::json& queues);

// ID NAME TENANT REPLICAS RUNNING JOBS.
std::string FormatServices(const nlohmann::json& services);

// "45", "4:05", "1:02:03", "2-03:04:05" (squeue's TIME format).
std::string FormatElapsed(int64_t seconds);

// Milli-devices as devices: 4000 -> "4", 4500 -> "4.5", 250 -> "0.25".
std::string FormatMilli(int64_t milli);

}  // namespace headroom::cli
