#include "agent/daemon_client.h"

#include <utility>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "model/heartbeat_reader.h"
#include "model/yaml_field.h"

namespace headroom::agent {
namespace {

void SetTimeout(httplib::Client& client, double connect_s, double read_s) {
  const auto split = [](double seconds) {
    const auto whole = static_cast<time_t>(seconds);
    return std::pair<time_t, time_t>(
        whole, static_cast<time_t>((seconds - static_cast<double>(whole)) * 1e6));
  };
  const auto [connect_whole, connect_us] = split(connect_s);
  const auto [read_whole, read_us] = split(read_s);
  client.set_connection_timeout(connect_whole, connect_us);
  client.set_read_timeout(read_whole, read_us);
  client.set_write_timeout(read_whole, read_us);
}

// The daemon's own words from {"error": {"code", "message"}}, or the start of the body.
std::string ServerMessage(const std::string& body) {
  const nlohmann::json document = nlohmann::json::parse(body, nullptr, false);
  if (!document.is_discarded() && document.is_object() && document.contains("error") &&
      document["error"].is_object() && document["error"].contains("message") &&
      document["error"]["message"].is_string()) {
    return document["error"]["message"].get<std::string>();
  }
  return model::QuoteForMessage(body);
}

}  // namespace

DaemonClient::DaemonClient(DaemonClientOptions options)
    : options_(std::move(options)),
      client_(std::make_unique<httplib::Client>(options_.server.Origin())) {
  client_->set_tcp_nodelay(true);
  SetTimeout(*client_, options_.connect_timeout_s, options_.read_timeout_s);
  client_->set_bearer_token_auth(options_.token.c_str());
  client_->set_keep_alive(true);
}

DaemonClient::~DaemonClient() = default;
DaemonClient::DaemonClient(DaemonClient&&) noexcept = default;
DaemonClient& DaemonClient::operator=(DaemonClient&&) noexcept = default;

DaemonResult<std::string> ClassifyReply(std::string_view url, int status, const std::string& body) {
  if (status == 200) return body;
  const std::string message = fmt::format("POST {}: HTTP {}: {}", url, status, ServerMessage(body));
  if (status == 401 || status == 403) {
    return tl::unexpected(DaemonError{DaemonError::Kind::kRefused, message});
  }
  if (status == 404) return tl::unexpected(DaemonError{DaemonError::Kind::kUnknownNode, message});
  if (status >= 500) return tl::unexpected(DaemonError{DaemonError::Kind::kUnreachable, message});
  return tl::unexpected(DaemonError{DaemonError::Kind::kBadReply, message});
}

DaemonError Unreachable(std::string_view url, std::string_view what) {
  return DaemonError{
      DaemonError::Kind::kUnreachable,
      fmt::format("POST {}: {} (is headroomd running and reachable there?)", url, what)};
}

DaemonResult<std::string> DaemonClient::Post(const std::string& path, const std::string& body) {
  const std::string url = options_.server.Origin() + path;
  const httplib::Result response = client_->Post(path.c_str(), body, "application/json");
  if (!response) {
    return tl::unexpected(
        Unreachable(url, fmt::format("{} error", httplib::to_string(response.error()))));
  }
  return ClassifyReply(url, response->status, response->body);
}

DaemonResult<std::string> DaemonClient::Get(const std::string& path) {
  const std::string url = options_.server.Origin() + path;
  const httplib::Result response = client_->Get(path.c_str());
  if (!response) {
    return tl::unexpected(
        Unreachable(url, fmt::format("{} error", httplib::to_string(response.error()))));
  }
  return ClassifyReply(url, response->status, response->body);
}

DaemonResult<std::vector<uint32_t>> DaemonClient::Diagnose() {
  auto body = Get(fmt::format("/v1/agents/{}/diagnostics", EncodePathSegment(options_.node)));
  if (!body) return tl::unexpected(std::move(body).error());
  auto devices = model::ParseDiagnose(*body);
  if (!devices) {
    return tl::unexpected(
        DaemonError{DaemonError::Kind::kBadReply, "diagnostics reply: " + devices.error().message});
  }
  return *devices;
}

DaemonResult<void> DaemonClient::ReportDiagnostics(
    const std::vector<model::DiagnosticsResult>& results) {
  auto body = Post(fmt::format("/v1/agents/{}/diagnostics", EncodePathSegment(options_.node)),
                   model::DiagnosticsResultsJson(results).dump(
                       -1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!body) return tl::unexpected(std::move(body).error());
  return {};
}

DaemonResult<RegisterReply> DaemonClient::Register(const RegisterRequest& request) {
  auto body =
      Post("/v1/agents/register",
           RegisterJson(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!body) return tl::unexpected(std::move(body).error());
  auto reply = ParseRegisterReply(*body);
  if (!reply) {
    return tl::unexpected(
        DaemonError{DaemonError::Kind::kBadReply, "register reply: " + reply.error().message});
  }
  return *reply;
}

DaemonResult<std::vector<DesiredTask>> DaemonClient::Heartbeat(const HeartbeatRequest& request) {
  const std::string path = fmt::format("/v1/agents/{}/heartbeat", EncodePathSegment(options_.node));
  auto body = Post(
      path, HeartbeatJson(request).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!body) return tl::unexpected(std::move(body).error());
  auto reply = model::ReadHeartbeatReply(*body);
  if (!reply) {
    return tl::unexpected(
        DaemonError{DaemonError::Kind::kBadReply, "heartbeat reply: " + reply.error().message});
  }
  return std::move(*reply);
}

}  // namespace headroom::agent
