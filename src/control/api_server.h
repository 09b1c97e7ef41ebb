// ApiServer: headroomd's HTTP(S) front door (cpp-httplib). Binds the listen address (port 0
// picks a free port), serves docs/api.md on a pool of worker threads, turns every failure into
// {"error": {"code", "message"}} (including httplib's own: 404 route, 413 body over 1 MiB),
// and serves TLS when a certificate and key are given.
// Threading: Start and Stop from one thread; requests on the server's pool.
#pragma once

#include <memory>
#include <string>
#include <thread>

#include "base/result.h"
#include "control/api_routes.h"

namespace headroom::control {

struct ApiServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string tls_cert;  // Both set: HTTPS.
  std::string tls_key;
  size_t threads = 64;
  size_t max_body_bytes = 1 << 20;
};

class ApiServer {
 public:
  static Result<std::unique_ptr<ApiServer>> Start(ApiContext context, ApiServerOptions options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const { return port_; }
  void Stop();

 private:
  ApiServer(ApiContext context, std::unique_ptr<httplib::Server> server)
      : context_(context), server_(std::move(server)) {}

  ApiContext context_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace headroom::control
