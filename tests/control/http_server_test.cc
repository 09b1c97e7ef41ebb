// HttpServer under hostile and heavy input: bodies bounded however they come, headers bounded,
// the token checked before a body is read, idle and long-polling connections holding no
// thread, a full queue answered at once, and Stop with requests in flight.
#include "control/http_server.h"

#include <atomic>
#include <condition_variable>
#include <filesystem>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <gtest/gtest.h>

#include "testing/raw_http.h"

namespace headroom::control {
namespace {

using headroom::testing::RawConnection;

class HttpServerTest : public ::testing::Test {
 protected:
  void Start(HttpServerOptions options = {}) {
    Router router;
    router.Get(
        "/healthz", [](const HttpRequest&, HttpResponse& r) { r.set_content("ok", "text/plain"); },
        RouteAccess::kPublic, RouteRunner::kInline);
    router.Post("/echo", [this](const HttpRequest& request, HttpResponse& r) {
      ++echoed_;
      r.set_content(std::to_string(request.body.size()), "text/plain");
    });
    router.Get("/who", [](const HttpRequest& request, HttpResponse& r) {
      r.set_content(request.principal ? request.principal->tenant : "nobody", "text/plain");
    });
    router.Get("/block", [this](const HttpRequest&, HttpResponse& r) {
      std::unique_lock lock(mu_);
      ++blocked_;
      cv_.notify_all();
      cv_.wait(lock, [&] { return released_; });
      r.set_content("released", "text/plain");
    });
    // Inline; says where it ran and what the `{}` matched; ?pool asks for the pool.
    router.Get(
        "/where/{}",
        [](const HttpRequest& request, HttpResponse& r) {
          if (request.on_event_thread && request.has_param("pool")) {
            r.run_on_pool = true;
            return;
          }
          r.set_content((request.on_event_thread ? "event:" : "pool:") + request.matches[1],
                        "text/plain");
        },
        RouteAccess::kPublic, RouteRunner::kInline);
    router.Get("/poll", [](const HttpRequest& request, HttpResponse& r) {
      if (!request.long_poll_final) {
        r.long_poll = LongPoll{0, std::chrono::seconds(20)};
        return;
      }
      r.set_content("final", "text/plain");
    });
    options.port = 0;
    // Tokens "t..." name a user whose tenant is the token.
    options.authorize = [](const std::string& header) -> std::optional<Principal> {
      if (header.rfind("Bearer t", 0) != 0) return std::nullopt;
      return Principal{.role = Role::kUser, .tenant = header.substr(7)};
    };
    options.write_error = [](HttpResponse& r, int status, const std::string& message) {
      r.status = status;
      r.set_content(message, "text/plain");
    };
    options.latest_seq = [this] { return seq_.load(); };
    options.wait_for_seq = [this](uint64_t seen, std::chrono::milliseconds wait) {
      std::unique_lock lock(mu_);
      cv_.wait_for(lock, wait, [&] { return seq_.load() > seen; });
    };
    auto server = HttpServer::Start(std::move(router), std::move(options));
    ASSERT_TRUE(server.has_value()) << server.error().message;
    server_ = std::move(*server);
  }

  void TearDown() override {
    Release();
    if (server_) server_->Stop();
  }

  void Release() {
    std::lock_guard lock(mu_);
    released_ = true;
    cv_.notify_all();
  }
  void BumpSeq() {
    std::lock_guard lock(mu_);
    ++seq_;
    cv_.notify_all();
  }

  int port() const { return server_->port(); }

  // `count` connections, each sending a long-poll with `token`.
  std::vector<std::unique_ptr<RawConnection>> OpenPolls(int count, const std::string& token) {
    std::vector<std::unique_ptr<RawConnection>> polls;
    for (int i = 0; i < count; ++i) {
      polls.push_back(std::make_unique<RawConnection>(port()));
      EXPECT_TRUE(polls.back()->Send("GET /poll HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " +
                                     token + "\r\n\r\n"));
    }
    return polls;
  }

  // True once `count` requests are parked (within 10 s).
  bool WaitParked(size_t count) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (server_->parked() < count && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return server_->parked() == count;
  }

