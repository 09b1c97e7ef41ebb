#include "control/http_server.h"

#include <microhttpd.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdarg>
#include <cstring>

#include "base/check.h"
#include "control/logging.h"
#include "control/thread_name.h"

namespace headroom::control {

struct HttpServer::Exchange {
  HttpRequest request;
  HttpResponse response;
  const Router::Route* route = nullptr;
  bool ready = false;  // `response` is the answer; queue it on the next call.
  // The answer is decided (a rejection); the rest of the body is read and dropped, so that the
  // client, still sending, gets it instead of a reset.
  bool discard_body = false;
  size_t discarded_bytes = 0;
};

namespace {

std::string Lower(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

std::string Get(const std::map<std::string, std::string>& values, const std::string& key) {
  auto it = values.find(key);
  return it == values.end() ? std::string() : it->second;
}

MHD_Result CollectHeader(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto& headers = *static_cast<std::map<std::string, std::string>*>(cls);
  headers[Lower(key)] = value == nullptr ? "" : value;
  return MHD_YES;
}

MHD_Result CollectParam(void* cls, MHD_ValueKind, const char* key, const char* value) {
  auto& params = *static_cast<std::map<std::string, std::string>*>(cls);
  params.emplace(key, value == nullptr ? "" : value);
  return MHD_YES;
}

MHD_Result Queue(MHD_Connection* connection, const HttpResponse& response) {
  MHD_Response* reply = MHD_create_response_from_buffer(
      response.body.size(), const_cast<char*>(response.body.data()), MHD_RESPMEM_MUST_COPY);
  if (reply == nullptr) return MHD_NO;
  MHD_add_response_header(reply, MHD_HTTP_HEADER_CONTENT_TYPE, response.content_type.c_str());
  const MHD_Result queued =
      MHD_queue_response(connection, static_cast<unsigned>(response.status), reply);
  MHD_destroy_response(reply);
  return queued;
}

void Log(void*, const char* format, va_list args) {
  char line[512];
  std::vsnprintf(line, sizeof line, format, args);
  std::string text(line);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  // Hostile or broken clients are normal at this boundary: their errors are debug detail.
  LogDebug("http: {}", text);
}

Result<int> Listen(const std::string& host, int port, int backlog) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* addresses = nullptr;
  const std::string service = std::to_string(port);
  if (::getaddrinfo(host.c_str(), service.c_str(), &hints, &addresses) != 0 ||
      addresses == nullptr) {
    return MakeError(ErrorCode::kIo, "cannot listen on {}:{}: not a local address", host, port);
  }
  std::string failure = "no address";
  int fd = -1;
  for (addrinfo* a = addresses; a != nullptr && fd < 0; a = a->ai_next) {
    fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int on = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (::bind(fd, a->ai_addr, a->ai_addrlen) != 0 || ::listen(fd, backlog) != 0) {
      failure = std::strerror(errno);
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(addresses);
  if (fd < 0) {
    return MakeError(ErrorCode::kIo, "cannot listen on {}:{}: {}", host, port, failure);
  }
  return fd;
}

int BoundPort(int fd) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) return -1;
  if (address.ss_family == AF_INET6) {
    return ntohs(reinterpret_cast<sockaddr_in6*>(&address)->sin6_port);
  }
  return ntohs(reinterpret_cast<sockaddr_in*>(&address)->sin_port);
}

}  // namespace

bool HttpRequest::has_header(const std::string& name) const {
  return headers.count(Lower(name)) > 0;
}

std::string HttpRequest::get_header_value(const std::string& name) const {
  return Get(headers, Lower(name));
}

std::string HttpRequest::get_param_value(const std::string& name) const {
  return Get(params, name);
}

namespace {

// "/a/{}/b" -> {"a", "{}", "b"}; "/" -> {""}.
std::vector<std::string> Segments(std::string_view path) {
  HR_CHECK(!path.empty() && path.front() == '/');
  std::vector<std::string> segments;
  size_t begin = 1;
  while (true) {
    const size_t end = path.find('/', begin);
    segments.emplace_back(path.substr(begin, end - begin));
    if (end == std::string_view::npos) return segments;
    begin = end + 1;
  }
}

}  // namespace

void Router::Get(const std::string& pattern, HttpHandler handler, RouteAccess access,
                 RouteRunner runner) {
  routes_.push_back(Route{"GET", Segments(pattern), std::move(handler), access, runner});
}

void Router::Post(const std::string& pattern, HttpHandler handler, RouteAccess access,
                  RouteRunner runner) {
  routes_.push_back(Route{"POST", Segments(pattern), std::move(handler), access, runner});
}

void Router::Put(const std::string& pattern, HttpHandler handler, RouteAccess access,
                 RouteRunner runner) {
  routes_.push_back(Route{"PUT", Segments(pattern), std::move(handler), access, runner});
}

const Router::Route* Router::Find(const std::string& method, const std::string& path,
                                  std::vector<std::string>& matches) const {
  matches.clear();
  if (path.empty() || path.front() != '/') return nullptr;
  const std::string_view rest = std::string_view(path).substr(1);
  for (const Route& route : routes_) {
    if (route.method != method) continue;
    matches.assign(1, path);
    size_t begin = 0;
    bool matched = true;
    for (size_t i = 0; i < route.segments.size() && matched; ++i) {
      const size_t end = rest.find('/', begin);
      const bool last = i + 1 == route.segments.size();
      // The pattern's last segment must end the path; any other must not.
      if (last != (end == std::string_view::npos)) {
        matched = false;
        break;
      }
      const std::string_view segment = rest.substr(begin, end - begin);
      if (route.segments[i] == "{}") {
        matched = !segment.empty();
        matches.emplace_back(segment);
      } else {
        matched = segment == route.segments[i];
      }
      begin = end + 1;
    }
    if (matched) return &route;
  }
  matches.clear();
  return nullptr;
}

// libmicrohttpd's C callbacks, forwarding to the server.
struct HttpServerCallbacks {
  static MHD_Result Access(void* self, MHD_Connection* connection, const char* url,
                           const char* method, const char*, const char* upload_data,
                           size_t* upload_data_size, void** exchange) {
    return static_cast<MHD_Result>(static_cast<HttpServer*>(self)->Access(
        connection, url, method, upload_data, upload_data_size, exchange));
  }
  static void Completed(void*, MHD_Connection*, void** exchange, MHD_RequestTerminationCode) {
    delete static_cast<HttpServer::Exchange*>(*exchange);
    *exchange = nullptr;
  }
};

HttpServer::HttpServer(Router router, HttpServerOptions options)
    : router_(std::move(router)), options_(std::move(options)) {}

Result<std::unique_ptr<HttpServer>> HttpServer::Start(Router router, HttpServerOptions options) {
  HR_CHECK(options.authorize && options.write_error && options.latest_seq && options.wait_for_seq);
  static const SystemClock kSystemClock(1.0, 0);
  if (options.clock == nullptr) options.clock = &kSystemClock;
  std::unique_ptr<HttpServer> server(new HttpServer(std::move(router), std::move(options)));
  const HttpServerOptions& o = server->options_;
  auto fd = Listen(o.host, o.port, o.listen_backlog);
  if (!fd) return tl::unexpected(fd.error());
  server->listen_fd_ = *fd;
  server->port_ = BoundPort(*fd);
  server->pool_ = std::make_unique<WorkerPool>(o.workers, o.max_queued);

  unsigned flags =
      MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ITC | MHD_USE_ERROR_LOG;
  const bool tls = !o.tls_cert_pem.empty() || !o.tls_key_pem.empty();
  if (tls) flags |= MHD_USE_TLS;
  // The logger first: libmicrohttpd reports the options before it with its own logger.
  std::vector<MHD_OptionItem> items = {
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&Log), nullptr},
      {MHD_OPTION_LISTEN_SOCKET, server->listen_fd_, nullptr},
      {MHD_OPTION_THREAD_POOL_SIZE, static_cast<intptr_t>(o.event_threads), nullptr},
      {MHD_OPTION_CONNECTION_LIMIT, static_cast<intptr_t>(o.max_connections), nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(o.idle_timeout_s), nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(o.connection_memory_bytes),
       nullptr},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&HttpServerCallbacks::Completed),
       nullptr},
  };
  if (tls) {
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, const_cast<char*>(o.tls_cert_pem.c_str())});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, const_cast<char*>(o.tls_key_pem.c_str())});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  server->daemon_ = MHD_start_daemon(flags, 0, nullptr, nullptr, &HttpServerCallbacks::Access,
                                     server.get(), MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (server->daemon_ == nullptr) {
    ::close(server->listen_fd_);
    server->listen_fd_ = -1;
    server->pool_->Stop();
    if (tls) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "cannot serve HTTPS on {}:{} with this TLS certificate and key: check "
                       "both are PEM files and belong together",
                       o.host, server->port_);
    }
    return MakeError(ErrorCode::kIo, "cannot serve HTTP on {}:{}", o.host, server->port_);
  }
  server->parked_thread_ = std::thread([s = server.get()] { s->ParkedLoop(); });
  return server;
}

