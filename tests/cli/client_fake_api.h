// FakeApi: an in-process HTTP server standing in for headroomd in the client tests. It answers
// with canned JSON per method and path, records every request it saw (method, path with query,
// headers, body), and enforces a bearer token the way docs/api.md says (401 with the API's error
// body). Optionally serves https with a given certificate. Threading: httplib serves on its own
// thread; `Requests()` and the setters lock, so tests may call them while it runs.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <httplib.h>

namespace headroom::testing {

struct SeenRequest {
  std::string method;
  std::string target;  // path and query, e.g. "/v1/jobs?state=pending"
  std::string authorization;
  std::string content_type;
  std::string body;
};

struct CannedAnswer {
  int status = 200;
  std::string body;  // sent as application/json
};

class FakeApi {
 public:
  struct Options {
    std::string token = "secret";  // empty: no token required
    std::string cert_file;         // with key_file: serve https
    std::string key_file;
  };
  explicit FakeApi(Options options);
  ~FakeApi();

  // Answers `method target` (target with its query, exactly as sent) with `answer`; a target
  // given without a query also answers that path with any query. A request with no canned
  // answer gets 404 with an API error body naming it.
  void Answer(const std::string& method, const std::string& target, CannedAnswer answer);
  // Serves the given page at GET / (the dashboard), no token needed.
  void ServePage(std::string html);

  std::vector<SeenRequest> Requests();
  int port() const { return port_; }
  std::string url() const;

 private:
  void Handle(const httplib::Request& request, httplib::Response& response);

  Options options_;
  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  std::mutex mutex_;
  std::map<std::string, CannedAnswer> answers_;  // "GET /v1/jobs?state=pending" -> answer
  std::vector<SeenRequest> requests_;
  std::string page_;
};

// {"error": {"code": code, "message": message}}
std::string ApiErrorBody(const std::string& code, const std::string& message);

}  // namespace headroom::testing