  // One request on a new connection; the status of its response (0: none).
  int Status(const std::string& bytes,
             std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    RawConnection connection(port());
    if (!connection.connected() || !connection.Send(bytes)) return 0;
    return RawConnection::Status(connection.ReadResponse(timeout));
  }
  int Healthz() { return Status("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); }

  std::unique_ptr<HttpServer> server_;
  std::atomic<int> echoed_{0};
  std::atomic<uint64_t> seq_{0};
  std::mutex mu_;
  std::condition_variable cv_;
  int blocked_ = 0;
  bool released_ = false;
};

TEST_F(HttpServerTest, AnswersAndRoutesWithTheTokenChecked) {
  Start();
  EXPECT_EQ(Healthz(), 200);
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Length: 5\r\n\r\nhello"),
            200);
  EXPECT_EQ(Status("GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n"), 404);
  EXPECT_EQ(Status("GET /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n\r\n"), 404);
  // The principal the server authenticated reaches the handler.
  RawConnection connection(port());
  connection.Send("GET /who HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t42\r\n\r\n");
  const std::string reply = connection.ReadResponse(std::chrono::seconds(5));
  EXPECT_EQ(RawConnection::Status(reply), 200);
  EXPECT_TRUE(reply.ends_with("\r\n\r\nt42")) << reply;
}

TEST(RouterTest, MatchesLiteralSegmentsAndOneSegmentPerPlaceholder) {
  Router router;
  const HttpHandler none = [](const HttpRequest&, HttpResponse&) {};
  router.Get("/", none);
  router.Get("/v1/jobs", none);
  router.Get("/v1/jobs/{}", none);
  router.Post("/v1/jobs/{}/cancel", none);
  std::vector<std::string> matches;
  auto found = [&](const std::string& method, const std::string& path) {
    const Router::Route* route = router.Find(method, path, matches);
    return route == nullptr
               ? std::string("none")
               : route->method + " /" + fmt::format("{}", fmt::join(route->segments, "/"));
  };
  EXPECT_EQ(found("GET", "/"), "GET /");
  EXPECT_EQ(found("GET", "/v1/jobs"), "GET /v1/jobs");
  EXPECT_EQ(found("GET", "/v1/jobs/42"), "GET /v1/jobs/{}");
  EXPECT_EQ(matches, (std::vector<std::string>{"/v1/jobs/42", "42"}));
  EXPECT_EQ(found("POST", "/v1/jobs/a.b-c/cancel"), "POST /v1/jobs/{}/cancel");
  EXPECT_EQ(matches, (std::vector<std::string>{"/v1/jobs/a.b-c/cancel", "a.b-c"}));
  // A placeholder is one non-empty segment; the whole path must match; methods are exact.
  for (const std::string path : {"/v1/jobs/", "/v1/jobs//cancel", "/v1/jobs/1/2", "/v1/job",
                                 "/v1/jobs/1/cancel/", "//v1/jobs", "v1/jobs", ""}) {
    EXPECT_EQ(found("GET", path), "none") << path;
    EXPECT_TRUE(matches.empty()) << path;
  }
  EXPECT_EQ(found("POST", "/v1/jobs"), "none");
  EXPECT_EQ(found("GET", "/v1/jobs/1/cancel"), "none");
}

TEST_F(HttpServerTest, InlineRouteRunsOnTheEventThreadUnlessItAsksForThePool) {
  Start();
  RawConnection connection(port());
  ASSERT_TRUE(connection.Send("GET /where/a1 HTTP/1.1\r\nHost: x\r\n\r\n"));
  EXPECT_NE(connection.ReadResponse().find("event:a1"), std::string::npos);
  ASSERT_TRUE(connection.Send("GET /where/b2?pool=1 HTTP/1.1\r\nHost: x\r\n\r\n"));
  const std::string second = connection.ReadResponse();
  EXPECT_EQ(RawConnection::Status(second), 200);
  EXPECT_NE(second.find("pool:b2"), std::string::npos);
}

TEST_F(HttpServerTest, DeclaredBodyOverTheLimitGets413BeforeItIsSent) {
  Start(HttpServerOptions{.max_body_bytes = 1000});
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Length: 100000000\r\n\r\n"),
            413);
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Length: 99999999999999999999999\r\n\r\n"),
            413);
  // Over the limit but small enough to drop: read, dropped, answered.
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Length: 5000\r\n\r\n" +
                   std::string(5000, 'x')),
            413);
  EXPECT_EQ(echoed_.load(), 0);
}

// The head of a chunked POST /echo, and one 16 KiB chunk of its body.
constexpr const char* kChunkedEchoHead =
    "POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
    "Transfer-Encoding: chunked\r\n\r\n";
std::string Chunk16KiB() { return "4000\r\n" + std::string(0x4000, 'a') + "\r\n"; }

