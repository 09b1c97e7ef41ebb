// Journal: group commit in front of the store. Any thread calls Commit(writes); one writer
// thread takes everything queued since its last transaction, applies it in ONE transaction,
// and then releases every caller whose writes it held. Durability costs one fsync per batch,
// not per request, so concurrent submissions share it.
//
// Promises:
//  1. Commit returns success only after its writes are durable (the transaction committed).
//  2. Writes from one caller are applied in the order given; batches in the order queued.
//  3. A failed transaction fails every caller in it (their writes are not applied).
//  4. Stop() commits whatever is queued, then joins the writer; Commit after Stop fails.
// Threading: Commit is thread-safe; the store is touched by the writer thread only.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/result.h"
#include "control/records.h"
#include "control/sqlite_store.h"

namespace headroom::control {

class Journal {
 public:
  explicit Journal(SqliteStore& store);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  tl::expected<void, Error> Commit(std::vector<StoreWrite> writes);
  void Stop();

  // Transactions committed and writes applied so far (for metrics and tests).
  uint64_t batches() const;
  uint64_t writes() const;

 private:
  void Run();

  SqliteStore& store_;
  mutable std::mutex mu_;
  std::condition_variable work_;
  std::condition_variable done_;
  std::vector<StoreWrite> queued_;
  uint64_t open_batch_ = 1;                        // The batch that new writes join.
  uint64_t committed_batch_ = 0;                   // Every batch <= this is finished (see failed_).
  std::deque<std::pair<uint64_t, Error>> failed_;  // Recent failed batches.
  bool stopping_ = false;
  uint64_t batches_ = 0;
  uint64_t writes_ = 0;
  std::thread writer_;
};

}  // namespace headroom::control
