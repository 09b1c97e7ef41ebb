#include "cli/client/api_client.h"

#include <cctype>
#include <cstdlib>

#include <httplib.h>

namespace headroom::cli {
namespace {

constexpr time_t kConnectTimeoutS = 5;
constexpr time_t kReadTimeoutS = 60;  // Above the API's longest long-poll (30 s).

std::string OneLine(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  return text;
}

std::string EnvOr(const char* name, const std::string& flag_value) {
  if (!flag_value.empty()) return flag_value;
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

std::string TransportMessage(httplib::Error error, const ServerUrl& url, bool insecure) {
  std::string detail;
  switch (error) {
    case httplib::Error::Connection:
      detail = "connection refused or host unreachable";
      break;
    case httplib::Error::ConnectionTimeout:
      detail = fmt::format("no connection within {} s", kConnectTimeoutS);
      break;
    case httplib::Error::Read:
      detail = "the connection closed before a complete answer arrived";
      break;
    case httplib::Error::SSLServerVerification:
      detail = insecure ? "TLS certificate verification failed"
                        : "TLS certificate verification failed (use --cacert FILE, or --insecure "
                          "to skip verification)";
      break;
    case httplib::Error::SSLConnection:
      detail = "TLS handshake failed (is the server really speaking https?)";
      break;
    default:
      detail = httplib::to_string(error);
      break;
  }
  return fmt::format("cannot reach headroomd at {}: {}", url.ToString(), detail);
}

// Turns an HTTP answer into the body's JSON or an Error carrying the API's message.
Result<nlohmann::json> Interpret(const httplib::Result& result, const ServerUrl& url,
                                 bool insecure) {
  if (!result)
    return MakeError(ErrorCode::kIo, "{}", TransportMessage(result.error(), url, insecure));
  const httplib::Response& response = *result;
  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (response.status >= 200 && response.status < 300) {
    if (body.is_discarded()) {
      return MakeError(ErrorCode::kIo,
                       "headroomd at {} answered {} with a body that is not JSON (is {} really "
                       "headroomd?)",
                       url.ToString(), response.status, url.ToString());
    }
    return body;
  }
  std::string message;
  if (!body.is_discarded() && body.is_object() && body.contains("error") &&
      body["error"].is_object() && body["error"].value("message", "") != "") {
    message = OneLine(body["error"]["message"].get<std::string>());
  } else {
    std::string snippet = OneLine(response.body.substr(0, 200));
    message = fmt::format("headroomd at {} answered HTTP {}{}{}", url.ToString(), response.status,
                          snippet.empty() ? "" : ": ", snippet);
  }
  const ErrorCode code = response.status == 404  ? ErrorCode::kNotFound
                         : response.status < 500 ? ErrorCode::kInvalidArgument
                                                 : ErrorCode::kIo;
  return tl::unexpected<Error>(Error{code, std::move(message)});
}

}  // namespace

Result<ApiClient> ApiClient::Create(const ConnectionOptions& options) {
  std::string server = EnvOr("HEADROOM_SERVER", options.server);
  if (server.empty()) server = std::string(kDefaultServer);
  auto url = ParseServerUrl(server);
  if (!url) return tl::unexpected(url.error());
  auto client = std::make_unique<httplib::Client>(url->SchemeHostPort());
  client->set_tcp_nodelay(true);  // Else each keep-alive request waits ~40 ms (Nagle + ack).
  if (!client->is_valid()) {
    return MakeError(ErrorCode::kInvalidArgument, "server URL '{}': this build cannot open it",
                     server);
  }
  client->set_connection_timeout(kConnectTimeoutS);
  client->set_read_timeout(kReadTimeoutS);
  client->set_write_timeout(kReadTimeoutS);
  const std::string token = EnvOr("HEADROOM_TOKEN", options.token);
  if (!token.empty()) client->set_bearer_token_auth(token);
  if (url->scheme == "https") {
    client->enable_server_certificate_verification(!options.insecure);
    if (!options.ca_cert_file.empty()) client->set_ca_cert_path(options.ca_cert_file);
  }
  ApiClient api(std::move(*url), std::move(client));
  api.insecure_ = options.insecure;
  return api;
}

ApiClient::ApiClient(ServerUrl url, std::unique_ptr<httplib::Client> client)
    : url_(std::move(url)), client_(std::move(client)) {}
ApiClient::ApiClient(ApiClient&&) noexcept = default;
ApiClient& ApiClient::operator=(ApiClient&&) noexcept = default;
ApiClient::~ApiClient() = default;

Result<nlohmann::json> ApiClient::Get(std::string_view path) const {
  const std::string full = url_.base_path + std::string(path);
  return Interpret(client_->Get(full), url_, insecure_);
}

Result<nlohmann::json> ApiClient::Post(std::string_view path, std::string_view body,
                                       std::string_view content_type) const {
  const std::string full = url_.base_path + std::string(path);
  return Interpret(client_->Post(full, body.data(), body.size(), std::string(content_type)), url_,
                   insecure_);
}

Result<nlohmann::json> ApiClient::Put(std::string_view path, std::string_view body,
                                      std::string_view content_type) const {
  const std::string full = url_.base_path + std::string(path);
  return Interpret(client_->Put(full, body.data(), body.size(), std::string(content_type)), url_,
                   insecure_);
}

int ExitStatusFor(const Error& error) { return error.code == ErrorCode::kIo ? 1 : 2; }

std::string QueryEscape(std::string_view value) {
  std::string out;
  for (const unsigned char c : value) {
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

}  // namespace headroom::cli
