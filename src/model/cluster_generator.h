// GenerateCluster: a synthetic building of identical GPU nodes, for simulations and benchmarks
// at any scale (100,000 devices take well under a second: tens of milliseconds once warm).
//
// Shape: levels cluster → pod → leaf → rack, always all four. A rack is one NVLink domain of
// `nvlink_domain` devices rounded down to whole nodes (at least one node); racks fill leaves
// of `racks_per_leaf`, leaves fill pods of `leaves_per_pod`, in order; only the last rack,
// leaf and pod may be partly filled. Names follow the YAML conventions (cluster_yaml_names.h):
// pod0, pod0-leaf0, pod0-leaf0-rack0, pod0-leaf0-rack0-n0.
//
// Facility: one cooling zone per rack (named after the rack) and one power domain per pod
// (named "<pod>-power"), sized by default for full racks and pods at the nodes' maximum input
// power — no oversubscription; set smaller limits to study headroom.
//
// Defaults describe a DGX H100-like node: 8 × H100 80 GB, 224 CPU threads (2 × 56-core Xeon
// 8480C with SMT, as cpu_milli 224000), 2 TiB of memory, 10.2 kW maximum input power
// (/work/shared/PHYSICS.md §1.1, "DGX H100/H200 max input power: 10.2 kW; 6 PSUs × 3.3 kW",
// citing the NVIDIA DGX H100 user guide).
// Threading: a pure function.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"
#include "model/cluster.h"

namespace headroom::model {

// Maximum input power of one DGX H100 (8 GPUs); other node sizes scale per device.
inline constexpr int64_t kDgxH100MaxPowerW = 10'200;

struct GeneratorOptions {
  int64_t devices = 0;           // Total; a positive multiple of devices_per_node.
  int64_t devices_per_node = 8;  // 1 .. 1024.
  int64_t nvlink_domain = 72;    // Devices per rack (NVLink domain), rounded down to nodes.
  int64_t racks_per_leaf = 16;
  int64_t leaves_per_pod = 8;
  std::string model = "H100";
  double memory_gib = 80;  // Per device.
  int64_t cpu_milli_per_node = 224'000;
  int64_t memory_gib_per_node = 2048;
  // 0 means kDgxH100MaxPowerW * devices_per_node / 8.
  int64_t node_max_power_w = 0;
  // 0 means nodes per rack × node_max_power_w.
  int64_t cooling_w_per_rack = 0;
  // 0 means nodes per full pod × node_max_power_w.
  int64_t power_limit_w_per_pod = 0;
  std::string name = "cluster";  // The root domain.
};

// The largest building GenerateCluster makes (the cluster YAML parser's default device cap).
inline constexpr int64_t kMaxGeneratedDevices = 4'194'304;

// Validates `options` ("generator option 'devices': expected ..., got ...") and builds.
Result<Cluster> GenerateCluster(const GeneratorOptions& options);

}  // namespace headroom::model
