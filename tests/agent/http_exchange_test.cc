// HttpReplyParser: replies fed whole and a byte at a time, keep-alive by version and header,
// and each malformed reply named. HttpExchange against a real listening socket: a reply, a reused
// connection, and a server that closed the idle connection.
#include "agent/http_exchange.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <string_view>
#include <thread>

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

using State = HttpReplyParser::State;

TEST(HttpReplyParser, ReadsAWholeReply) {
  HttpReplyParser parser;
  EXPECT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                        "Content-Length: 11\r\n\r\n{\"tasks\":[]}"),
            State::kMalformed);  // 12 bytes of body against a Content-Length of 11.
  parser.Reset();
  EXPECT_EQ(parser.Feed("HTTP/1.1 201 Created\r\ncontent-length: 12\r\n\r\n{\"tasks\":[]}"),
            State::kComplete);
  EXPECT_EQ(parser.status(), 201);
  EXPECT_EQ(parser.body(), "{\"tasks\":[]}");
  EXPECT_TRUE(parser.keep_alive());
}

TEST(HttpReplyParser, ReadsAReplyAByteAtATime) {
  const std::string reply = "HTTP/1.1 404 Not Found\r\nContent-Length: 5\r\n\r\nnope!";
  HttpReplyParser parser;
  for (size_t i = 0; i + 1 < reply.size(); ++i) {
    ASSERT_EQ(parser.Feed(reply.substr(i, 1)), State::kIncomplete) << "after byte " << i;
  }
  EXPECT_EQ(parser.Feed(reply.substr(reply.size() - 1)), State::kComplete);
  EXPECT_EQ(parser.status(), 404);
  EXPECT_EQ(parser.body(), "nope!");
}

TEST(HttpReplyParser, KeepAliveFollowsTheVersionAndTheConnectionHeader) {
  HttpReplyParser parser;
  ASSERT_EQ(parser.Feed("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n"),
            State::kComplete);
  EXPECT_FALSE(parser.keep_alive());
  parser.Reset();
  ASSERT_EQ(parser.Feed("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n"), State::kComplete);
  EXPECT_FALSE(parser.keep_alive());
  parser.Reset();
  ASSERT_EQ(parser.Feed("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n"),
            State::kComplete);
  EXPECT_TRUE(parser.keep_alive());
  parser.Reset();
  ASSERT_EQ(parser.Feed("HTTP/1.1 204 No Content\r\n\r\n"), State::kComplete);
  EXPECT_EQ(parser.status(), 204);
}

TEST(HttpReplyParser, NamesWhatIsMalformed) {
  const auto error_of = [](std::string_view reply) {
    HttpReplyParser parser;
    EXPECT_EQ(parser.Feed(reply), State::kMalformed) << reply;
    return parser.error();
  };
  EXPECT_EQ(error_of("SSH-2.0-OpenSSH\r\n\r\n"),
            "not an HTTP/1.x status line: \"SSH-2.0-OpenSSH\"");
  EXPECT_EQ(error_of("HTTP/1.1 2x0 OK\r\n\r\n"), "bad status code in \"HTTP/1.1 2x0 OK\"");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\n\r\n"), "reply without Content-Length");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"),
            "Transfer-Encoding \"chunked\" is not read; expected Content-Length");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n"),
            "bad Content-Length \"2\"");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"), "bad Content-Length \"-1\"");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nno colon here\r\n\r\n"),
            "header line without ':': \"no colon here\"");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n"),
            "reply body of 99999999999 bytes, over 16777216");
  EXPECT_EQ(error_of("HTTP/1.1 200 OK\r\nX: " + std::string(70'000, 'a')),
            "reply headers over 65536 bytes");
}

TEST(HttpReplyParser, RequestTextIsHttp11WithABearerTokenAndLength) {
  EXPECT_EQ(JsonPostRequest("127.0.0.1:8080", "/v1/tokens", "secret", "{}"),
            "POST /v1/tokens HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nAuthorization: Bearer secret\r\n"
            "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}");
}

// A listening socket on 127.0.0.1 whose one accepted connection a test drives by hand.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{.sin_family = AF_INET, .sin_port = 0, .sin_addr = {htonl(INADDR_LOOPBACK)}};
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    EXPECT_EQ(listen(fd_, 8), 0);
    socklen_t length = sizeof(address);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length);
    std::memcpy(&address_, &address, sizeof(address));
    address_length_ = sizeof(address);
  }
  ~Listener() { close(fd_); }
  int Accept() { return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC); }

  const sockaddr_storage& address() const { return address_; }
  socklen_t address_length() const { return address_length_; }

 private:
  int fd_ = -1;
  sockaddr_storage address_{};
  socklen_t address_length_ = 0;
};

