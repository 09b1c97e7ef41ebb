// HttpTransport: one HTTP/1.1 request and its answer over a connection of its own, plain TCP or
// TLS, for the CLI. It replaces a general HTTP library whose load alone (it initialises OpenSSL
// when the program starts) cost the CLI a third of its start time: here OpenSSL is loaded only
// when an https URL is used (openssl_library.h). Promises: the request is sent with "Connection:
// close"; the answer is read to its Content-Length, the end of its chunked body, or the
// connection's close; a connection that cannot be made within `connect_timeout_s`, a read or write
// that waits longer than `io_timeout_s`, a TLS certificate that does not verify, and an answer
// larger than kMaxAnswerBytes or not HTTP/1.x are failures, each with a line a user can act on.
// Blocking; single-threaded. An https exchange sets SIGPIPE to be ignored, process-wide.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

#include "cli/client/server_url.h"

namespace headroom::cli {

inline constexpr size_t kMaxAnswerBytes = size_t{1} << 30;

struct TransportOptions {
  int connect_timeout_s = 5;
  int io_timeout_s = 60;
  bool verify_certificate = true;  // https only
  std::string ca_cert_file;        // https only: trust this PEM bundle, not the system's
};

enum class TransportFailure {
  kConnect,          // refused, unreachable, or the name does not resolve
  kConnectTimeout,   // no connection within connect_timeout_s
  kClosed,           // the connection closed or failed before the whole answer came
  kTimeout,          // a read or write waited longer than io_timeout_s
  kTlsVerification,  // the server's certificate did not verify
  kTlsHandshake,     // any other TLS failure (e.g. the server does not speak TLS)
  kBadAnswer,        // not HTTP/1.x, malformed framing, or larger than kMaxAnswerBytes
};

struct TransportError {
  TransportFailure failure;
  std::string detail;  // One line: what exactly happened, e.g. the verification error.
};

struct HttpAnswer {
  int status = 0;
  std::string body;
};

using HttpHeaders = std::vector<std::pair<std::string, std::string>>;

// Sends `method target` (target: path and query) to `url`'s host and port with `headers`
// (Host, Content-Length and Connection are added) and `body`, and returns the answer.
tl::expected<HttpAnswer, TransportError> Exchange(const ServerUrl& url,
                                                  const TransportOptions& options,
                                                  std::string_view method, std::string_view target,
                                                  const HttpHeaders& headers,
                                                  std::string_view body);

}  // namespace headroom::cli
