// Loader for Alibaba's GPU-disaggregated DLRM inference trace (cluster-trace-gpu-v2025, with
// Yang et al., "GPU-Disaggregated Serving for Deep Learning Recommendation Models at Scale",
// NSDI'25; github.com/alibaba/clusterdata, disaggregated_DLRM_trace.csv): the instances of 156
// long-running, latency-sensitive inference services over a month, as services to replay.
//
// Format: CSV with a header. Columns
//   instance_sn                  the instance's name
//   role                         CN (an instance on a CPU node) or HN (on a GPU node)
//   app_name                     its service
//   cpu_request, gpu_request     vCPUs and GPUs (0 for CN, 1 for HN as published); the *_limit
//   rdma_request                 columns beside them are not used (percent of one RNIC)
//   memory_request, disk_request GiB
//   max_instance_per_node        -1: no limit
//   creation_time, scheduled_time, deletion_time
//                                seconds from the trace's start; the first two are empty for an
//                                instance that existed before the start, the last for one still
//                                alive at the end
// Mapping, one row -> one ServiceInstance, in file order, times to the microsecond.
// Promises: creation and scheduling are both known or both unknown, and creation <= scheduling
// <= deletion where known; malformed cells are errors "file:line: field 'x': expected ...,
// got "..."". Pure; thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"

namespace headroom::sim {

struct ServiceInstance {
  std::string name;
  std::string service;    // app_name.
  bool gpu_node = false;  // HN: on a GPU node; CN: on a CPU node.
  double cpus = 0;
  uint32_t gpus = 0;
  uint32_t rdma_percent = 0;  // Of one RDMA NIC.
  double memory_gib = 0;
  double disk_gib = 0;
  uint32_t max_per_node = 0;  // 0: no limit.
  // nullopt: before the trace's start (created, scheduled) or after its end (deleted).
  std::optional<TimeUs> created_us;
  std::optional<TimeUs> scheduled_us;
  std::optional<TimeUs> deleted_us;
};

struct ServiceInstanceTrace {
  std::string source;
  std::vector<ServiceInstance> instances;
};

Result<ServiceInstanceTrace> ParseDlrmTrace(std::string_view text, std::string source);
Result<ServiceInstanceTrace> LoadDlrmTrace(const std::string& path);

}  // namespace headroom::sim
