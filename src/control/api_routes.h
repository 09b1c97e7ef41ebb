// API routes: the handlers of docs/api.md, grouped by resource (api_jobs.cc, api_services.cc,
// api_nodes.cc, api_agents.cc, api_metrics.cc), and what they share — the context they act on,
// bearer-token authentication, and one way to turn a handler's ApiResult into an HTTP response.
// Threading: handlers run on the HTTP server's worker or event threads; everything they touch is
// thread-safe (see the context members' headers).
#pragma once

#include <functional>
#include <optional>

#include "control/agents_backend.h"
#include "control/api_json.h"
#include "control/clock.h"
#include "control/daemon_state.h"
#include "control/event_log.h"
#include "control/http_server.h"
#include "control/journal.h"
#include "control/live_loop.h"
#include "control/metrics.h"
#include "control/token_auth.h"

namespace headroom::control {

struct ApiContext {
  DaemonState& state;
  Journal& journal;
  LiveLoop& loop;
  TokenAuth& tokens;
  EventLog& events;
  Histogram& cycle_seconds;
  const Clock& clock;
  AgentsBackend* agents;  // nullptr with the simulated backend.
};

struct Reply {
  int status = 200;
  Json body;
  std::optional<LongPoll> long_poll;  // Park the request (see HttpServer); body unused.
};

// Runs `handler` and writes its reply or its error ({"error": {code, message}}).
void Respond(HttpResponse& response, const std::function<ApiResult<Reply>()>& handler);
void WriteError(HttpResponse& response, const ApiError& error);

// 401 without a known bearer token.
ApiResult<Principal> Authenticate(const ApiContext& context, const HttpRequest& request);
// 403 unless the principal is an admin or a user (agents only register and heartbeat).
ApiResult<Principal> AuthenticateReader(const ApiContext& context, const HttpRequest& request);
ApiResult<Principal> AuthenticateAdmin(const ApiContext& context, const HttpRequest& request);
// 403 unless the principal may act on the jobs and services of `tenant` (an admin, or a user
// of that tenant).
ApiResult<void> CheckTenant(const Principal& principal, const std::string& tenant);

// A path parameter or query value as an unsigned integer; 400 naming `what` otherwise.
ApiResult<uint64_t> ParseId(const std::string& text, std::string_view what);

void RegisterJobRoutes(Router& server, ApiContext& context);
void RegisterServiceRoutes(Router& server, ApiContext& context);
void RegisterNodeRoutes(Router& server, ApiContext& context);
void RegisterAgentRoutes(Router& server, ApiContext& context);
void RegisterMetricsRoutes(Router& server, ApiContext& context);
void RegisterPolicyRoutes(Router& server, ApiContext& context);
void RegisterQueueRoutes(Router& server, ApiContext& context);

}  // namespace headroom::control
