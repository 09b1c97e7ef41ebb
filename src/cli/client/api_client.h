// ApiClient: the CLI's only way to talk to headroomd — JSON over HTTP(S) as docs/api.md defines,
// with the bearer token on every request. Promises: every call returns the response body as
// JSON on 2xx, or an Error whose message is one line a user can act on: the API's own
// `error.message` for 4xx/5xx, "cannot reach headroomd at URL: ..." when no answer came.
// ExitStatusFor() maps that error to the CLI's exit status (2: the request was refused,
// 1: headroomd could not be reached or failed). Single-threaded; one client per command.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"
#include "cli/client/http_transport.h"
#include "cli/client/server_url.h"

namespace headroom::cli {

inline constexpr std::string_view kDefaultServer = "http://127.0.0.1:8470";

// What `--server`, `--token`, `--insecure` and `--cacert` said; empty strings fall back to
// HEADROOM_SERVER and HEADROOM_TOKEN, then to kDefaultServer and no token.
struct ConnectionOptions {
  std::string server;
  std::string token;
  bool insecure = false;     // https: skip certificate verification
  std::string ca_cert_file;  // https: trust this PEM bundle instead of the system's
};

class ApiClient {
 public:
  // Resolves the options against the environment and checks the URL and token; each request
  // then goes over a connection of its own.
  static Result<ApiClient> Create(const ConnectionOptions& options);

  // `path` is below the server's base path and may carry a query ("/v1/jobs?state=pending").
  Result<nlohmann::json> Get(std::string_view path) const;
  Result<nlohmann::json> Post(std::string_view path, std::string_view body,
                              std::string_view content_type = "application/json") const;
  Result<nlohmann::json> Put(std::string_view path, std::string_view body,
                             std::string_view content_type) const;

  const ServerUrl& url() const { return url_; }

 private:
  ApiClient() = default;
  Result<nlohmann::json> Send(std::string_view method, std::string_view path, std::string_view body,
                              std::string_view content_type) const;

  ServerUrl url_;
  std::string token_;
  TransportOptions transport_;
};

// 1 when headroomd could not be reached or failed (kIo), 2 when it refused the request or the
// input was bad (every other code).
int ExitStatusFor(const Error& error);

// Percent-encodes a query parameter value (RFC 3986 unreserved characters pass through).
std::string QueryEscape(std::string_view value);

}  // namespace headroom::cli
