// WorkerPool: a fixed set of threads running queued tasks, with a bounded queue. The HTTP
// server hands it requests whose bodies are complete; connections themselves never hold a
// thread (docs/control.md "Serving").
//
// Promises:
//  1. TrySubmit never blocks: it queues the task, or returns false when the queue is full or
//     the pool is stopping (the caller answers 503 itself).
//  2. Every queued task runs exactly once, also those queued before Stop.
//  3. Stop runs what is queued, then joins the threads; it is idempotent.
// Threading: TrySubmit from any thread; Stop from one thread.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace headroom::control {

class WorkerPool {
 public:
  WorkerPool(size_t threads, size_t max_queued);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  bool TrySubmit(std::function<void()> task);
  void Stop();

  // Tasks queued and not yet started (for metrics and tests).
  size_t queued() const;

 private:
  void Run();

  mutable std::mutex mu_;
  std::condition_variable work_;
  std::deque<std::function<void()>> queue_;
  size_t max_queued_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace headroom::control
