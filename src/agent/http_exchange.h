// HttpExchange: one keep-alive HTTP/1.1 connection carrying one request at a time without
// blocking, driven by an epoll loop. The agent emulator (agent_emulator.h) holds one per emulated
// node, as each real agent holds its own connection, from a single thread: cpp-httplib's
// blocking client needs a thread per connection in flight, and on a 2-core machine the
// emulator's context switches took CPU from the daemon it measures.
//
// Promises:
//  1. A reply is complete when its header block and Content-Length bytes of body have arrived.
//     A reply without Content-Length (chunked or read-to-close), a header block over 64 KiB, a
//     body over 16 MiB or a malformed status line is an error naming what was wrong.
//  2. A request on a reused connection that the server had closed while idle (end of stream or
//     a reset before any byte of the reply) is sent once more on a new connection: the server
//     never read it. Any other failure, and a reply saying "Connection: close", closes the
//     socket; the next Start connects again.
//  3. The socket is registered with the epoll set given to Start under the caller's tag, for
//     exactly the readiness the exchange waits for, and removed when it closes.
// Threading: one owner thread.
#pragma once

#include <sys/socket.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace headroom::agent {

// The reply half: bytes in, a status and a body out. Pure, for tests.
class HttpReplyParser {
 public:
  enum class State { kIncomplete, kComplete, kMalformed };

  static constexpr size_t kMaxHeaderBytes = 64 * 1024;
  static constexpr size_t kMaxBodyBytes = 16 * 1024 * 1024;

  State Feed(std::string_view bytes);
  void Reset();

  int status() const { return status_; }
  const std::string& body() const { return body_; }
  bool keep_alive() const { return keep_alive_; }
  const std::string& error() const { return error_; }
  bool started() const { return started_; }

 private:
  State ParseHeaders(size_t header_end);
  State Malformed(std::string error);

  std::string buffer_;
  bool started_ = false;
  bool headers_done_ = false;
  size_t body_bytes_ = 0;
  int status_ = 0;
  bool keep_alive_ = true;
  std::string body_;
  std::string error_;
};

// The whole request text, HTTP/1.1 with a bearer token and a JSON body.
std::string JsonPostRequest(std::string_view host, std::string_view path, std::string_view token,
                            std::string_view body);

class HttpExchange {
 public:
  enum class Step { kPending, kDone, kFailed };

  HttpExchange() = default;
  ~HttpExchange();
  HttpExchange(HttpExchange&& other) noexcept;
  HttpExchange& operator=(HttpExchange&&) = delete;
  HttpExchange(const HttpExchange&) = delete;

  // Sends `request` to `address`, connecting first when there is no open connection.
  Step Start(int epoll_fd, const sockaddr_storage& address, socklen_t address_length,
             std::string request, uint64_t tag);
  // Advances on the epoll events reported for this exchange's socket.
  Step OnEvent(uint32_t events);
  // Drops the connection and whatever is in flight.
  void Close();
  // Gives up on the exchange in flight (the driver's timeout): closed, failed with `why`.
  Step Abandon(std::string why) { return Fail(std::move(why)); }

  bool in_flight() const { return in_flight_; }
  int status() const { return reply_.status(); }
  const std::string& body() const { return reply_.body(); }
  const std::string& error() const { return error_; }

 private:
  enum class Phase { kConnecting, kWriting, kReading };

  Step Connect();
  Step Write();
  Step Read();
  Step Fail(std::string error);
  // A reused connection the server closed while idle: once, send again on a fresh one.
  Step RetryOnFreshConnection(std::string_view why);
  void Watch(uint32_t events);
  void CloseSocket();

  int epoll_fd_ = -1;
  int fd_ = -1;
  sockaddr_storage address_{};
  socklen_t address_length_ = 0;
  uint64_t tag_ = 0;
  Phase phase_ = Phase::kWriting;
  bool in_flight_ = false;
  bool reused_ = false;  // The connection carried an earlier exchange.
  bool retried_ = false;
  uint32_t watched_ = 0;
  std::string request_;
  size_t written_ = 0;
  HttpReplyParser reply_;
  std::string error_;
};

}  // namespace headroom::agent