HttpServer::~HttpServer() { Stop(); }

std::string HttpServer::TooLarge() const {
  return fmt::format("the body is larger than {} bytes; split the request",
                     options_.max_body_bytes);
}

void HttpServer::Decide(Exchange& exchange, int status, const std::string& message) {
  ++rejected_total_;
  options_.write_error(exchange.response, status, message);
  exchange.ready = true;
  exchange.discard_body = true;
}

int HttpServer::Reject(MHD_Connection* connection, Exchange& exchange, int status,
                       const std::string& message) {
  ++rejected_total_;
  options_.write_error(exchange.response, status, message);
  return Queue(connection, exchange.response);
}

int HttpServer::Access(MHD_Connection* connection, const char* url, const char* method,
                       const char* upload_data, size_t* upload_data_size, void** exchange) {
  if (*exchange == nullptr) {
    auto* fresh = new Exchange();
    *exchange = fresh;
    ++requests_total_;
    return Begin(connection, url, method, *fresh);
  }
  Exchange& current = *static_cast<Exchange*>(*exchange);
  if (*upload_data_size != 0) {
    const size_t size = *upload_data_size;
    *upload_data_size = 0;
    if (!current.discard_body && current.request.body.size() + size > options_.max_body_bytes) {
      // A body without a declared length has outgrown the limit.
      Decide(current, 413, TooLarge());
      current.request.body.clear();
      current.request.body.shrink_to_fit();
    }
    if (current.discard_body) {
      current.discarded_bytes += size;
      if (current.discarded_bytes > options_.max_discard_bytes) {
        // Endless or huge: stop reading; a response cannot be queued mid-upload, so close.
        LogDebug("http: {} {}: body dropped after {} bytes, connection closed",
                 current.request.method, current.request.path, current.discarded_bytes);
        return MHD_NO;
      }
      return MHD_YES;
    }
    current.request.body.append(upload_data, size);
    return MHD_YES;
  }
  return Dispatch(connection, current);
}

