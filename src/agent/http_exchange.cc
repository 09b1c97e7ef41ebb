#include "agent/http_exchange.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <utility>

#include <fmt/format.h>

namespace headroom::agent {
namespace {

bool EqualsIgnoringCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[i]) != lower(b[i])) return false;
  }
  return true;
}

std::string_view Trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

}  // namespace

void HttpReplyParser::Reset() { *this = HttpReplyParser(); }

HttpReplyParser::State HttpReplyParser::Malformed(std::string error) {
  error_ = std::move(error);
  return State::kMalformed;
}

HttpReplyParser::State HttpReplyParser::Feed(std::string_view bytes) {
  if (!error_.empty()) return State::kMalformed;
  if (!bytes.empty()) started_ = true;
  if (headers_done_) {
    body_.append(bytes);
  } else {
    buffer_.append(bytes);
    const size_t header_end = buffer_.find("\r\n\r\n");
    if (header_end == std::string::npos || header_end > kMaxHeaderBytes) {
      if (buffer_.size() > kMaxHeaderBytes) {
        return Malformed(fmt::format("reply headers over {} bytes", kMaxHeaderBytes));
      }
      return State::kIncomplete;
    }
    if (State state = ParseHeaders(header_end); state != State::kIncomplete) return state;
    body_ = buffer_.substr(header_end + 4);
    buffer_.clear();
    buffer_.shrink_to_fit();
    headers_done_ = true;
  }
  if (body_.size() > body_bytes_) {
    return Malformed(fmt::format("reply body longer than its Content-Length {}", body_bytes_));
  }
  return body_.size() == body_bytes_ ? State::kComplete : State::kIncomplete;
}

HttpReplyParser::State HttpReplyParser::ParseHeaders(size_t header_end) {
  const std::string_view head(buffer_.data(), header_end);
  size_t line_end = head.find("\r\n");
  const std::string_view status_line = head.substr(0, line_end);
  // "HTTP/1.1 200 OK": the version, a space, three digits.
  if (status_line.size() < 12 || !status_line.starts_with("HTTP/1.") || status_line[8] != ' ') {
    return Malformed(fmt::format("not an HTTP/1.x status line: \"{}\"", status_line.substr(0, 40)));
  }
  const auto [end, error] =
      std::from_chars(status_line.data() + 9, status_line.data() + 12, status_);
  if (error != std::errc() || end != status_line.data() + 12 || status_ < 100) {
    return Malformed(fmt::format("bad status code in \"{}\"", status_line.substr(0, 40)));
  }
  keep_alive_ = status_line[7] == '1';  // HTTP/1.1 keeps the connection unless told otherwise.
  bool has_length = false;
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view line = head.substr(start, line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return Malformed(fmt::format("header line without ':': \"{}\"", line.substr(0, 40)));
    }
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = Trim(line.substr(colon + 1));
    if (EqualsIgnoringCase(name, "content-length")) {
      size_t length = 0;
      const auto [length_end, length_error] =
          std::from_chars(value.data(), value.data() + value.size(), length);
      if (length_error != std::errc() || length_end != value.data() + value.size() ||
          (has_length && length != body_bytes_)) {
        return Malformed(fmt::format("bad Content-Length \"{}\"", value.substr(0, 40)));
      }
      if (length > kMaxBodyBytes) {
        return Malformed(fmt::format("reply body of {} bytes, over {}", length, kMaxBodyBytes));
      }
      body_bytes_ = length;
      has_length = true;
    } else if (EqualsIgnoringCase(name, "connection")) {
      if (EqualsIgnoringCase(value, "close")) keep_alive_ = false;
      if (EqualsIgnoringCase(value, "keep-alive")) keep_alive_ = true;
    } else if (EqualsIgnoringCase(name, "transfer-encoding")) {
      return Malformed(fmt::format("Transfer-Encoding \"{}\" is not read; expected Content-Length",
                                   value.substr(0, 40)));
    }
  }
  const bool bodiless = status_ < 200 || status_ == 204 || status_ == 304;
  if (!has_length && !bodiless) return Malformed("reply without Content-Length");
  return State::kIncomplete;
}

std::string JsonPostRequest(std::string_view host, std::string_view path, std::string_view token,
                            std::string_view body) {
  return fmt::format(
      "POST {} HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n"
      "Content-Type: application/json\r\nContent-Length: {}\r\n\r\n{}",
      path, host, token, body.size(), body);
}

HttpExchange::~HttpExchange() { Close(); }

HttpExchange::HttpExchange(HttpExchange&& other) noexcept
    : epoll_fd_(other.epoll_fd_),
      fd_(std::exchange(other.fd_, -1)),
      address_(other.address_),
      address_length_(other.address_length_),
      tag_(other.tag_),
      phase_(other.phase_),
      in_flight_(std::exchange(other.in_flight_, false)),
      reused_(other.reused_),
      retried_(other.retried_),
      watched_(std::exchange(other.watched_, 0)),
      request_(std::move(other.request_)),
      written_(other.written_),
      reply_(std::move(other.reply_)),
      error_(std::move(other.error_)) {}

