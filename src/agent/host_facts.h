// Host facts the agent registers besides its devices: the CPU and memory the operating system
// reports, and the address other nodes reach this one on (the source address the kernel picks
// for the route to the daemon — what a gang's rendezvous on this node must listen on).
// Threading: pure queries of the operating system; safe from any thread.
#pragma once

#include <cstdint>
#include <string>

#include "base/result.h"

namespace headroom::agent {

// Online CPUs x 1000.
int64_t HostCpuMilli();
// Physical memory in MiB.
int64_t HostMemoryMib();
// The local IP address of the route to host:port (a connected UDP socket: no packet is sent).
Result<std::string> LocalAddressFor(const std::string& host, int port);

}  // namespace headroom::agent
