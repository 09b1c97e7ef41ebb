// ServiceOptions: how `headroom sim --services` shapes the services of request traces (every one
// serves the same model on the same devices), and the daily curve that thins them
// (service_loads.h). A plain value: the report keeps it to say what a run used.
#pragma once

#include <cstdint>
#include <string>

namespace headroom::sim {

struct ServiceOptions {
  std::string model = "llama-2-70b";
  std::string device_model = "H100";
  uint32_t devices_per_replica = 4;
  uint32_t min_replicas = 1;
  uint32_t max_replicas = 64;
  double startup_s = 60;
  double rate_scale = 1;
  double ttft_slo_s = 2;
  double tbt_slo_s = 0.2;
  std::string load_curve;  // Empty: none; each trace is replayed once.
  uint64_t seed = 1;
};

}  // namespace headroom::sim
