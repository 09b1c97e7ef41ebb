#include "sim/request_replay.h"

#include <algorithm>

#include "base/check.h"

namespace headroom::sim {

ReplicaPool::ReplicaPool(model::ServingCapacity capacity, ServingSlo slo)
    : capacity_(capacity), slo_(slo) {
  HR_CHECK(capacity_.prefill_tokens_per_s > 0 && capacity_.kv_capacity_tokens > 0);
}

void ReplicaPool::AddReplica(uint64_t id, TimeUs serving_from_us) {
  HR_CHECK(!replicas_.contains(id));
  Replica& replica = replicas_[id];
  replica.serving_from_us = serving_from_us;
  replica.prefill_free_us = serving_from_us;
  Dispatch();
}

void ReplicaPool::StopReplica(uint64_t id, TimeUs at_us, bool drain) {
  AdvanceTo(at_us);
  auto found = replicas_.find(id);
  HR_CHECK(found != replicas_.end());
  Replica& replica = found->second;
  if (drain && !replica.in_flight.empty()) {
    replica.draining = true;
    return;
  }
  // What it held starts over from the head of the queue, in arrival order.
  std::vector<size_t> lost;
  for (; !replica.in_flight.empty(); replica.in_flight.pop()) {
    lost.push_back(replica.in_flight.top().request);
  }
  std::sort(lost.begin(), lost.end(), std::greater<>());
  for (const size_t request : lost) {
    RequestOutcome& outcome = OutcomeOf(request);
    outcome = RequestOutcome{.arrival_us = outcome.arrival_us, .restarts = outcome.restarts + 1};
    queue_.push_front(request);
  }
  replicas_.erase(found);
  Dispatch();
}

void ReplicaPool::Arrive(const InferenceRequest& request) {
  HR_CHECK(request.arrival_us >= now_us_);
  AdvanceTo(request.arrival_us);
  requests_.push_back(request);
  outcomes_.push_back(RequestOutcome{.arrival_us = request.arrival_us});
  queue_.push_back(retired_ + requests_.size() - 1);
  Dispatch();
}

void ReplicaPool::AdvanceTo(TimeUs now_us) {
  HR_CHECK(now_us >= now_us_);
  for (;;) {
    Complete(now_us_);
    Dispatch();
    const TimeUs next_us = NextEventUs();
    if (next_us > now_us) break;
    now_us_ = next_us;
  }
  now_us_ = now_us;
  Complete(now_us_);
  Dispatch();
}

void ReplicaPool::Finish() {
  for (TimeUs next_us = NextEventUs(); next_us != kNever; next_us = NextEventUs()) {
    AdvanceTo(next_us);
  }
  for (; !queue_.empty(); queue_.pop_front()) Fail(queue_.front());
}

size_t ReplicaPool::in_flight() const {
  size_t count = 0;
  for (const auto& [id, replica] : replicas_) count += replica.in_flight.size();
  return count;
}

size_t ReplicaPool::serving_replicas() const {
  return std::count_if(replicas_.begin(), replicas_.end(), [&](const auto& entry) {
    return !entry.second.draining && entry.second.serving_from_us <= now_us_;
  });
}

double ReplicaPool::kv_utilisation() const {
  int64_t resident = 0;
  int64_t capacity = 0;
  for (const auto& [id, replica] : replicas_) {
    if (replica.draining || replica.serving_from_us > now_us_) continue;
    resident += replica.resident_tokens;
    capacity += capacity_.kv_capacity_tokens;
  }
  return capacity == 0 ? 0 : static_cast<double>(resident) / static_cast<double>(capacity);
}

void ReplicaPool::RetireSettled(ServingTally& tally) {
  for (; !outcomes_.empty() && outcomes_.front().settled; ++retired_) {
    tally.Add(outcomes_.front());
    outcomes_.pop_front();
    requests_.pop_front();
  }
}

int64_t ReplicaPool::Tokens(size_t request) const {
  const InferenceRequest& shape = requests_[request - retired_];
  return int64_t{shape.input_tokens} + shape.output_tokens;
}

void ReplicaPool::Dispatch() {
  while (!queue_.empty()) {
    const size_t request = queue_.front();
    const int64_t tokens = Tokens(request);
    if (tokens > capacity_.kv_capacity_tokens) {
      Fail(request);
      queue_.pop_front();
      continue;
    }
    Replica* best = nullptr;
    for (auto& [id, replica] : replicas_) {
      if (replica.draining || replica.serving_from_us > now_us_ ||
          replica.resident_tokens + tokens > capacity_.kv_capacity_tokens) {
        continue;
      }
      if (best == nullptr || replica.prefill_free_us < best->prefill_free_us ||
          (replica.prefill_free_us == best->prefill_free_us &&
           replica.resident_tokens < best->resident_tokens)) {
        best = &replica;
      }
    }
    if (best == nullptr) return;  // Strict FIFO: nothing overtakes the head.
    queue_.pop_front();
    const InferenceRequest& shape = requests_[request - retired_];
    const TimeUs prefill_end_us =
        std::max(now_us_, best->prefill_free_us) + capacity_.PrefillUs(shape.input_tokens);
    best->prefill_free_us = prefill_end_us;
    best->resident_tokens += tokens;
    const double step_s = capacity_.DecodeStepS(best->resident_tokens);
    RequestOutcome& outcome = OutcomeOf(request);
    outcome.first_token_us = prefill_end_us;
    outcome.tbt_s = step_s;
    outcome.finish_us = prefill_end_us + SecondsToUs(step_s * shape.output_tokens);
    outcome.met_slo = prefill_end_us - outcome.arrival_us <= slo_.ttft_us && step_s <= slo_.tbt_s;
    best->in_flight.push(InFlight{outcome.finish_us, request});
  }
}

void ReplicaPool::Complete(TimeUs until_us) {
  for (auto it = replicas_.begin(); it != replicas_.end();) {
    Replica& replica = it->second;
    for (; !replica.in_flight.empty() && replica.in_flight.top().finish_us <= until_us;
         replica.in_flight.pop()) {
      replica.resident_tokens -= Tokens(replica.in_flight.top().request);
      OutcomeOf(replica.in_flight.top().request).settled = true;
    }
    HR_CHECK(replica.resident_tokens >= 0);
    it = replica.draining && replica.in_flight.empty() ? replicas_.erase(it) : std::next(it);
  }
}

TimeUs ReplicaPool::NextEventUs() const {
  TimeUs next_us = kNever;
  for (const auto& [id, replica] : replicas_) {
    if (!replica.in_flight.empty()) next_us = std::min(next_us, replica.in_flight.top().finish_us);
    if (!replica.draining && replica.serving_from_us > now_us_) {
      next_us = std::min(next_us, replica.serving_from_us);
    }
  }
  return next_us;
}

void ReplicaPool::Fail(size_t request) {
  RequestOutcome& outcome = OutcomeOf(request);
  outcome.first_token_us = kNever;
  outcome.finish_us = kNever;
  outcome.met_slo = false;
  outcome.settled = true;
}

ServingSummary Summarize(const std::deque<RequestOutcome>& outcomes) {
  ServingTally tally;
  for (const RequestOutcome& outcome : outcomes) tally.Add(outcome);
  return tally.Summary();
}

}  // namespace headroom::sim