// Reads one request (headers and Content-Length body) from a blocking socket.
std::string ReadRequest(int fd) {
  std::string text;
  char buffer[4096];
  while (text.find("\r\n\r\n") == std::string::npos) {
    const ssize_t got = read(fd, buffer, sizeof(buffer));
    if (got <= 0) return text;
    text.append(buffer, static_cast<size_t>(got));
  }
  return text;
}

void Reply(int fd, std::string_view text) {
  ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
}

// Drives `exchange` through epoll until it finishes.
HttpExchange::Step Drive(int epoll_fd, HttpExchange& exchange, HttpExchange::Step step) {
  for (int rounds = 0; step == HttpExchange::Step::kPending && rounds < 1000; ++rounds) {
    epoll_event event{};
    if (epoll_wait(epoll_fd, &event, 1, 10) == 1) step = exchange.OnEvent(event.events);
  }
  return step;
}

TEST(HttpExchange, ReusesTheConnectionAndResendsWhenTheServerClosedItWhileIdle) {
  Listener listener;
  const int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  HttpExchange exchange;
  const std::string request = JsonPostRequest("h", "/x", "t", "{}");

  // First call: a new connection, a reply.
  auto step = exchange.Start(epoll_fd, listener.address(), listener.address_length(), request, 7);
  int first = -1;
  std::thread server([&] {
    first = listener.Accept();
    EXPECT_NE(ReadRequest(first).find("POST /x HTTP/1.1"), std::string::npos);
    Reply(first, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok");
  });
  EXPECT_EQ(Drive(epoll_fd, exchange, step), HttpExchange::Step::kDone);
  server.join();
  EXPECT_EQ(exchange.status(), 200);
  EXPECT_EQ(exchange.body(), "ok");
  EXPECT_FALSE(exchange.in_flight());

  // The server closes the idle connection; the next call is sent again on a fresh one.
  close(first);
  step = exchange.Start(epoll_fd, listener.address(), listener.address_length(), request, 7);
  int second = -1;
  server = std::thread([&] {
    second = listener.Accept();
    EXPECT_NE(ReadRequest(second).find("POST /x"), std::string::npos);
    Reply(second, "HTTP/1.1 503 Busy\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbusy");
  });
  EXPECT_EQ(Drive(epoll_fd, exchange, step), HttpExchange::Step::kDone) << exchange.error();
  server.join();
  EXPECT_EQ(exchange.status(), 503);
  EXPECT_EQ(exchange.body(), "busy");
  close(second);

  // A server that closes mid-reply fails the call with what happened.
  step = exchange.Start(epoll_fd, listener.address(), listener.address_length(), request, 7);
  server = std::thread([&] {
    const int third = listener.Accept();
    ReadRequest(third);
    Reply(third, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort");
    close(third);
  });
  EXPECT_EQ(Drive(epoll_fd, exchange, step), HttpExchange::Step::kFailed);
  server.join();
  EXPECT_EQ(exchange.error(), "the server closed the connection before the reply was complete");
  close(epoll_fd);
}

}  // namespace
}  // namespace headroom::agent
