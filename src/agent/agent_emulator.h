// AgentEmulator: `headroom-agent --emulate N` — one process that registers N nodes of 8 fake
// GPUs with one headroomd and heartbeats each of them, over the real agent protocol
// (agent_protocol.h, daemon_client.h), for tests and for measuring the daemon at building scale
// (docs/agent.md "Emulating many nodes"). Tasks run as EmulatedNode describes, so jobs complete.
//
// Promises:
//  1. Each node gets its own agent token, minted with the admin token given (POST /v1/tokens
//     {"role": "agent", "node": NAME}), and its own keep-alive connection, as a real agent has:
//     N sockets, driven without blocking (http_exchange.h) so that one thread keeps thousands of
//     nodes on schedule and the emulator takes little CPU from the daemon it measures. Replies
//     are judged as DaemonClient judges them (ClassifyReply). RLIMIT_NOFILE's soft limit is
//     raised to its hard limit first; a limit too small for N is an error saying so. At most
//     256 token and registration calls are in flight at once.
//  2. Node k of N heartbeats at phase k/N of the interval (plus a jitter of under one slot), so
//     the daemon sees an even stream of N/interval heartbeats per second, not bursts; a task
//     exit sends that node's heartbeat at once. A registration or token that fails is retried
//     with the agent's backoff (0.5 s doubling to 30 s, ±20 %); a 404 on heartbeat registers the
//     node again.
//  3. The summary counts every call: registrations ok and failed, heartbeats sent and failed,
//     heartbeat latency (request to reply) p50/p99/max, and how late heartbeats left against
//     their schedule (p99), so a slow emulator is told apart from a slow daemon.
//  4. A refused admin token (401/403 on minting) ends the run with an error; nothing else does.
// Threading: RunEmulator starts `threads` event loops (default 1), each owning the nodes k with
// k % threads == loop; it returns once they have all stopped.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "agent/http_url.h"
#include "agent/stop_signal.h"
#include "base/result.h"

namespace headroom::agent {

struct EmulatorOptions {
  HttpUrl server;
  std::string admin_token;
  std::string node_prefix = "emu";  // Nodes are PREFIX-00000, PREFIX-00001, ...
  int nodes = 1;
  int devices_per_node = 8;
  double heartbeat_s = 10.0;
  int threads = 1;                    // Event loops; each owns every threads-th node.
  double seconds = 0;                 // 0: until SIGINT/SIGTERM.
  double default_task_s = 60;         // A task whose command is not `sleep N`.
  std::string address = "127.0.0.1";  // Registered for every node.
};

struct EmulatorSummary {
  int nodes = 0;
  int registered = 0;  // Nodes registered when the run ended.
  int64_t registrations_ok = 0;
  int64_t registrations_failed = 0;
  int64_t tokens_failed = 0;
  int64_t heartbeats_sent = 0;
  int64_t heartbeats_failed = 0;
  double heartbeat_p50_ms = 0;
  double heartbeat_p99_ms = 0;
  double heartbeat_max_ms = 0;
  double send_lag_p99_ms = 0;
  int64_t tasks_started = 0;
  int64_t tasks_exited = 0;
  int64_t tasks_stopped = 0;
  double seconds = 0;

  nlohmann::json ToJson() const;
};

Result<EmulatorSummary> RunEmulator(const EmulatorOptions& options, StopSignal& stop);

}  // namespace headroom::agent
