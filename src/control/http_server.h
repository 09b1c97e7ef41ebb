// HttpServer: an event-driven HTTP/1.1 (and HTTPS) server on GNU libmicrohttpd. Connections are
// held by a few epoll threads, never by a thread each; a request whose body is complete runs on
// a bounded WorkerPool while its connection is suspended, so thousands of idle, slow or
// long-polling clients cost memory, not threads (docs/control.md "Serving" says why this
// library).
//
// Promises, in the order a request meets them:
//  1. Headers are bounded by the per-connection memory limit (MHD answers 431 beyond it).
//  2. No body is ever held beyond max_body_bytes, however it is sent (declared length or
//     chunked); beyond it the answer is 413. A Content-Encoding other than identity gets 415.
//  3. Unknown routes get 404 and routes not marked public get 401 unless `authorize` accepts
//     the Authorization header, both decided before a byte of the body is held. The principal
//     it returned rides on the request, so a handler need not authenticate again.
//     A rejected request's body is read and dropped (so that a client still sending gets the
//     answer, not a reset) up to max_discard_bytes; past that the connection closes.
//  4. Inline routes (cheap, no locks held long) answer on the event thread unless their handler
//     asks for the pool (HttpResponse::run_on_pool); others run on the pool, and get 503 at
//     once when its queue is full.
//  5. A handler may park its request as a long-poll: it is run again with
//     `long_poll_final` set when `latest_seq` passes the request's cursor or its wait ends;
//     parked requests hold no thread, and at most max_long_polls_per_token per Authorization
//     value (429 beyond).
//  6. Stop answers every parked and running request, then closes every connection.
// Threading: Start and Stop from one thread; handlers on the event threads (inline routes) or
// the pool.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/result.h"
#include "control/clock.h"
#include "control/token_auth.h"
#include "control/worker_pool.h"

struct MHD_Daemon;
struct MHD_Connection;

namespace headroom::control {

struct HttpRequest {
  std::string method;
  std::string path;
  std::string body;
  std::map<std::string, std::string> headers;  // Keys lower-cased.
  std::map<std::string, std::string> params;   // Query string, decoded.
  std::vector<std::string> matches;            // [0] the path, then the route's groups.
  // A parked long-poll run for the last time: answer with whatever there is.
  bool long_poll_final = false;
  // An inline route's handler runs on the event thread first; there it must not wait on a lock
  // that may be held long, and may ask to be run again on the pool instead (HttpResponse).
  bool on_event_thread = false;
  // Who `authorize` found the Authorization header to name; absent on public routes.
  std::optional<Principal> principal;

  bool has_header(const std::string& name) const;
  std::string get_header_value(const std::string& name) const;  // "" when absent.
  bool has_param(const std::string& name) const { return params.count(name) > 0; }
  std::string get_param_value(const std::string& name) const;  // "" when absent.
};

// A handler's request to wait: run me again once latest_seq() > after_seq or `wait` has
// passed. after_seq should be a value of latest_seq() read before the handler looked.
struct LongPoll {
  uint64_t after_seq = 0;
  std::chrono::milliseconds wait{0};
};

struct HttpResponse {
  int status = 200;
  std::string body;
  std::string content_type = "application/json";
  std::optional<LongPoll> long_poll;
  // Set by an inline route's handler on the event thread: discard this response and run the
  // handler again on the pool (it would have waited).
  bool run_on_pool = false;

  void set_content(std::string content, const std::string& type) {
    body = std::move(content);
    content_type = type;
  }
};

using HttpHandler = std::function<void(const HttpRequest&, HttpResponse&)>;

enum class RouteAccess { kToken, kPublic };
enum class RouteRunner { kPool, kInline };

// Routes matched in registration order; a pattern must match the whole path. A pattern is a
// path whose segments are literal or `{}`, which matches one non-empty segment and is passed to
// the handler in `matches` (no regular expressions: they cost more than a heartbeat's handler).
class Router {
 public:
  void Get(const std::string& pattern, HttpHandler handler,
           RouteAccess access = RouteAccess::kToken, RouteRunner runner = RouteRunner::kPool);
  void Post(const std::string& pattern, HttpHandler handler,
            RouteAccess access = RouteAccess::kToken, RouteRunner runner = RouteRunner::kPool);
  void Put(const std::string& pattern, HttpHandler handler,
           RouteAccess access = RouteAccess::kToken, RouteRunner runner = RouteRunner::kPool);

