// RawHttp: a client that writes exactly the bytes a test gives it, for hostile HTTP input
// (chunked bodies that never end, header floods, idle and slow connections) that a real HTTP
// client library would refuse to send.
// Threading: one connection per thread.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>

namespace headroom::testing {

class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd_ >= 0 && ::connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~RawConnection() {
    if (fd_ >= 0) ::close(fd_);
  }
  RawConnection(const RawConnection&) = delete;
  RawConnection& operator=(const RawConnection&) = delete;

  bool connected() const { return fd_ >= 0; }

  // False once the peer has closed (or reset) the connection.
  bool Send(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return false;
      sent += static_cast<size_t>(n);
    }
    return true;
  }

  // Everything the peer sends until it has sent a whole response (headers, then
  // Content-Length bytes), closes, or `timeout` passes.
  std::string ReadResponse(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    std::string data;
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (true) {
      const size_t end = data.find("\r\n\r\n");
      if (end != std::string::npos) {
        const size_t at = Lower(data.substr(0, end)).find("content-length:");
        if (at != std::string::npos) {
          const size_t length = std::stoul(data.substr(at + 15));
          if (data.size() >= end + 4 + length) return data;
        }
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return data;
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) return data;
      char buffer[8192];
      const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
      if (n <= 0) return data;
      data.append(buffer, static_cast<size_t>(n));
    }
  }

  // The status code of a response read by ReadResponse; 0 when there was none.
  static int Status(const std::string& response) {
    if (response.rfind("HTTP/1.", 0) != 0 || response.size() < 12) return 0;
    return std::stoi(response.substr(9, 3));
  }

  // True when the peer has closed the connection (reads end of stream or an error).
  bool ClosedByPeer(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    pollfd p{fd_, POLLIN, 0};
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::poll(&p, 1, 100) > 0) {
        char buffer[4096];
        const ssize_t n = ::recv(fd_, buffer, sizeof buffer, 0);
        if (n <= 0) return true;
      }
    }
    return false;
  }

 private:
  static std::string Lower(std::string text) {
    for (char& c : text) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
    return text;
  }

  int fd_ = -1;
};

}  // namespace headroom::testing
