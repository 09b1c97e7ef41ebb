// LoadServices: the inference services of `headroom sim --services`, one per request trace
// named: "azure-llm:PATH,mooncake:PATH". Every service serves the same model on the same
// devices (ServiceOptions); each replays its trace, multiplexed to `rate_scale` times its rate
// (MultiplexRequests), from the run's first arrival. With a daily load curve (`load_curve`,
// FORMAT:PATH, sim/traces/load_curve.h) the trace stands for the day's peak: it repeats across
// `span_us` (the training workload's arrivals) and the curve thins it (RequestStream).
// "dlrm:PATH" (Alibaba's GPU-disaggregated DLRM trace, sim/traces/dlrm_trace.h) adds one
// service per app with GPU instances, replayed by replica count (ServiceLoad::replica_schedule)
// from the run's origin: each replica on the devices, CPU and memory its instances asked for,
// of the same device model and start-up time as the others; the model and rates do not apply
// (it has no requests). Its instances run on CPU nodes (role CN) are not replayed.
// Promises: each service validates (model::ValidateService) and the cluster has its device
// model; otherwise an error that names the flag or trace and what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/cluster.h"
#include "sim/service_driver.h"
#include "sim/service_options.h"

namespace headroom::sim {

inline constexpr std::string_view kDlrmPrefix = "dlrm:";

Result<std::vector<ServiceLoad>> LoadServices(std::string_view specs, const ServiceOptions& options,
                                              const model::Cluster& cluster, TimeUs span_us);

}  // namespace headroom::sim
