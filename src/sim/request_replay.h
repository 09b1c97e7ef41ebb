// ReplicaPool: a service's inference requests replayed, one by one, against its replicas as they
// come and go, so that SLO attainment is measured request by request.
// The model of a replica (its numbers from model::ServingCapacity):
//  - One central FIFO queue in front of the replicas (a router that holds requests, as llm-d's
//    and Dynamo's do), so a replica that starts serving takes the backlog at once.
//  - A request is admitted where its whole context (input + output tokens) fits in the KV cache
//    beside what is resident (vLLM's paged attention, reserved up front so it is never evicted);
//    among the replicas with room, the one whose prefill starts first, then the emptiest.
//  - Prefill runs one request at a time per replica, at prefill_tokens_per_s. Time to first
//    token (TTFT) is from arrival to the end of the prefill, queueing included.
//  - Decode then produces the output tokens at the step time of the batch resident when the
//    request was admitted (one token per sequence per step, memory-bound). Decode and prefill do
//    not slow each other, which flatters time between tokens (TBT) under long prompts.
//  - A replica serves from `serving_from_us` (its start-up done). Stopped by a drain (scale
//    down) it takes nothing new and finishes what it holds; stopped abruptly (preemption) its
//    unfinished requests go back to the head of the queue and start over, their arrival kept.
//  - A request whose context exceeds a whole replica's KV cache cannot be served: it is counted
//    as failed, never queued forever.
//  - Settled requests (served or failed) may be retired into a ServingTally as the run goes, so
//    that weeks of requests take no more memory than those in flight.
// Promises: every request offered is, by the end of Finish, served or failed, exactly once;
// deterministic. Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <queue>
#include <vector>

#include "base/time.h"
#include "model/service.h"
#include "model/serving_capacity.h"
#include "sim/run_result.h"
#include "sim/serving_tally.h"
#include "sim/traces/request_trace.h"

namespace headroom::sim {

using ServingSlo = model::LatencySlo;

struct RequestOutcome {
  TimeUs arrival_us = 0;
  TimeUs first_token_us = 0;  // kNever when failed.
  TimeUs finish_us = 0;       // kNever when failed.
  double tbt_s = 0;
  uint32_t restarts = 0;  // Times an abrupt stop sent it back to the queue.
  bool met_slo = false;
  bool settled = false;  // Served to its last token, or failed: final.
};

// Over outcomes after ReplicaPool::Finish (before it, queued requests look unserved).
ServingSummary Summarize(const std::deque<RequestOutcome>& outcomes);

class ReplicaPool {
 public:
  ReplicaPool(model::ServingCapacity capacity, ServingSlo slo);

  // A replica that serves from `serving_from_us` on; ids are the caller's and unique.
  void AddReplica(uint64_t id, TimeUs serving_from_us);
  // Stops a replica at `at_us` (not before the last call's time): drained, or abruptly.
  void StopReplica(uint64_t id, TimeUs at_us, bool drain);

  // Offers a request; arrivals come in order, none before the time already reached.
  void Arrive(const InferenceRequest& request);
  // Runs the replicas up to `now_us`.
  void AdvanceTo(TimeUs now_us);
  // Runs until every offered request is served or failed; what is queued with no replica left
  // fails at the time reached.
  void Finish();

  TimeUs now_us() const { return now_us_; }
  size_t queued() const { return queue_.size(); }
  size_t in_flight() const;
  size_t serving_replicas() const;
  // Resident KV tokens over the capacity of the serving replicas (0 with none): the load.
  double kv_utilisation() const;
  // Those offered and not retired, in arrival order.
  const std::deque<RequestOutcome>& outcomes() const { return outcomes_; }
  // Moves the settled requests at the head of outcomes() into `tally`.
  void RetireSettled(ServingTally& tally);

 private:
  struct InFlight {
    TimeUs finish_us;
    size_t request;  // Offered index: outcomes_ and requests_ hold it at request - retired_.
    bool operator>(const InFlight& other) const {
      return finish_us != other.finish_us ? finish_us > other.finish_us : request > other.request;
    }
  };
  struct Replica {
    TimeUs serving_from_us = 0;
    bool draining = false;
    TimeUs prefill_free_us = 0;
    int64_t resident_tokens = 0;
    std::priority_queue<InFlight, std::vector<InFlight>, std::greater<>> in_flight;
  };

  int64_t Tokens(size_t request) const;
  RequestOutcome& OutcomeOf(size_t request) { return outcomes_[request - retired_]; }
  void Dispatch();
  void Complete(TimeUs until_us);
  TimeUs NextEventUs() const;
  void Fail(size_t request);

  model::ServingCapacity capacity_;
  ServingSlo slo_;
  TimeUs now_us_ = 0;
  std::map<uint64_t, Replica> replicas_;
  std::deque<size_t> queue_;
  size_t retired_ = 0;
  std::deque<InferenceRequest> requests_;
  std::deque<RequestOutcome> outcomes_;
};

}  // namespace headroom::sim
