#include "cli/client/http_transport.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <climits>
#include <csignal>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/client/chunked_body.h"
#include "cli/client/openssl_library.h"

namespace headroom::cli {
namespace {

using SteadyClock = std::chrono::steady_clock;
using Failed = tl::unexpected<TransportError>;

constexpr size_t kMaxHeaderBytes = 64 * 1024;
constexpr size_t kReadChunkBytes = 64 * 1024;

Failed Fail(TransportFailure failure, std::string detail) {
  return tl::unexpected(TransportError{failure, std::move(detail)});
}

Failed Closed() {
  return Fail(TransportFailure::kClosed, "the connection closed before a complete answer arrived");
}

int MillisLeft(SteadyClock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - SteadyClock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, INT_MAX));
}

// Waits until `fd` is ready for `events`; false when `deadline` passed first. An error on the
// socket counts as ready: the next call on it reports the error.
bool WaitFor(int fd, short events, SteadyClock::time_point deadline) {
  for (;;) {
    pollfd entry{.fd = fd, .events = events, .revents = 0};
    const int ready = poll(&entry, 1, MillisLeft(deadline));
    if (ready > 0) return true;
    if (ready == 0) return false;
    if (errno != EINTR) return true;
  }
}

bool IsIpAddress(const std::string& host) {
  in6_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1 ||
         inet_pton(AF_INET6, host.c_str(), &address) == 1;
}

std::string OpenSslError(const OpenSslLibrary& ssl) {
  const unsigned long code = ssl.err_get_error();
  if (code == 0) return "no detail";
  std::array<char, 256> text{};
  ssl.err_error_string_n(code, text.data(), text.size());
  return text.data();
}

// One connected socket, plain or TLS, with blocking semantics over a non-blocking descriptor
// (so that every wait has a deadline).
class Connection {
 public:
  Connection(int fd, int io_timeout_s) : fd_(fd), io_timeout_(io_timeout_s) {}
  ~Connection() {
    if (ssl_ != nullptr) library_->ssl_free(ssl_);
    if (context_ != nullptr) library_->ctx_free(context_);
    close(fd_);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  tl::expected<void, TransportError> StartTls(const ServerUrl& url,
                                              const TransportOptions& options) {
    // OpenSSL writes to the socket with write(), not send(MSG_NOSIGNAL): a server that closes
    // mid-request must fail the write, not kill the CLI.
    signal(SIGPIPE, SIG_IGN);
    const auto library = LoadOpenSsl();
    if (!library) return Fail(TransportFailure::kTlsHandshake, library.error());
    library_ = *library;
    const OpenSslLibrary& ssl = *library_;
    context_ = ssl.ctx_new(ssl.tls_client_method());
    if (context_ == nullptr) {
      return Fail(TransportFailure::kTlsHandshake, "cannot set up TLS: " + OpenSslError(ssl));
    }
    // SSL_CTX_set_min_proto_version and SSL_set_tlsext_host_name are macros over these ctrls.
    ssl.ctx_ctrl(context_, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, nullptr);
    const bool verify = options.verify_certificate;
    if (verify) {
      ssl.ctx_set_verify(context_, SSL_VERIFY_PEER, nullptr);
      const bool loaded =
          options.ca_cert_file.empty()
              ? ssl.ctx_set_default_verify_paths(context_) == 1
              : ssl.ctx_load_verify_locations(context_, options.ca_cert_file.c_str(), nullptr) == 1;
      if (!loaded) {
        return Fail(
            TransportFailure::kTlsVerification,
            fmt::format("cannot read CA certificates from {}: {}",
                        options.ca_cert_file.empty() ? "the system's store" : options.ca_cert_file,
                        OpenSslError(ssl)));
      }
    }
    ssl_ = ssl.ssl_new(context_);
    if (ssl_ == nullptr || ssl.set_fd(ssl_, fd_) != 1) {
      return Fail(TransportFailure::kTlsHandshake, "cannot set up TLS: " + OpenSslError(ssl));
    }
    const bool ip = IsIpAddress(url.host);
    if (!ip) {
      ssl.ssl_ctrl(ssl_, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
                   const_cast<char*>(url.host.c_str()));
    }
    if (verify) {
      const int named = ip ? ssl.verify_param_set1_ip_asc(ssl.get0_param(ssl_), url.host.c_str())
                           : ssl.set1_host(ssl_, url.host.c_str());
      if (named != 1) {
        return Fail(TransportFailure::kTlsHandshake,
                    fmt::format("cannot check the certificate against host {}", url.host));
      }
    }
    const auto deadline = Deadline();
    for (;;) {
      const int done = ssl.connect(ssl_);
      if (done == 1) return {};
      const int error = ssl.get_error(ssl_, done);
      if (error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE) {
        if (!WaitFor(fd_, error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT, deadline)) {
          return TimedOut();
        }
        continue;
      }
      const long verified = ssl.get_verify_result(ssl_);
      if (verify && verified != X509_V_OK) {
        return Fail(TransportFailure::kTlsVerification,
                    fmt::format("TLS certificate verification failed: {}",
                                ssl.verify_cert_error_string(verified)));
      }
      return Fail(TransportFailure::kTlsHandshake,
                  "TLS handshake failed (is the server really speaking https?)");
    }
  }

  tl::expected<void, TransportError> WriteAll(std::string_view data) {
    const auto deadline = Deadline();
    while (!data.empty()) {
      ssize_t sent = 0;
      short wait = POLLOUT;
      if (ssl_ != nullptr) {
        const int n = library_->write(ssl_, data.data(),
                                      static_cast<int>(std::min<size_t>(data.size(), INT_MAX)));
        if (n > 0) {
          sent = n;
        } else {
          const int error = library_->get_error(ssl_, n);
          if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) return Closed();
          wait = error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
        }
      } else {
        sent = send(fd_, data.data(), data.size(), MSG_NOSIGNAL);
        if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          return Closed();
        }
      }
      if (sent > 0) {
        data.remove_prefix(static_cast<size_t>(sent));
      } else if (!WaitFor(fd_, wait, deadline)) {
        return TimedOut();
      }
    }
    return {};
  }

  // Appends what arrives next to `buffer`: the byte count, 0 at the end of the stream.
  tl::expected<size_t, TransportError> ReadSome(std::string& buffer) {
    const auto deadline = Deadline();
    const size_t old_size = buffer.size();
    buffer.resize(old_size + kReadChunkBytes);
    char* into = buffer.data() + old_size;
    for (;;) {
      short wait = POLLIN;
      if (ssl_ != nullptr) {
        const int n = library_->read(ssl_, into, static_cast<int>(kReadChunkBytes));
        if (n > 0) return Keep(buffer, old_size, static_cast<size_t>(n));
        const int error = library_->get_error(ssl_, n);
        // A close with or without TLS's close_notify: the framing checks for a cut answer.
        if (error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE) {
          return Keep(buffer, old_size, 0);
        }
        wait = error == SSL_ERROR_WANT_READ ? POLLIN : POLLOUT;
      } else {
        const ssize_t n = recv(fd_, into, kReadChunkBytes, 0);
        if (n >= 0) return Keep(buffer, old_size, static_cast<size_t>(n));
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
          buffer.resize(old_size);
          return Closed();
        }
      }
      if (!WaitFor(fd_, wait, deadline)) {
        buffer.resize(old_size);
        return TimedOut();
      }
    }
  }

 private:
  SteadyClock::time_point Deadline() const {
    return SteadyClock::now() + std::chrono::seconds(io_timeout_);
  }
  Failed TimedOut() const {
    return Fail(TransportFailure::kTimeout, fmt::format("no answer within {} s", io_timeout_));
  }
  static size_t Keep(std::string& buffer, size_t old_size, size_t received) {
    buffer.resize(old_size + received);
    return received;
  }

  int fd_;
  int io_timeout_;
  const OpenSslLibrary* library_ = nullptr;  // set with context_, by StartTls
  SSL_CTX* context_ = nullptr;
  SSL* ssl_ = nullptr;
};