int HttpServer::Begin(MHD_Connection* connection, const char* url, const char* method,
                      Exchange& exchange) {
  HttpRequest& request = exchange.request;
  request.method = method;
  request.path = url;
  MHD_get_connection_values(connection, MHD_HEADER_KIND, &CollectHeader, &request.headers);
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &CollectParam, &request.params);
  // Rejections before the body: the body is never held. One whose declared length is beyond
  // what we are willing to read and drop is answered now and the connection closed.
  if (request.has_header("content-length")) {
    const std::string declared = request.get_header_value("content-length");
    const bool digits =
        !declared.empty() && declared.size() <= 19 &&
        std::all_of(declared.begin(), declared.end(), [](char c) { return c >= '0' && c <= '9'; });
    const uint64_t length = digits ? std::stoull(declared) : UINT64_MAX;
    if (length > options_.max_discard_bytes) {
      return Reject(connection, exchange, 413, TooLarge());
    }
    if (length > options_.max_body_bytes) {
      Decide(exchange, 413, TooLarge());
      return MHD_YES;
    }
  }
  const std::string encoding = Lower(request.get_header_value("content-encoding"));
  exchange.route = router_.Find(request.method, request.path, request.matches);
  if (!encoding.empty() && encoding != "identity") {
    Decide(exchange, 415,
           "request bodies are not accepted compressed (Content-Encoding); send them "
           "uncompressed");
  } else if (exchange.route == nullptr) {
    Decide(exchange, 404, "no such route; see docs/api.md for the v1 paths");
  } else if (exchange.route->access == RouteAccess::kToken &&
             !(request.principal = options_.authorize(request.get_header_value("authorization")))) {
    Decide(exchange, 401,
           request.has_header("authorization")
               ? "unknown token; ask an admin for a token (POST /v1/tokens)"
               : "missing 'Authorization: Bearer <token>'; an admin token is in "
                 "DATA_DIR/admin.token, others come from POST /v1/tokens");
  }
  return MHD_YES;
}