HttpExchange::Step HttpExchange::Start(int epoll_fd, const sockaddr_storage& address,
                                       socklen_t address_length, std::string request,
                                       uint64_t tag) {
  epoll_fd_ = epoll_fd;
  address_ = address;
  address_length_ = address_length;
  tag_ = tag;
  request_ = std::move(request);
  written_ = 0;
  retried_ = false;
  reply_.Reset();
  error_.clear();
  in_flight_ = true;
  if (fd_ < 0) return Connect();
  reused_ = true;
  phase_ = Phase::kWriting;
  return Write();
}

HttpExchange::Step HttpExchange::OnEvent(uint32_t events) {
  if (!in_flight_) {
    // An idle keep-alive connection became readable: the server closed it (or broke protocol).
    Close();
    return Step::kPending;
  }
  switch (phase_) {
    case Phase::kConnecting: {
      int error = 0;
      socklen_t length = sizeof(error);
      if (getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
      if (error != 0) return Fail(fmt::format("connect: {}", std::strerror(error)));
      if ((events & EPOLLOUT) == 0) return Step::kPending;
      phase_ = Phase::kWriting;
      return Write();
    }
    case Phase::kWriting:
      return Write();
    case Phase::kReading:
      return Read();
  }
  return Step::kPending;
}

HttpExchange::Step HttpExchange::Connect() {
  reused_ = false;
  fd_ = socket(address_.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Fail(fmt::format("socket: {}", std::strerror(errno)));
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(fd_, reinterpret_cast<const sockaddr*>(&address_), address_length_) == 0) {
    phase_ = Phase::kWriting;
    return Write();
  }
  if (errno != EINPROGRESS) return Fail(fmt::format("connect: {}", std::strerror(errno)));
  phase_ = Phase::kConnecting;
  Watch(EPOLLOUT);
  return Step::kPending;
}

HttpExchange::Step HttpExchange::Write() {
  while (written_ < request_.size()) {
    const ssize_t sent =
        send(fd_, request_.data() + written_, request_.size() - written_, MSG_NOSIGNAL);
    if (sent > 0) {
      written_ += static_cast<size_t>(sent);
      continue;
    }
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      Watch(EPOLLOUT);
      return Step::kPending;
    }
    if (errno == EINTR) continue;
    if (errno == EPIPE || errno == ECONNRESET) return RetryOnFreshConnection(std::strerror(errno));
    return Fail(fmt::format("send: {}", std::strerror(errno)));
  }
  phase_ = Phase::kReading;
  Watch(EPOLLIN);
  return Step::kPending;
}

HttpExchange::Step HttpExchange::Read() {
  char buffer[16 * 1024];
  for (;;) {
    const ssize_t got = recv(fd_, buffer, sizeof(buffer), 0);
    if (got > 0) {
      switch (reply_.Feed(std::string_view(buffer, static_cast<size_t>(got)))) {
        case HttpReplyParser::State::kIncomplete:
          continue;
        case HttpReplyParser::State::kMalformed:
          return Fail(reply_.error());
        case HttpReplyParser::State::kComplete:
          in_flight_ = false;
          if (!reply_.keep_alive()) CloseSocket();
          return Step::kDone;
      }
    }
    if (got == 0) return RetryOnFreshConnection("the server closed the connection");
    if (errno == EAGAIN || errno == EWOULDBLOCK) return Step::kPending;
    if (errno == EINTR) continue;
    if (errno == ECONNRESET) return RetryOnFreshConnection(std::strerror(errno));
    return Fail(fmt::format("recv: {}", std::strerror(errno)));
  }
}

HttpExchange::Step HttpExchange::RetryOnFreshConnection(std::string_view why) {
  if (!reused_ || retried_ || reply_.started()) {
    return Fail(fmt::format("{} before the reply was complete", why));
  }
  retried_ = true;
  CloseSocket();
  written_ = 0;
  reply_.Reset();
  return Connect();
}

HttpExchange::Step HttpExchange::Fail(std::string error) {
  error_ = std::move(error);
  Close();
  return Step::kFailed;
}

void HttpExchange::Close() {
  in_flight_ = false;
  CloseSocket();
}

void HttpExchange::CloseSocket() {
  if (fd_ < 0) return;
  if (watched_ != 0) epoll_ctl(epoll_fd_, EPOLL_CTL_DEL, fd_, nullptr);
  close(fd_);
  fd_ = -1;
  watched_ = 0;
}

void HttpExchange::Watch(uint32_t events) {
  if (watched_ == events) return;
  epoll_event event{.events = events, .data = {.u64 = tag_}};
  epoll_ctl(epoll_fd_, watched_ == 0 ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd_, &event);
  watched_ = events;
}

}  // namespace headroom::agent
