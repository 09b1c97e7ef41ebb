#include "agent/host_facts.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstring>

namespace headroom::agent {

int64_t HostCpuMilli() {
  const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
  return cpus > 0 ? static_cast<int64_t>(cpus) * 1000 : 1000;
}

int64_t HostMemoryMib() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_size = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page_size <= 0) return 1;
  return static_cast<int64_t>(pages) * page_size / (1024 * 1024);
}

Result<std::string> LocalAddressFor(const std::string& host, int port) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0) {
    return MakeError(ErrorCode::kNotFound, "cannot resolve {}: {}", host, gai_strerror(rc));
  }
  std::string address;
  std::string last_error = "no address";
  for (addrinfo* entry = found; entry != nullptr && address.empty(); entry = entry->ai_next) {
    const int fd = socket(entry->ai_family, entry->ai_socktype | SOCK_CLOEXEC, entry->ai_protocol);
    if (fd < 0) continue;
    sockaddr_storage local{};
    socklen_t length = sizeof local;
    if (connect(fd, entry->ai_addr, entry->ai_addrlen) == 0 &&
        getsockname(fd, reinterpret_cast<sockaddr*>(&local), &length) == 0) {
      char text[INET6_ADDRSTRLEN] = {};
      const void* raw =
          local.ss_family == AF_INET
              ? static_cast<const void*>(&reinterpret_cast<const sockaddr_in*>(&local)->sin_addr)
              : static_cast<const void*>(&reinterpret_cast<const sockaddr_in6*>(&local)->sin6_addr);
      if (inet_ntop(local.ss_family, raw, text, sizeof text) != nullptr) address = text;
    } else {
      last_error = std::strerror(errno);
    }
    close(fd);
  }
  freeaddrinfo(found);
  if (address.empty()) {
    return MakeError(ErrorCode::kIo, "no route to {}: {}", host, last_error);
  }
  return address;
}

}  // namespace headroom::agent
