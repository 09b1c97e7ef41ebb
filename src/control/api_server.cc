#include "control/api_server.h"

#include <charconv>
#include <chrono>

#include <spdlog/spdlog.h>

// The dashboard page is the web layer's (src/web, built by the client branch); until that
// layer exists on this branch, "/" is simply not served.
#if __has_include("web/dashboard.h")
#include "web/dashboard.h"
#define HEADROOM_HAS_DASHBOARD 1
#endif

namespace headroom::control {

void WriteError(httplib::Response& response, const ApiError& error) {
  response.status = error.status;
  const Json body = {{"error", {{"code", error.code}, {"message", error.message}}}};
  response.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace),
                       "application/json");
}

void Respond(httplib::Response& response, const std::function<ApiResult<Reply>()>& handler) {
  ApiResult<Reply> reply = [&]() -> ApiResult<Reply> {
    try {
      return handler();
    } catch (const std::exception& e) {
      spdlog::error("request failed: {}", e.what());
      return Fail(500, "internal error: {}", e.what());
    }
  }();
  if (!reply) {
    WriteError(response, reply.error());
    return;
  }
  response.status = reply->status;
  response.set_content(reply->body.dump(-1, ' ', false, Json::error_handler_t::replace),
                       "application/json");
}

ApiResult<Principal> Authenticate(const ApiContext& context, const httplib::Request& request) {
  if (!request.has_header("Authorization")) {
    return Fail(401,
                "missing 'Authorization: Bearer <token>'; an admin token is in "
                "DATA_DIR/admin.token, others come from POST /v1/tokens");
  }
  auto principal = context.tokens.Authenticate(request.get_header_value("Authorization"));
  if (!principal) return Fail(401, "unknown token; ask an admin for a token (POST /v1/tokens)");
  return *principal;
}

ApiResult<Principal> AuthenticateReader(const ApiContext& context,
                                        const httplib::Request& request) {
  auto principal = Authenticate(context, request);
  if (principal && principal->role == Role::kAgent) {
    return Fail(403, "agent tokens may only register and heartbeat as their node");
  }
  return principal;
}

ApiResult<Principal> AuthenticateAdmin(const ApiContext& context, const httplib::Request& request) {
  auto principal = Authenticate(context, request);
  if (principal && principal->role != Role::kAdmin) {
    return Fail(403, "this needs an admin token (DATA_DIR/admin.token)");
  }
  return principal;
}

ApiResult<uint64_t> ParseId(const std::string& text, std::string_view what) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return Fail(400, "{}: expected a non-negative integer, got {}", what, QuoteExcerpt(text));
  }
  return value;
}

Result<std::unique_ptr<ApiServer>> ApiServer::Start(ApiContext context, ApiServerOptions options) {
  std::unique_ptr<httplib::Server> server;
  if (!options.tls_cert.empty() || !options.tls_key.empty()) {
    auto tls =
        std::make_unique<httplib::SSLServer>(options.tls_cert.c_str(), options.tls_key.c_str());
    if (!tls->is_valid()) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot load the TLS certificate '{}' and key '{}': check both are PEM "
                       "files and belong together",
                       options.tls_cert, options.tls_key);
    }
    server = std::move(tls);
  } else {
    server = std::make_unique<httplib::Server>();
  }
  std::unique_ptr<ApiServer> api(new ApiServer(context, std::move(server)));
  httplib::Server& s = *api->server_;
  const size_t threads = options.threads;
  s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  s.set_payload_max_length(options.max_body_bytes);
  s.set_keep_alive_max_count(100000);
  // Responses go out as header and body writes; without TCP_NODELAY, Nagle's algorithm and the
  // peer's delayed ACK add ~40 ms to a keep-alive request.
  s.set_tcp_nodelay(true);
  s.set_read_timeout(std::chrono::seconds(35));
  s.set_error_handler(httplib::Server::HandlerWithResponse([max = options.max_body_bytes](
                                                               const httplib::Request&,
                                                               httplib::Response& response)
                                                               -> httplib::Server::HandlerResponse {
    if (!response.body.empty()) return httplib::Server::HandlerResponse::Unhandled;
    ApiError error;
    error.status = response.status;
    switch (response.status) {
      case 404:
        error = Fail(404, "no such route; see docs/api.md for the v1 paths").value();
        break;
      case 413:
        error = Fail(413, "the body is larger than {} bytes; split the request", max).value();
        break;
      case 400:
        error = Fail(400, "malformed HTTP request").value();
        break;
      default:
        error =
            Fail(response.status, "request failed with HTTP status {}", response.status).value();
        break;
    }
    WriteError(response, error);
    return httplib::Server::HandlerResponse::Handled;
  }));
  s.Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content(R"({"status":"ok"})", "application/json");
  });
#ifdef HEADROOM_HAS_DASHBOARD
  s.Get("/", [](const httplib::Request&, httplib::Response& response) {
    const std::string_view page = web::DashboardHtml();
    response.set_content(std::string(page), "text/html; charset=utf-8");
  });
#endif
  RegisterJobRoutes(s, api->context_);
  RegisterNodeRoutes(s, api->context_);
  RegisterAgentRoutes(s, api->context_);
  RegisterMetricsRoutes(s, api->context_);

  const int port = options.port == 0
                       ? s.bind_to_any_port(options.host)
                       : (s.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port <= 0) {
    return MakeError(ErrorCode::kIo, "cannot listen on {}:{}: address in use or not local",
                     options.host, options.port);
  }
  api->port_ = port;
  api->thread_ = std::thread([&s] { s.listen_after_bind(); });
  // cpp-httplib 0.11 has no wait_until_ready(): poll is_running() (REALPARTS.md §4).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!s.is_running()) {
    if (std::chrono::steady_clock::now() > deadline) {
      return MakeError(ErrorCode::kIo, "the HTTP server on {}:{} did not start within 10 s",
                       options.host, port);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return api;
}

ApiServer::~ApiServer() { Stop(); }

void ApiServer::Stop() {
  if (server_) server_->stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace headroom::control
