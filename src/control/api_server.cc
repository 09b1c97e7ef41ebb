#include "control/api_server.h"

#include <charconv>
#include <chrono>
#include <fstream>
#include <iterator>

#include "control/logging.h"
#include "web/dashboard.h"

namespace headroom::control {

void WriteError(HttpResponse& response, const ApiError& error) {
  response.status = error.status;
  const Json body = {{"error", {{"code", error.code}, {"message", error.message}}}};
  response.set_content(body.dump(-1, ' ', false, Json::error_handler_t::replace),
                       "application/json");
}

void Respond(HttpResponse& response, const std::function<ApiResult<Reply>()>& handler) {
  ApiResult<Reply> reply = [&]() -> ApiResult<Reply> {
    try {
      return handler();
    } catch (const std::exception& e) {
      LogError("request failed: {}", e.what());
      return Fail(500, "internal error: {}", e.what());
    }
  }();
  if (!reply) {
    WriteError(response, reply.error());
    return;
  }
  response.status = reply->status;
  response.long_poll = reply->long_poll;
  response.set_content(reply->body.dump(-1, ' ', false, Json::error_handler_t::replace),
                       "application/json");
}

ApiResult<Principal> Authenticate(const ApiContext& context, const HttpRequest& request) {
  if (request.principal) return *request.principal;  // The server authenticated it already.
  if (!request.has_header("Authorization")) {
    return Fail(401,
                "missing 'Authorization: Bearer <token>'; an admin token is in "
                "DATA_DIR/admin.token, others come from POST /v1/tokens");
  }
  auto principal = context.tokens.Authenticate(request.get_header_value("Authorization"));
  if (!principal) return Fail(401, "unknown token; ask an admin for a token (POST /v1/tokens)");
  return *principal;
}

ApiResult<Principal> AuthenticateReader(const ApiContext& context, const HttpRequest& request) {
  auto principal = Authenticate(context, request);
  if (principal && principal->role == Role::kAgent) {
    return Fail(403, "agent tokens may only register and heartbeat as their node");
  }
  return principal;
}

ApiResult<Principal> AuthenticateAdmin(const ApiContext& context, const HttpRequest& request) {
  auto principal = Authenticate(context, request);
  if (principal && principal->role != Role::kAdmin) {
    return Fail(403, "this needs an admin token (DATA_DIR/admin.token)");
  }
  return principal;
}

ApiResult<void> CheckTenant(const Principal& principal, const std::string& tenant) {
  if (principal.role == Role::kUser && principal.tenant != tenant) {
    return Fail(403, "this token belongs to tenant {}, not {}", QuoteExcerpt(principal.tenant),
                QuoteExcerpt(tenant));
  }
  return {};
}

ApiResult<uint64_t> ParseId(const std::string& text, std::string_view what) {
  uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    return Fail(400, "{}: expected a non-negative integer, got {}", what, QuoteExcerpt(text));
  }
  return value;
}

namespace {

Result<std::string> ReadPem(const std::string& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) text.clear();
  if (text.empty() || text.size() > (1 << 20)) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "cannot read the TLS {} '{}': expected a PEM file of at most 1 MiB", what,
                     path);
  }
  return text;
}

}  // namespace

Result<std::unique_ptr<ApiServer>> ApiServer::Start(ApiContext context, ApiServerOptions options) {
  std::unique_ptr<ApiServer> api(new ApiServer(context));
  ApiContext& ctx = api->context_;
  HttpServerOptions http{
      .host = options.host,
      .port = options.port,
      .workers = options.workers,
      .max_body_bytes = options.max_body_bytes,
      .max_connections = options.max_connections,
      .max_long_polls_per_token = options.max_long_polls_per_token,
      .authorize =
          [&ctx](const std::string& authorization) {
            return ctx.tokens.Authenticate(authorization);
          },
      .write_error =
          [](HttpResponse& response, int status, const std::string& message) {
            WriteError(response, Fail(status, "{}", message).value());
          },
      .latest_seq = [&ctx] { return ctx.events.next_seq() - 1; },
      .wait_for_seq =
          [&ctx](uint64_t seen, std::chrono::milliseconds max_wait) {
            ctx.events.After(seen, max_wait, 0);
          },
      .clock = &ctx.clock,
  };
  if (!options.tls_cert.empty() || !options.tls_key.empty()) {
    auto cert = ReadPem(options.tls_cert, "certificate");
    if (!cert) return tl::unexpected(cert.error());
    auto key = ReadPem(options.tls_key, "key");
    if (!key) return tl::unexpected(key.error());
    http.tls_cert_pem = std::move(*cert);
    http.tls_key_pem = std::move(*key);
  }
  Router router;
  router.Get(
      "/healthz",
      [](const HttpRequest&, HttpResponse& response) {
        response.set_content(R"({"status":"ok"})", "application/json");
      },
      RouteAccess::kPublic, RouteRunner::kInline);
  router.Get(
      "/",
      [](const HttpRequest&, HttpResponse& response) {
        response.set_content(std::string(web::DashboardHtml()), "text/html; charset=utf-8");
      },
      RouteAccess::kPublic, RouteRunner::kInline);
  RegisterJobRoutes(router, ctx);
  RegisterServiceRoutes(router, ctx);
  RegisterNodeRoutes(router, ctx);
  RegisterAgentRoutes(router, ctx);
  RegisterMetricsRoutes(router, ctx);
  RegisterPolicyRoutes(router, ctx);
  RegisterQueueRoutes(router, ctx);
  auto server = HttpServer::Start(std::move(router), std::move(http));
  if (!server && !options.tls_cert.empty()) {
    return tl::unexpected(
        WithContext(server.error(),
                    fmt::format("--tls-cert {} --tls-key {}", options.tls_cert, options.tls_key)));
  }
  if (!server) return tl::unexpected(server.error());
  api->server_ = std::move(*server);
  return api;
}

ApiServer::~ApiServer() { Stop(); }

void ApiServer::Stop() {
  if (server_) server_->Stop();
}

}  // namespace headroom::control
