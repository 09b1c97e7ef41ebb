#include "agent/stop_signal.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "base/check.h"

namespace headroom::agent {
namespace {

volatile sig_atomic_t g_requests = 0;
int g_pipe[2] = {-1, -1};

void OnStop(int) {
  const int saved = errno;
  g_requests = g_requests + 1;
  const char byte = 's';
  [[maybe_unused]] const ssize_t written = write(g_pipe[1], &byte, 1);
  errno = saved;
}

}  // namespace

StopSignal& StopSignal::Install() {
  static StopSignal* instance = [] {
    HR_CHECK(pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) == 0);
    struct sigaction action {};
    action.sa_handler = OnStop;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    HR_CHECK(sigaction(SIGINT, &action, nullptr) == 0);
    HR_CHECK(sigaction(SIGTERM, &action, nullptr) == 0);
    signal(SIGPIPE, SIG_IGN);
    return new StopSignal();
  }();
  return *instance;
}

int StopSignal::requests() const { return g_requests; }

bool StopSignal::WaitFor(TimeUs timeout_us) {
  pollfd entry{.fd = g_pipe[0], .events = POLLIN, .revents = 0};
  const auto timeout_ms =
      static_cast<int>(std::clamp<TimeUs>((timeout_us + 999) / 1000, 0, 60'000));
  poll(&entry, 1, timeout_ms);  // EINTR simply ends the wait early.
  char drain[64];
  bool arrived = false;
  while (read(g_pipe[0], drain, sizeof drain) > 0) arrived = true;
  return arrived;
}

}  // namespace headroom::agent