namespace {

void Run(const Router::Route& route, HttpRequest& request, HttpResponse& response) {
  try {
    route.handler(request, response);
  } catch (const std::exception& e) {
    LogError("request {} {} failed: {}", request.method, request.path, e.what());
    response = HttpResponse{};
    response.status = 500;
    response.body = R"({"error":{"code":"internal","message":"internal error"}})";
  }
}

}  // namespace

int HttpServer::Dispatch(MHD_Connection* connection, Exchange& exchange) {
  if (exchange.ready) return Queue(connection, exchange.response);
  if (exchange.route->runner == RouteRunner::kInline) {
    exchange.request.on_event_thread = true;
    Run(*exchange.route, exchange.request, exchange.response);
    exchange.request.on_event_thread = false;
    if (!exchange.response.run_on_pool) return Queue(connection, exchange.response);
  }
  RunOnPool(connection, exchange);
  return MHD_YES;
}

void HttpServer::RunOnPool(MHD_Connection* connection, Exchange& exchange) {
  MHD_suspend_connection(connection);
  ++suspended_;
  Exchange* held = &exchange;
  const bool queued = pool_->TrySubmit([this, connection, held] {
    held->response = HttpResponse{};
    Run(*held->route, held->request, held->response);
    if (held->response.long_poll && !held->request.long_poll_final) {
      Park(connection, *held);
      return;
    }
    Resume(connection, *held);
  });
  if (!queued) {
    ++rejected_total_;
    bool stopping = false;
    {
      std::lock_guard lock(parked_mu_);
      stopping = stopping_;
    }
    options_.write_error(exchange.response, 503,
                         stopping ? "the server is stopping; retry"
                                  : "the server is busy (request queue full); retry in a moment");
    Resume(connection, exchange);
  }
}

void HttpServer::Resume(MHD_Connection* connection, Exchange& exchange) {
  exchange.ready = true;
  MHD_resume_connection(connection);  // The last touch: the exchange may be freed from here on.
  --suspended_;
}

