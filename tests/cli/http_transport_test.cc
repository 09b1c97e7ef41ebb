#include "cli/client/http_transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <thread>

namespace headroom::cli {
namespace {

// A server on 127.0.0.1 that accepts one connection, reads one request's header block and
// hands the connection to `answer`, which writes whatever bytes the test wants.
class OneShotServer {
 public:
  explicit OneShotServer(std::function<void(int fd)> answer) {
    listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    EXPECT_EQ(bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(listen_fd_, 4), 0);
    socklen_t length = sizeof(address);
    getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length);
    url_ = ServerUrl{.scheme = "http", .host = "127.0.0.1", .port = ntohs(address.sin_port)};
    thread_ = std::thread([this, answer = std::move(answer)] {
      const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) return;
      char buffer[4096];
      while (request_.find("\r\n\r\n") == std::string::npos) {
        const ssize_t got = read(fd, buffer, sizeof(buffer));
        if (got <= 0) break;
        request_.append(buffer, static_cast<size_t>(got));
      }
      answer(fd);
      close(fd);
    });
  }
  ~OneShotServer() {
    thread_.join();
    close(listen_fd_);
  }

  const ServerUrl& url() const { return url_; }
  // The request as read (its header block, and what came with it); read it after the exchange
  // returned.
  const std::string& request() const { return request_; }

 private:
  int listen_fd_ = -1;
  ServerUrl url_;
  std::string request_;
  std::thread thread_;
};

void Write(int fd, std::string_view text) {
  EXPECT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

std::function<void(int)> Sends(std::string text) {
  return [text = std::move(text)](int fd) { Write(fd, text); };
}

tl::expected<HttpAnswer, TransportError> Get(const ServerUrl& url, int io_timeout_s = 10) {
  return Exchange(url, TransportOptions{.io_timeout_s = io_timeout_s}, "GET", "/v1/x?a=1",
                  {{"Authorization", "Bearer t"}}, "");
}

TEST(HttpTransport, SendsOneRequestAndReadsAContentLengthAnswer) {
  OneShotServer server(Sends("HTTP/1.1 201 Created\r\nContent-length: 5\r\n\r\nhello, extra"));
  auto answer = Exchange(server.url(), TransportOptions{}, "POST", "/v1/jobs",
                         {{"Content-Type", "application/yaml"}}, "name: a");
  ASSERT_TRUE(answer.has_value()) << answer.error().detail;
  EXPECT_EQ(answer->status, 201);
  EXPECT_EQ(answer->body, "hello");
  const std::string head =
      "POST /v1/jobs HTTP/1.1\r\nHost: 127.0.0.1:" + std::to_string(server.url().port) +
      "\r\nContent-Type: application/yaml\r\nContent-Length: 7\r\n"
      "Connection: close\r\n\r\n";
  // The server read the header block, and the body too when it came in the same segment.
  EXPECT_TRUE(server.request() == head || server.request() == head + "name: a") << server.request();
}

TEST(HttpTransport, ReadsChunkedAndReadToCloseBodiesAndSkipsInterimAnswers) {
  {
    OneShotServer server(
        Sends("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
              "3\r\n{\"a\r\n4\r\n\": 1\r\n1\r\n}\r\n0\r\n\r\n"));
    auto answer = Get(server.url());
    ASSERT_TRUE(answer.has_value()) << answer.error().detail;
    EXPECT_EQ(answer->status, 200);
    EXPECT_EQ(answer->body, R"({"a": 1})");
  }
  {
    OneShotServer server(Sends("HTTP/1.0 404 Not Found\r\n\r\nno such job"));
    auto answer = Get(server.url());
    ASSERT_TRUE(answer.has_value()) << answer.error().detail;
    EXPECT_EQ(answer->status, 404);
    EXPECT_EQ(answer->body, "no such job");
  }
}

TEST(HttpTransport, FailuresSayWhatHappened) {
  const auto failure_of = [](std::function<void(int)> answer, int io_timeout_s = 10) {
    OneShotServer server(std::move(answer));
    auto result = Get(server.url(), io_timeout_s);
    EXPECT_FALSE(result.has_value());
    return result ? TransportError{} : result.error();
  };
  auto cut = failure_of(Sends("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort"));
  EXPECT_EQ(cut.failure, TransportFailure::kClosed);
  EXPECT_EQ(cut.detail, "the connection closed before a complete answer arrived");
  EXPECT_EQ(
      failure_of(Sends("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab")).failure,
      TransportFailure::kClosed);
  auto not_http = failure_of(Sends("SSH-2.0-OpenSSH\r\n\r\n"));
  EXPECT_EQ(not_http.failure, TransportFailure::kBadAnswer);
  EXPECT_EQ(not_http.detail, "the answer is not HTTP/1.x: bad status line");
  auto huge = failure_of(Sends("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n"));
  EXPECT_EQ(huge.detail, "the answer is larger than 1024 MiB");
  auto bad_chunk =
      failure_of(Sends("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n"));
  EXPECT_EQ(bad_chunk.detail, "the answer's chunked body: a chunk size that is not hexadecimal");
  // A server that reads the request and says nothing: the read's deadline ends the wait.
  auto silent = failure_of([](int) { sleep(2); }, 1);
  EXPECT_EQ(silent.failure, TransportFailure::kTimeout);
  EXPECT_EQ(silent.detail, "no answer within 1 s");
}

TEST(HttpTransport, ARefusedOrUnresolvableServerIsAConnectFailure) {
  // A port that was just free: nothing listens on it.
  int port = 0;
  {
    OneShotServer server(Sends(""));
    port = server.url().port;
    EXPECT_FALSE(Get(server.url()).has_value());  // Closed without an answer.
  }
  auto refused = Get(ServerUrl{.scheme = "http", .host = "127.0.0.1", .port = port});
  ASSERT_FALSE(refused.has_value());
  EXPECT_EQ(refused.error().failure, TransportFailure::kConnect);
  EXPECT_EQ(refused.error().detail, "connection refused or host unreachable");
  auto unknown = Get(ServerUrl{.scheme = "http", .host = "no-such-host.invalid", .port = 80});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().failure, TransportFailure::kConnect);
  EXPECT_TRUE(unknown.error().detail.starts_with("cannot resolve no-such-host.invalid: "))
      << unknown.error().detail;
}

}  // namespace
}  // namespace headroom::cli