  struct Route {
    std::string method;
    std::vector<std::string> segments;  // After the leading '/'; "{}" matches any one.
    HttpHandler handler;
    RouteAccess access;
    RouteRunner runner;
  };
  // The route for method and path, with the match groups in `matches`; nullptr when none.
  const Route* Find(const std::string& method, const std::string& path,
                    std::vector<std::string>& matches) const;

 private:
  std::vector<Route> routes_;
};

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;              // 0: any free port.
  std::string tls_cert_pem;  // Both set: HTTPS.
  std::string tls_key_pem;
  size_t workers = 32;
  size_t max_queued = 4096;
  size_t event_threads = 2;
  size_t max_body_bytes = 1 << 20;
  size_t max_discard_bytes = 8 << 20;
  size_t connection_memory_bytes = 32 << 10;  // Headers and buffers of one connection.
  unsigned max_connections = 30000;
  unsigned idle_timeout_s = 60;
  int listen_backlog = 4096;
  size_t max_long_polls = 8192;
  size_t max_long_polls_per_token = 16;
  // Accepts the Authorization header of a non-public route before its body is read: who it
  // names, or nullopt.
  std::function<std::optional<Principal>(const std::string& authorization)> authorize;
  // Writes an error response (the API's {"error": ...} shape).
  std::function<void(HttpResponse&, int status, const std::string& message)> write_error;
  // Long-polls: the newest sequence number, and a wait until one newer than `seen` exists
  // (or `max_wait` passes).
  std::function<uint64_t()> latest_seq;
  std::function<void(uint64_t seen, std::chrono::milliseconds max_wait)> wait_for_seq;
  // Long-polls' deadlines: the daemon's clock, which outlives the server (nullptr: the system's).
  const Clock* clock = nullptr;
};

class HttpServer {
 public:
  static Result<std::unique_ptr<HttpServer>> Start(Router router, HttpServerOptions options);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  int port() const { return port_; }
  void Stop();  // Idempotent.

  // Counters for /metrics and tests.
  uint64_t requests_total() const { return requests_total_.load(); }
  uint64_t rejected_total() const { return rejected_total_.load(); }
  size_t parked() const;

  struct Exchange;  // One request in flight (http_server.cc).

 private:
  HttpServer(Router router, HttpServerOptions options);
  friend struct HttpServerCallbacks;  // libmicrohttpd's C callbacks (http_server.cc).
  int Access(MHD_Connection* connection, const char* url, const char* method,
             const char* upload_data, size_t* upload_data_size, void** exchange);
  int Begin(MHD_Connection* connection, const char* url, const char* method, Exchange& exchange);
  int Dispatch(MHD_Connection* connection, Exchange& exchange);
  void RunOnPool(MHD_Connection* connection, Exchange& exchange);
  void Park(MHD_Connection* connection, Exchange& exchange);
  // Marks the exchange's response ready and resumes its suspended connection.
  void Resume(MHD_Connection* connection, Exchange& exchange);
  void ParkedLoop();
  // Answers now (before the body; the connection closes after it).
  int Reject(MHD_Connection* connection, Exchange& exchange, int status,
             const std::string& message);
  // Decides the answer; the body is dropped and the answer sent once it has been read.
  void Decide(Exchange& exchange, int status, const std::string& message);
  std::string TooLarge() const;

  Router router_;
  HttpServerOptions options_;
  std::unique_ptr<WorkerPool> pool_;
  MHD_Daemon* daemon_ = nullptr;
  int listen_fd_ = -1;
  int port_ = 0;
  std::atomic<uint64_t> requests_total_{0};
  std::atomic<uint64_t> rejected_total_{0};
  std::atomic<int64_t> suspended_{0};  // Connections suspended (running or parked).

  struct Parked {
    MHD_Connection* connection;
    Exchange* exchange;
    uint64_t after_seq;
    std::chrono::steady_clock::time_point deadline;
  };
  mutable std::mutex parked_mu_;
  std::condition_variable parked_cv_;
  std::vector<Parked> parked_;
  std::map<std::string, size_t> parked_by_token_;
  bool stopping_ = false;
  std::thread parked_thread_;
  bool stopped_ = false;
};

}  // namespace headroom::control
