#include "cli/client_fake_api.h"

#include <chrono>

#include <nlohmann/json.hpp>

namespace headroom::testing {

std::string ApiErrorBody(const std::string& code, const std::string& message) {
  return nlohmann::json{{"error", {{"code", code}, {"message", message}}}}.dump();
}

FakeApi::FakeApi(Options options) : options_(std::move(options)) {
  if (!options_.cert_file.empty()) {
    server_ =
        std::make_unique<httplib::SSLServer>(options_.cert_file.c_str(), options_.key_file.c_str());
  } else {
    server_ = std::make_unique<httplib::Server>();
  }
  const auto handler = [this](const httplib::Request& request, httplib::Response& response) {
    Handle(request, response);
  };
  server_->Get(".*", handler);
  server_->Post(".*", handler);
  port_ = server_->bind_to_any_port("127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!server_->is_running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

FakeApi::~FakeApi() {
  server_->stop();
  if (thread_.joinable()) thread_.join();
}

std::string FakeApi::url() const {
  return std::string(options_.cert_file.empty() ? "http" : "https") +
         "://127.0.0.1:" + std::to_string(port_);
}

void FakeApi::Answer(const std::string& method, const std::string& target, CannedAnswer answer) {
  std::lock_guard lock(mutex_);
  answers_[method + " " + target] = std::move(answer);
}

void FakeApi::ServePage(std::string html) {
  std::lock_guard lock(mutex_);
  page_ = std::move(html);
}

std::vector<SeenRequest> FakeApi::Requests() {
  std::lock_guard lock(mutex_);
  return requests_;
}

void FakeApi::Handle(const httplib::Request& request, httplib::Response& response) {
  std::string target = request.path;
  if (!request.params.empty()) {
    // httplib decodes the query; rebuild it in the order sent (as the CLI writes it).
    const size_t query = request.target.find('?');
    if (query != std::string::npos) target += request.target.substr(query);
  }
  std::lock_guard lock(mutex_);
  requests_.push_back({request.method, target, request.get_header_value("Authorization"),
                       request.get_header_value("Content-Type"), request.body});
  if (request.method == "GET" && request.path == "/" && !page_.empty()) {
    response.set_content(page_, "text/html; charset=utf-8");
    return;
  }
  if (!options_.token.empty() &&
      request.get_header_value("Authorization") != "Bearer " + options_.token) {
    response.status = 401;
    response.set_content(
        ApiErrorBody("unauthenticated",
                     "unknown or missing token; pass --token or set HEADROOM_TOKEN"),
        "application/json");
    return;
  }
  auto found = answers_.find(request.method + " " + target);
  if (found == answers_.end()) found = answers_.find(request.method + " " + request.path);
  if (found == answers_.end()) {
    response.status = 404;
    response.set_content(ApiErrorBody("not_found", "no route " + request.method + " " + target),
                         "application/json");
    return;
  }
  response.status = found->second.status;
  response.set_content(found->second.body, "application/json");
}

}  // namespace headroom::testing
