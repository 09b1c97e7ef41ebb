// DaemonClient: the agent's HTTP client for headroomd's agent endpoints (docs/api.md "Agents"):
// POST /v1/agents/register, POST /v1/agents/{node}/heartbeat and GET/POST
// /v1/agents/{node}/diagnostics with the agent's bearer token.
//
// Failures come back as a DaemonError whose kind tells the agent loop what to do, so this is the
// one boundary where a Result's error carries more than a message:
//   kUnreachable  no connection, a timeout or a 5xx: keep tasks running, retry
//   kUnknownNode  404 on heartbeat: the daemon forgot the node; register again
//   kRefused      401 or 403: the token is wrong for this node; retrying cannot help
//   kBadReply     any other status or an unreadable body: log it, retry next interval
// Messages include the daemon's {"error": {"message"}} when it sent one.
// Threading: one client per thread (cpp-httplib's Client is not shared).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <tl/expected.hpp>

#include "agent/agent_protocol.h"
#include "agent/http_url.h"
#include "model/diagnostics_protocol.h"

namespace httplib {
class Client;
}

namespace headroom::agent {

struct DaemonError {
  enum class Kind { kUnreachable, kUnknownNode, kRefused, kBadReply };
  Kind kind = Kind::kUnreachable;
  std::string message;
};

template <typename T>
using DaemonResult = tl::expected<T, DaemonError>;

struct DaemonClientOptions {
  HttpUrl server;
  std::string token;
  std::string node;
  double connect_timeout_s = 3.0;
  double read_timeout_s = 10.0;
};

// What a reply to POST `url` means: the body of a 200, or the DaemonError its status stands for.
DaemonResult<std::string> ClassifyReply(std::string_view url, int status, const std::string& body);
// A POST to `url` that got no reply, because of `what`.
DaemonError Unreachable(std::string_view url, std::string_view what);

class DaemonClient {
 public:
  explicit DaemonClient(DaemonClientOptions options);
  ~DaemonClient();
  DaemonClient(DaemonClient&&) noexcept;
  DaemonClient& operator=(DaemonClient&&) noexcept;

  DaemonResult<RegisterReply> Register(const RegisterRequest& request);
  DaemonResult<std::vector<DesiredTask>> Heartbeat(const HeartbeatRequest& request);
  // The devices headroomd wants diagnosed now, and the results of those diagnosed.
  DaemonResult<std::vector<uint32_t>> Diagnose();
  DaemonResult<void> ReportDiagnostics(const std::vector<model::DiagnosticsResult>& results);

 private:
  DaemonResult<std::string> Post(const std::string& path, const std::string& body);
  DaemonResult<std::string> Get(const std::string& path);

  DaemonClientOptions options_;
  std::unique_ptr<httplib::Client> client_;
};

}  // namespace headroom::agent
