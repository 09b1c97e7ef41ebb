// Imports the node list of Alibaba's cluster-trace-gpu-v2023 ("openb", Weng et al., "Beware of
// Fragmentation", USENIX ATC'23; /work/shared/traces/alibaba-gpu-v2023-openb/README.md) as a
// Cluster: one node per row, in file order, under a flat topology (levels {"cluster"}, root
// "openb") because the trace publishes no network topology.
//
// Input: CSV with header columns sn, cpu_milli, memory_mib, gpu, model (others are ignored).
// sn is the node name (unique, non-empty); cpu_milli and memory_mib are non-negative integers;
// gpu is an integer 0..1024; model names the GPU type and must be present when gpu > 0 (on
// CPU-only rows, gpu 0, it is ignored).
//
// Devices carry {"model": <model>} and, where the model pins it down, "memory_gib":
//   T4 16 (the only T4 board), A10 24 (the only A10 board), V100M16 16 and V100M32 32 (the
//   trace's names say so). P100 ships with 12 or 16 GB and G1/G2/G3 are undisclosed Alibaba
//   codes, so those carry no memory_gib rather than a guess.
// Errors are "file:line: field 'x': expected ..., got ...". Threading: pure functions.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/cluster.h"

namespace headroom::model {

// Parses node-list text; `source` names it in messages.
Result<Cluster> ParseOpenbNodes(std::string_view text, const std::string& source);
// Reads openb_node_list_gpu_node.csv, openb_node_list_all_node.csv or a file like them.
Result<Cluster> LoadOpenbNodes(const std::string& path);

// The per-device memory the importer assigns to an openb GPU model, if it assigns one.
std::optional<double> OpenbModelMemoryGib(std::string_view model);

}  // namespace headroom::model