void HttpServer::Park(MHD_Connection* connection, Exchange& exchange) {
  const std::string token = exchange.request.get_header_value("authorization");
  const LongPoll poll = *exchange.response.long_poll;
  bool stopping = false;
  {
    std::lock_guard lock(parked_mu_);
    size_t& by_token = parked_by_token_[token];
    const bool full =
        parked_.size() >= options_.max_long_polls || by_token >= options_.max_long_polls_per_token;
    if (!full && !stopping_) {
      ++by_token;
      parked_.push_back(
          Parked{connection, &exchange, poll.after_seq, options_.clock->SteadyNow() + poll.wait});
      parked_cv_.notify_one();
      return;
    }
    if (by_token == 0) parked_by_token_.erase(token);
    stopping = stopping_;
  }
  ++rejected_total_;
  exchange.response = HttpResponse{};
  if (stopping) {
    options_.write_error(exchange.response, 503, "the server is stopping; retry");
  } else {
    options_.write_error(exchange.response, 429,
                         fmt::format("too many long-polls open (at most {} per token, {} in all); "
                                     "close one or poll without wait_s",
                                     options_.max_long_polls_per_token, options_.max_long_polls));
  }
  Resume(connection, exchange);
}

void HttpServer::ParkedLoop() {
  NameThisThread("hr-parked");
  while (true) {
    std::vector<Parked> due;
    uint64_t latest = 0;
    auto nearest = std::chrono::steady_clock::time_point::max();
    bool stopping = false;
    {
      std::unique_lock lock(parked_mu_);
      parked_cv_.wait(lock, [&] { return stopping_ || !parked_.empty(); });
      stopping = stopping_;
      latest = options_.latest_seq();
      const auto now = options_.clock->SteadyNow();
      auto keep = std::partition(parked_.begin(), parked_.end(), [&](const Parked& p) {
        return !stopping && latest <= p.after_seq && now < p.deadline;
      });
      for (auto it = parked_.begin(); it != keep; ++it) nearest = std::min(nearest, it->deadline);
      due.assign(keep, parked_.end());
      parked_.erase(keep, parked_.end());
      for (const Parked& p : due) {
        const std::string token = p.exchange->request.get_header_value("authorization");
        if (--parked_by_token_[token] == 0) parked_by_token_.erase(token);
      }
    }
    for (const Parked& p : due) {
      Exchange* held = p.exchange;
      MHD_Connection* connection = p.connection;
      held->request.long_poll_final = true;
      const bool queued = !stopping && pool_->TrySubmit([this, connection, held] {
        held->response = HttpResponse{};
        Run(*held->route, held->request, held->response);
        Resume(connection, *held);
      });
      if (!queued) {
        held->response = HttpResponse{};
        options_.write_error(held->response, 503, "the server is stopping; retry");
        Resume(connection, *held);
      }
    }
    if (stopping) return;
    if (due.empty()) {
      // Bounded so that a request parked during the wait is looked at soon.
      auto wait = std::chrono::milliseconds(200);
      if (nearest != std::chrono::steady_clock::time_point::max()) {
        wait = std::min(wait, std::chrono::duration_cast<std::chrono::milliseconds>(
                                  nearest - options_.clock->SteadyNow()) +
                                  std::chrono::milliseconds(1));
      }
      if (wait.count() > 0) options_.wait_for_seq(latest, wait);
    }
  }
}

size_t HttpServer::parked() const {
  std::lock_guard lock(parked_mu_);
  return parked_.size();
}

void HttpServer::Stop() {
  if (stopped_ || daemon_ == nullptr) return;
  stopped_ = true;
  // Not MHD_quiesce_daemon: with epoll event threads it races their own removal of the listen
  // socket from their epoll sets, and the loser's epoll_ctl failing aborts the process (an open
  // libmicrohttpd defect, seen in this suite with 0.9.75). Requests that arrive while the server
  // drains are answered 503 instead (RunOnPool, Park).
  {
    std::lock_guard lock(parked_mu_);
    stopping_ = true;
  }
  parked_cv_.notify_all();
  if (parked_thread_.joinable()) parked_thread_.join();
  pool_->Stop();  // Runs what is queued; each task resumes its connection.
  // Joins the event threads (a request they take from here on is refused and resumed within its
  // own callback), closes every connection and the listen socket.
  MHD_stop_daemon(daemon_);
  daemon_ = nullptr;
  HR_CHECK(suspended_.load() == 0);
  listen_fd_ = -1;
}

}  // namespace headroom::control
