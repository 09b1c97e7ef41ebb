// Topology levels a job states (Job::required_topology_level / preferred_topology_level),
// resolved against a cluster's fabric levels. The names are the cluster's level names (e.g.
// cluster → leaf → rack); an index counts from the root (0) downwards, so a larger index is a
// smaller, better-connected domain.
//
// Promises: LevelIndex is exact-match on names; ValidateTopologyLevels reports the first job
// with an unknown level name, or a preferred level above its required one (which could never
// take effect), naming the job and the levels the cluster has.
// Threading: pure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "model/cluster.h"
#include "model/job.h"

namespace headroom::model {

// The index of the level called `name`, or nullopt when the cluster has no such level.
std::optional<uint32_t> LevelIndex(const Cluster& cluster, std::string_view name);

// Checks every job's stated levels against the cluster (where jobs are loaded for a run).
// `source` names the workload in messages.
Result<void> ValidateTopologyLevels(const Cluster& cluster, const std::vector<Job>& jobs,
                                    std::string_view source);

}  // namespace headroom::model
