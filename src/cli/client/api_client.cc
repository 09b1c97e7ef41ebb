#include "cli/client/api_client.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include <fmt/format.h>

namespace headroom::cli {
namespace {

constexpr int kConnectTimeoutS = 5;
constexpr int kReadTimeoutS = 60;  // Above the API's longest long-poll (30 s).

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

std::string TransportMessage(const TransportError& error, const ServerUrl& url, bool insecure) {
  std::string detail = error.detail;
  if (error.failure == TransportFailure::kTlsVerification && !insecure) {
    detail += " (use --cacert FILE, or --insecure to skip verification)";
  }
  return fmt::format("cannot reach headroomd at {}: {}", url.ToString(), detail);
}

// Turns an HTTP answer into the body's JSON or an Error carrying the API's message.
Result<nlohmann::json> Interpret(const tl::expected<HttpAnswer, TransportError>& answer,
                                 const ServerUrl& url, bool insecure) {
  if (!answer) {
    return MakeError(ErrorCode::kIo, "{}", TransportMessage(answer.error(), url, insecure));
  }
  const HttpAnswer& response = *answer;
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
  ApiClient api;
  api.url_ = std::move(*url);
  api.token_ = EnvOr("HEADROOM_TOKEN", options.token);
  if (std::any_of(api.token_.begin(), api.token_.end(),
                  [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "the token holds a control character (a line break?); tokens are one line");
  }
  api.transport_ = TransportOptions{.connect_timeout_s = kConnectTimeoutS,
                                    .io_timeout_s = kReadTimeoutS,
                                    .verify_certificate = !options.insecure,
                                    .ca_cert_file = options.ca_cert_file};
  return api;
}

Result<nlohmann::json> ApiClient::Get(std::string_view path) const {
  return Send("GET", path, "", "");
}

Result<nlohmann::json> ApiClient::Post(std::string_view path, std::string_view body,
                                       std::string_view content_type) const {
  return Send("POST", path, body, content_type);
}

Result<nlohmann::json> ApiClient::Put(std::string_view path, std::string_view body,
                                      std::string_view content_type) const {
  return Send("PUT", path, body, content_type);
}

Result<nlohmann::json> ApiClient::Send(std::string_view method, std::string_view path,
                                       std::string_view body, std::string_view content_type) const {
  HttpHeaders headers = {{"Accept", "application/json"}};
  if (!token_.empty()) headers.emplace_back("Authorization", "Bearer " + token_);
  if (!content_type.empty()) headers.emplace_back("Content-Type", std::string(content_type));
  return Interpret(
      Exchange(url_, transport_, method, url_.base_path + std::string(path), headers, body), url_,
      !transport_.verify_certificate);
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