tl::expected<int, TransportError> Connect(const ServerUrl& url, int timeout_s) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url.port);
  if (const int failed = getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found)) {
    return Fail(TransportFailure::kConnect,
                fmt::format("cannot resolve {}: {}", url.host, gai_strerror(failed)));
  }
  const std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> addresses(found, &freeaddrinfo);
  const auto deadline = SteadyClock::now() + std::chrono::seconds(timeout_s);
  for (const addrinfo* address = found; address != nullptr; address = address->ai_next) {
    const int fd = socket(address->ai_family, address->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
                          address->ai_protocol);
    if (fd < 0) continue;
    bool connected = connect(fd, address->ai_addr, address->ai_addrlen) == 0;
    if (!connected && errno == EINPROGRESS) {
      if (!WaitFor(fd, POLLOUT, deadline)) {
        close(fd);
        return Fail(TransportFailure::kConnectTimeout,
                    fmt::format("no connection within {} s", timeout_s));
      }
      int error = 0;
      socklen_t length = sizeof error;
      connected = getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0 && error == 0;
    }
    if (!connected) {
      close(fd);
      continue;
    }
    const int on = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
    return fd;
  }
  return Fail(TransportFailure::kConnect, "connection refused or host unreachable");
}

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](unsigned char x, unsigned char y) {
    return std::tolower(x) == std::tolower(y);
  });
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

struct AnswerHead {
  int status = 0;
  std::optional<size_t> content_length;
  bool chunked = false;
};

