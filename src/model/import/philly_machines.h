// Imports Microsoft Philly's machine list (Jeon et al., "Analysis of Large-Scale Multi-Tenant
// GPU Clusters for DNN Training Workloads", USENIX ATC'19; the file `cluster_machine_list`
// from msr-fiddle/philly-traces, see /work/shared/traces/microsoft-philly/README.md) as a
// Cluster: one node per row, in file order, under a flat topology (levels {"cluster"}, root
// "philly") — the trace publishes no topology.
//
// Input: CSV with header `machineId, number of GPUs, single GPU mem` (leading spaces are part
// of the published file and are trimmed); GPU memory reads like " 12GB". machineId is the
// unique node name; the GPU count is 0..1024; the memory is a positive whole number of GB.
//
// Devices carry {"model": "philly-<N>GB", "memory_gib": N}: the trace does not name the GPU,
// so the model says only what is known. (GPU vendors' "GB" of device memory are GiB.)
//
// Assumption: Philly publishes no CPU or host memory per machine (and its jobs record no CPU
// demand), so nodes get PhillyMachineOptions' per-GPU defaults — 8 CPU cores (8000 milli) and
// 64 GiB per GPU, i.e. 16 cores / 128 GiB for a 2-GPU and 64 cores / 512 GiB for an 8-GPU
// machine, typical of 2016–2017 GPU servers. They never constrain a GPU-only replay; change
// them if CPU placement matters.
// Errors are "file:line: field 'x': expected ..., got ...". Threading: pure functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/cluster.h"

namespace headroom::model {

struct PhillyMachineOptions {
  int64_t cpu_milli_per_gpu = 8'000;
  int64_t memory_mib_per_gpu = 64 * 1024;
};

// Parses machine-list text; `source` names it in messages.
Result<Cluster> ParsePhillyMachines(std::string_view text, const std::string& source,
                                    const PhillyMachineOptions& options = {});
Result<Cluster> LoadPhillyMachines(const std::string& path,
                                   const PhillyMachineOptions& options = {});

}  // namespace headroom::model
