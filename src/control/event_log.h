// EventLog: what happened, in order, for GET /v1/events long-polls and the dashboard. Each
// event gets the next sequence number; the last `capacity` events are kept in memory (events
// are a view of the journal's changes, not part of the durable state; after a restart the
// sequence continues from the wall-clock-derived start so clients never see numbers reused).
// Threading: thread-safe; Wait blocks the calling thread up to its timeout.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "base/time.h"

namespace headroom::control {

struct LoggedEvent {
  uint64_t seq = 0;
  TimeUs time_us = 0;
  std::string type;  // submitted, started, finished, ...
  std::optional<uint64_t> job;
  std::optional<std::string> node;
  std::string message;
};

class EventLog {
 public:
  EventLog(uint64_t first_seq, size_t capacity) : next_seq_(first_seq), capacity_(capacity) {}

  void Append(LoggedEvent event);  // Assigns seq.
  // Events with seq > after (at most `limit`), waiting up to `wait` for one to arrive.
  std::vector<LoggedEvent> After(uint64_t after, std::chrono::milliseconds wait, size_t limit);
  uint64_t next_seq() const;
  // Wakes every waiter (shutdown).
  void Close();

 private:
  mutable std::mutex mu_;
  std::condition_variable appended_;
  std::deque<LoggedEvent> events_;
  uint64_t next_seq_;
  size_t capacity_;
  bool closed_ = false;
};

}  // namespace headroom::control