TEST_F(HttpServerTest, ChunkedBodyOverTheLimitClosesTheConnection) {
  Start(HttpServerOptions{.max_body_bytes = 64 << 10});
  RawConnection connection(port());
  ASSERT_TRUE(connection.Send(kChunkedEchoHead));
  const std::string chunk = Chunk16KiB();
  size_t sent = 0;
  // An endless body: the server must stop it, not hold it.
  while (sent < (64u << 20) && connection.Send(chunk)) sent += 0x4000;
  EXPECT_LT(sent, 64u << 20) << "the server kept reading an endless body";
  EXPECT_TRUE(connection.ClosedByPeer());
  EXPECT_EQ(echoed_.load(), 0);
  EXPECT_EQ(Healthz(), 200);
}

TEST_F(HttpServerTest, ChunkedBodyOverTheLimitThatEndsGets413) {
  Start(HttpServerOptions{.max_body_bytes = 64 << 10});
  RawConnection connection(port());
  ASSERT_TRUE(connection.Send(kChunkedEchoHead));
  const std::string chunk = Chunk16KiB();
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(connection.Send(chunk));
  ASSERT_TRUE(connection.Send("0\r\n\r\n"));
  EXPECT_EQ(RawConnection::Status(connection.ReadResponse()), 413);
  EXPECT_EQ(echoed_.load(), 0);
}

TEST_F(HttpServerTest, ChunkedBodyWithinTheLimitIsServed) {
  Start(HttpServerOptions{.max_body_bytes = 64 << 10});
  RawConnection connection(port());
  ASSERT_TRUE(
      connection.Send("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                      "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n"
                      "0\r\n\r\n"));
  const std::string response = connection.ReadResponse();
  EXPECT_EQ(RawConnection::Status(response), 200);
  EXPECT_NE(response.find("\r\n\r\n11"), std::string::npos) << response;
}

TEST_F(HttpServerTest, CompressedBodiesAreRefused) {
  Start();
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Encoding: gzip\r\nContent-Length: 10\r\n\r\n0123456789"),
            415);
  EXPECT_EQ(echoed_.load(), 0);
}

TEST_F(HttpServerTest, HeaderFloodIsBoundedAndTheServerStaysUp) {
  Start(HttpServerOptions{.connection_memory_bytes = 32 << 10});
  std::string request = "GET /healthz HTTP/1.1\r\nHost: x\r\n";
  for (int i = 0; i < 20000; ++i) request += "X-Flood-" + std::to_string(i) + ": value\r\n";
  request += "\r\n";
  RawConnection connection(port());
  connection.Send(request);  // The server may close before it has all of it.
  const int status = RawConnection::Status(connection.ReadResponse());
  EXPECT_TRUE(status == 431 || status == 0) << status;
  EXPECT_EQ(Healthz(), 200);
}

TEST_F(HttpServerTest, BodyOfAnUnauthenticatedRequestReachesNoHandler) {
  Start();
  const std::string body(500000, '{');
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 500000\r\n\r\n" + body), 401);
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer bad\r\n"
                   "Content-Length: 500000\r\n\r\n" +
                   body),
            401);
  EXPECT_EQ(echoed_.load(), 0);
}

TEST_F(HttpServerTest, IdleAndSlowConnectionsHoldNoThread) {
  Start(HttpServerOptions{.workers = 2});
  std::vector<std::unique_ptr<RawConnection>> idle;
  for (int i = 0; i < 1500; ++i) {
    idle.push_back(std::make_unique<RawConnection>(port()));
    ASSERT_TRUE(idle.back()->connected()) << i;
    // A third send half a request and stop (slow clients); the rest send nothing.
    if (i % 3 == 0) idle.back()->Send("POST /echo HTTP/1.1\r\nHost: x\r\nAuthor");
  }
  EXPECT_EQ(Healthz(), 200);
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Length: 2\r\n\r\nhi"),
            200);
}

TEST_F(HttpServerTest, ParkedLongPollsHoldNoThreadAndAnswerOnTheNextEvent) {
  Start(HttpServerOptions{.workers = 1});
  std::vector<std::unique_ptr<RawConnection>> polls;
  for (int i = 0; i < 10; ++i) {
    polls.push_back(std::make_unique<RawConnection>(port()));
    ASSERT_TRUE(polls.back()->Send("GET /poll HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t" +
                                   std::to_string(i) + "\r\n\r\n"));
  }
  ASSERT_TRUE(WaitParked(10));
  // The one worker is free: a request that needs it is served while ten polls wait.
  EXPECT_EQ(Status("POST /echo HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n"
                   "Content-Length: 2\r\n\r\nhi"),
            200);
  BumpSeq();
  for (auto& poll : polls) {
    const std::string response = poll->ReadResponse();
    EXPECT_EQ(RawConnection::Status(response), 200);
    EXPECT_NE(response.find("final"), std::string::npos);
  }
  EXPECT_EQ(server_->parked(), 0u);
}