// The status line and the headers that frame the body, from the header block (no final CRLF).
tl::expected<AnswerHead, TransportError> ParseHead(std::string_view block) {
  const auto bad = [](std::string what) {
    return Fail(TransportFailure::kBadAnswer, "the answer is not HTTP/1.x: " + what);
  };
  AnswerHead head;
  const size_t line_end = std::min(block.find("\r\n"), block.size());
  const std::string_view status_line = block.substr(0, line_end);
  if (!status_line.starts_with("HTTP/1.") || status_line.size() < 12 || status_line[8] != ' ' ||
      std::from_chars(status_line.data() + 9, status_line.data() + 12, head.status).ec !=
          std::errc() ||
      head.status < 100 || head.status > 999) {
    return bad("bad status line");
  }
  std::string_view rest = block.substr(std::min(line_end + 2, block.size()));
  while (!rest.empty()) {
    const size_t end = std::min(rest.find("\r\n"), rest.size());
    const std::string_view line = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 2, rest.size()));
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return bad("a header line without ':'");
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsIgnoringCase(name, "Content-Length")) {
      size_t length = 0;
      const auto parsed = std::from_chars(value.data(), value.data() + value.size(), length);
      if (parsed.ec != std::errc() || parsed.ptr != value.data() + value.size()) {
        return bad("a Content-Length that is not a number");
      }
      head.content_length = length;
    } else if (EqualsIgnoringCase(name, "Transfer-Encoding")) {
      head.chunked =
          value.size() >= 7 && EqualsIgnoringCase(value.substr(value.size() - 7), "chunked");
    }
  }
  return head;
}

Failed TooLarge() {
  return Fail(TransportFailure::kBadAnswer,
              fmt::format("the answer is larger than {} MiB", kMaxAnswerBytes >> 20));
}

// Appends the next bytes to `raw`; the stream's end is a cut answer.
tl::expected<void, TransportError> ReadMore(Connection& connection, std::string& raw) {
  auto received = connection.ReadSome(raw);
  if (!received) return tl::unexpected(received.error());
  if (*received == 0) return Closed();
  return {};
}

tl::expected<HttpAnswer, TransportError> ReadAnswer(Connection& connection) {
  std::string raw;
  size_t block_end = 0;
  AnswerHead head;
  for (;;) {  // Header blocks; an interim 1xx answer is followed by the real one.
    while ((block_end = raw.find("\r\n\r\n")) == std::string::npos) {
      if (raw.size() > kMaxHeaderBytes) {
        return Fail(TransportFailure::kBadAnswer, "the answer's headers exceed 64 KiB");
      }
      if (auto more = ReadMore(connection, raw); !more) return tl::unexpected(more.error());
    }
    auto parsed = ParseHead(std::string_view(raw).substr(0, block_end));
    if (!parsed) return tl::unexpected(parsed.error());
    raw.erase(0, block_end + 4);
    if (parsed->status >= 200) {
      head = *parsed;
      break;
    }
  }
  HttpAnswer answer{.status = head.status, .body = {}};
  if (head.chunked) {
    ChunkedBody chunks(kMaxAnswerBytes);
    for (;;) {
      const ChunkedBody::State state = chunks.Feed(raw);
      raw.clear();
      if (state == ChunkedBody::State::kMalformed) {
        return Fail(TransportFailure::kBadAnswer, "the answer's chunked body: " + chunks.error());
      }
      if (state == ChunkedBody::State::kComplete) break;
      if (auto more = ReadMore(connection, raw); !more) return tl::unexpected(more.error());
    }
    answer.body = chunks.TakeBody();
    return answer;
  }
  if (head.content_length) {
    if (*head.content_length > kMaxAnswerBytes) return TooLarge();
    raw.reserve(*head.content_length);
    while (raw.size() < *head.content_length) {
      if (auto more = ReadMore(connection, raw); !more) return tl::unexpected(more.error());
    }
    raw.resize(*head.content_length);
    answer.body = std::move(raw);
    return answer;
  }
  for (;;) {  // Neither: the body runs to the close.
    if (raw.size() > kMaxAnswerBytes) return TooLarge();
    auto received = connection.ReadSome(raw);
    if (!received) return tl::unexpected(received.error());
    if (*received == 0) break;
  }
  answer.body = std::move(raw);
  return answer;
}

}  // namespace

tl::expected<HttpAnswer, TransportError> Exchange(const ServerUrl& url,
                                                  const TransportOptions& options,
                                                  std::string_view method, std::string_view target,
                                                  const HttpHeaders& headers,
                                                  std::string_view body) {
  auto fd = Connect(url, options.connect_timeout_s);
  if (!fd) return tl::unexpected(fd.error());
  Connection connection(*fd, options.io_timeout_s);
  if (url.scheme == "https") {
    if (auto started = connection.StartTls(url, options); !started) {
      return tl::unexpected(started.error());
    }
  }
  std::string request =
      fmt::format("{} {} HTTP/1.1\r\nHost: {}\r\n", method, target, url.HostPort());
  for (const auto& [name, value] : headers) request += fmt::format("{}: {}\r\n", name, value);
  request += fmt::format("Content-Length: {}\r\nConnection: close\r\n\r\n", body.size());
  request.append(body);
  if (auto written = connection.WriteAll(request); !written) return tl::unexpected(written.error());
  return ReadAnswer(connection);
}

}  // namespace headroom::cli
