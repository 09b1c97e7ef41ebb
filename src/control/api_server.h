// ApiServer: headroomd's HTTP(S) front door. Binds the listen address (port 0 picks a free
// port), serves docs/api.md on the event-driven HttpServer (bounded bodies and headers, the
// token checked before a body is read, long-polls parked without a thread), and turns every
// failure into {"error": {"code", "message"}}.
// Threading: Start and Stop from one thread; requests on the HttpServer's threads.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "control/api_routes.h"

namespace headroom::control {

struct ApiServerOptions {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string tls_cert;  // Both set: HTTPS.
  std::string tls_key;
  // Worker threads run requests whose bodies are complete; connections hold none.
  size_t workers = 64;
  size_t max_body_bytes = 1 << 20;
  unsigned max_connections = 30000;
  size_t max_long_polls_per_token = 16;
};

class ApiServer {
 public:
  static Result<std::unique_ptr<ApiServer>> Start(ApiContext context, ApiServerOptions options);
  ~ApiServer();
  ApiServer(const ApiServer&) = delete;
  ApiServer& operator=(const ApiServer&) = delete;

  int port() const { return server_->port(); }
  const HttpServer& http() const { return *server_; }
  void Stop();

 private:
  explicit ApiServer(ApiContext context) : context_(context) {}

  ApiContext context_;
  std::unique_ptr<HttpServer> server_;
};

}  // namespace headroom::control