TEST_F(HttpServerTest, LongPollsPerTokenAreLimited) {
  Start(HttpServerOptions{.max_long_polls_per_token = 2});
  auto polls = OpenPolls(2, "t1");
  ASSERT_TRUE(WaitParked(2));
  EXPECT_EQ(Status("GET /poll HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n\r\n"), 429);
  // Another token still may.
  RawConnection other(port());
  ASSERT_TRUE(other.Send("GET /poll HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t2\r\n\r\n"));
  BumpSeq();
  EXPECT_EQ(RawConnection::Status(other.ReadResponse()), 200);
}

TEST_F(HttpServerTest, FullQueueIsAnsweredAtOnceWith503) {
  Start(HttpServerOptions{.workers = 1, .max_queued = 1});
  const std::string block = "GET /block HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t1\r\n\r\n";
  RawConnection running(port());
  ASSERT_TRUE(running.Send(block));
  {
    std::unique_lock lock(mu_);
    ASSERT_TRUE(cv_.wait_for(lock, std::chrono::seconds(10), [&] { return blocked_ == 1; }));
  }
  // One more fits the queue; of three sent now, exactly two are refused at once.
  std::vector<std::unique_ptr<RawConnection>> extra;
  for (int i = 0; i < 3; ++i) {
    extra.push_back(std::make_unique<RawConnection>(port()));
    ASSERT_TRUE(extra.back()->Send(block));
  }
  int refused = 0;
  std::vector<RawConnection*> waiting;
  for (auto& connection : extra) {
    const int status = RawConnection::Status(connection->ReadResponse(std::chrono::seconds(2)));
    if (status == 503) {
      ++refused;
    } else {
      EXPECT_EQ(status, 0);
      waiting.push_back(connection.get());
    }
  }
  EXPECT_EQ(refused, 2);
  ASSERT_EQ(waiting.size(), 1u);
  EXPECT_EQ(Healthz(), 200);
  Release();
  EXPECT_EQ(RawConnection::Status(running.ReadResponse()), 200);
  EXPECT_EQ(RawConnection::Status(waiting.front()->ReadResponse()), 200);
}

// Stopping while clients keep connecting: every round's server stops (libmicrohttpd's own
// quiesce raced its event threads here and aborted the process now and then), the clients get
// an answer or a refused connection, and the listen socket and connections are all closed.
TEST_F(HttpServerTest, StoppingWhileClientsConnectNeitherAbortsNorLeaksDescriptors) {
  const auto open_descriptors = [] {
    return std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                         std::filesystem::directory_iterator());
  };
  const auto before = open_descriptors();
  for (int round = 0; round < 20; ++round) {
    Start(HttpServerOptions{.workers = 2, .event_threads = 2});
    const int serving = port();
    std::atomic<bool> done{false};
    std::atomic<int> answered{0};
    std::vector<std::thread> clients;
    for (int c = 0; c < 2; ++c) {
      clients.emplace_back([&] {
        while (!done) {
          RawConnection connection(serving);
          if (!connection.connected()) continue;
          connection.Send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
          const int status =
              RawConnection::Status(connection.ReadResponse(std::chrono::milliseconds(500)));
          if (status == 200 || status == 503) ++answered;
        }
      });
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (answered < 2 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_GE(answered, 2) << "round " << round;
    server_->Stop();
    done = true;
    for (std::thread& client : clients) client.join();
    server_.reset();
  }
  EXPECT_EQ(open_descriptors(), before);
}

TEST_F(HttpServerTest, StopWithParkedAndRunningRequestsReturns) {
  Start(HttpServerOptions{.workers = 2});
  auto polls = OpenPolls(3, "t1");
  ASSERT_TRUE(WaitParked(3));
  auto stopped = std::async(std::launch::async, [&] { server_->Stop(); });
  EXPECT_EQ(stopped.wait_for(std::chrono::seconds(20)), std::future_status::ready);
  for (auto& poll : polls) EXPECT_TRUE(poll->ClosedByPeer());
}

}  // namespace
}  // namespace headroom::control
