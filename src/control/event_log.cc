#include "control/event_log.h"

#include <algorithm>

namespace headroom::control {

void EventLog::Append(LoggedEvent event) {
  {
    std::lock_guard lock(mu_);
    event.seq = next_seq_++;
    events_.push_back(std::move(event));
    while (events_.size() > capacity_) events_.pop_front();
  }
  appended_.notify_all();
}

std::vector<LoggedEvent> EventLog::After(uint64_t after, std::chrono::milliseconds wait,
                                         size_t limit) {
  std::unique_lock lock(mu_);
  appended_.wait_for(lock, wait, [&] { return closed_ || next_seq_ > after + 1; });
  std::vector<LoggedEvent> out;
  auto it = std::lower_bound(events_.begin(), events_.end(), after + 1,
                             [](const LoggedEvent& e, uint64_t seq) { return e.seq < seq; });
  for (; it != events_.end() && out.size() < limit; ++it) out.push_back(*it);
  return out;
}

uint64_t EventLog::next_seq() const {
  std::lock_guard lock(mu_);
  return next_seq_;
}

void EventLog::Close() {
  {
    std::lock_guard lock(mu_);
    closed_ = true;
  }
  appended_.notify_all();
}

}  // namespace headroom::control
