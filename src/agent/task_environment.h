// TaskEnvironment: the environment a task starts with (docs/api.md "Agents"). Built in three
// layers, later ones winning: the agent's own environment (PATH, HOME, ...), then the job's
// `env`, then headroom's variables, which describe the placement and so cannot be overridden:
//   CUDA_VISIBLE_DEVICES  the task's device indices, comma-separated ("" for none)
//   CUDA_DEVICE_ORDER     PCI_BUS_ID, so CUDA numbers devices as NVML (and the daemon) do
//   HEADROOM_JOB_ID, HEADROOM_RANK, HEADROOM_WORLD_SIZE, HEADROOM_RENDEZVOUS
//   HEADROOM_CHECKPOINT_INTERVAL_S  how often to checkpoint, where the scheduler says (the
//                         policy's recovery.direct_checkpoints, for a job that declared its
//                         checkpointCost); absent otherwise, whatever the job's env says
//   RANK, WORLD_SIZE      as torch.distributed reads them
//   MASTER_ADDR, MASTER_PORT  split from `rendezvous` ("[v6]:port" loses its brackets); left
//                         as the job's env says when the rendezvous is empty or has no port
// Threading: pure functions.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "agent/agent_protocol.h"

namespace headroom::agent {

// "NAME=value" entries sorted by name, each name once.
std::vector<std::string> TaskEnvironment(const DesiredTask& task,
                                         const std::vector<std::string>& agent_env);

// Splits "host:port" / "[v6]:port" / "host" into (host, port); port is "" when absent.
std::pair<std::string, std::string> SplitRendezvous(std::string_view rendezvous);

// The current process's environment as "NAME=value" entries.
std::vector<std::string> CurrentEnvironment();

}  // namespace headroom::agent
