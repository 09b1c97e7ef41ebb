#include "control/journal.h"

#include <utility>

#include "control/thread_name.h"

namespace headroom::control {

Journal::Journal(SqliteStore& store) : store_(store), writer_([this] { Run(); }) {}

Journal::~Journal() { Stop(); }

tl::expected<void, Error> Journal::Commit(std::vector<StoreWrite> writes) {
  if (writes.empty()) return {};
  std::unique_lock lock(mu_);
  if (stopping_) {
    return MakeError(ErrorCode::kIo,
                     "the store is shutting down; retry against the restarted daemon");
  }
  const uint64_t batch = open_batch_;
  for (StoreWrite& write : writes) queued_.push_back(std::move(write));
  work_.notify_one();
  done_.wait(lock, [&] { return committed_batch_ >= batch; });
  for (const auto& [failed_batch, error] : failed_) {
    if (failed_batch == batch) return tl::unexpected(error);
  }
  return {};
}

void Journal::Run() {
  NameThisThread("hr-journal");
  std::unique_lock lock(mu_);
  while (true) {
    work_.wait(lock, [&] { return !queued_.empty() || stopping_; });
    if (queued_.empty() && stopping_) return;
    std::vector<StoreWrite> batch_writes;
    batch_writes.swap(queued_);
    const uint64_t batch = open_batch_++;
    lock.unlock();
    auto result = store_.Apply(batch_writes);
    lock.lock();
    ++batches_;
    writes_ += batch_writes.size();
    if (!result) {
      failed_.emplace_back(batch, result.error());
      while (failed_.size() > 64) failed_.pop_front();
    }
    committed_batch_ = batch;
    done_.notify_all();
  }
}

void Journal::Stop() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && !writer_.joinable()) return;
    stopping_ = true;
  }
  work_.notify_one();
  if (writer_.joinable()) writer_.join();
}

uint64_t Journal::batches() const {
  std::lock_guard lock(mu_);
  return batches_;
}

uint64_t Journal::writes() const {
  std::lock_guard lock(mu_);
  return writes_;
}

}  // namespace headroom::control
