#include "control/worker_pool.h"

#include "base/check.h"
#include "control/thread_name.h"

namespace headroom::control {

WorkerPool::WorkerPool(size_t threads, size_t max_queued) : max_queued_(max_queued) {
  HR_CHECK(threads > 0);
  threads_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

WorkerPool::~WorkerPool() { Stop(); }

bool WorkerPool::TrySubmit(std::function<void()> task) {
  {
    std::lock_guard lock(mu_);
    if (stopping_ || queue_.size() >= max_queued_) return false;
    queue_.push_back(std::move(task));
  }
  work_.notify_one();
  return true;
}

void WorkerPool::Run() {
  NameThisThread("hr-worker");
  std::unique_lock lock(mu_);
  while (true) {
    work_.wait(lock, [&] { return !queue_.empty() || stopping_; });
    if (queue_.empty()) return;  // Stopping, and nothing left to run.
    std::function<void()> task = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    task();
    lock.lock();
  }
}

void WorkerPool::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  work_.notify_all();
  for (std::thread& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
}

size_t WorkerPool::queued() const {
  std::lock_guard lock(mu_);
  return queue_.size();
}

}  // namespace headroom::control
