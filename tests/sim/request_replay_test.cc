// ReplicaPool: requests replayed against replicas that come and go. Scenarios use a replica with
// round numbers (1,000 prompt tokens a second, 10 ms a decode step, 10,000 tokens of KV), so
// every time below is worked by hand; a property checks that no request is lost or served twice
// through any sequence of arrivals, scale-ups, drains and abrupt stops.
#include "sim/request_replay.h"

#include <algorithm>
#include <map>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace headroom::sim {
namespace {

model::ServingCapacity RoundReplica() {
  return model::ServingCapacity{.prefill_tokens_per_s = 1000,
                                .kv_capacity_tokens = 10'000,
                                .weight_read_s = 0.01,
                                .kv_read_s_per_token = 0};
}

InferenceRequest At(double seconds, uint32_t input, uint32_t output) {
  return InferenceRequest{SecondsToUs(seconds), input, output};
}

TEST(ReplicaPool, OneRequestPrefillsThenDecodes) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 0);
  pool.Arrive(At(0, 1000, 100));
  pool.Finish();
  const RequestOutcome& outcome = pool.outcomes().at(0);
  EXPECT_EQ(outcome.first_token_us, 1 * kUsPerSecond);
  EXPECT_EQ(outcome.finish_us, 2 * kUsPerSecond);  // 100 steps of 10 ms.
  EXPECT_DOUBLE_EQ(outcome.tbt_s, 0.01);
  EXPECT_TRUE(outcome.met_slo);
}

TEST(ReplicaPool, PrefillsQueueOnAReplicaAndTheSloCountsTheWait) {
  ReplicaPool pool(RoundReplica(), ServingSlo{.ttft_us = 2 * kUsPerSecond, .tbt_s = 0.2});
  pool.AddReplica(1, 0);
  for (int i = 0; i < 3; ++i) pool.Arrive(At(0, 1000, 10));
  pool.Finish();
  const auto& outcomes = pool.outcomes();
  EXPECT_EQ(outcomes[0].first_token_us, 1 * kUsPerSecond);
  EXPECT_EQ(outcomes[1].first_token_us, 2 * kUsPerSecond);
  EXPECT_EQ(outcomes[2].first_token_us, 3 * kUsPerSecond);
  EXPECT_TRUE(outcomes[1].met_slo);  // Exactly at the SLO.
  EXPECT_FALSE(outcomes[2].met_slo);
  const ServingSummary summary = Summarize(outcomes);
  EXPECT_EQ(summary.requests, 3u);
  EXPECT_NEAR(summary.slo_attainment, 2.0 / 3, 1e-12);
  EXPECT_DOUBLE_EQ(summary.ttft_s.max, 3.0);
}

TEST(ReplicaPool, TheNextRequestGoesWherePrefillStartsFirst) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 0);
  pool.AddReplica(2, 0);
  for (int i = 0; i < 3; ++i) pool.Arrive(At(0, 1000, 10));
  pool.Finish();
  const auto& outcomes = pool.outcomes();
  EXPECT_EQ(outcomes[0].first_token_us, 1 * kUsPerSecond);
  EXPECT_EQ(outcomes[1].first_token_us, 1 * kUsPerSecond);  // The other replica.
  EXPECT_EQ(outcomes[2].first_token_us, 2 * kUsPerSecond);
}

TEST(ReplicaPool, AFullKvCacheHoldsTheQueueUntilARequestFinishes) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 0);
  pool.Arrive(At(0, 1000, 5000));  // 6,000 tokens resident until 1 + 50 s.
  pool.Arrive(At(0, 1000, 5000));  // Does not fit beside it.
  pool.AdvanceTo(10 * kUsPerSecond);
  EXPECT_EQ(pool.queued(), 1u);
  EXPECT_NEAR(pool.kv_utilisation(), 0.6, 1e-12);
  pool.Finish();
  EXPECT_EQ(pool.outcomes()[1].first_token_us, 52 * kUsPerSecond);
  EXPECT_FALSE(pool.outcomes()[1].met_slo);
}

TEST(ReplicaPool, ARequestLargerThanAReplicaFailsAndDoesNotBlockTheQueue) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 0);
  pool.Arrive(At(0, 9000, 2000));
  pool.Arrive(At(0, 100, 10));
  pool.Finish();
  EXPECT_EQ(pool.outcomes()[0].finish_us, kNever);
  EXPECT_EQ(pool.outcomes()[1].first_token_us, kUsPerSecond / 10);
  const ServingSummary summary = Summarize(pool.outcomes());
  EXPECT_EQ(summary.failed, 1u);
  EXPECT_DOUBLE_EQ(summary.slo_attainment, 0.5);
}

TEST(ReplicaPool, AReplicaStillStartingServesNothingUntilItIsUp) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 5 * kUsPerSecond);  // A 5 s model load.
  pool.Arrive(At(0, 1000, 10));
  pool.AdvanceTo(4 * kUsPerSecond);
  EXPECT_EQ(pool.serving_replicas(), 0u);
  EXPECT_EQ(pool.queued(), 1u);
  pool.Finish();
  EXPECT_EQ(pool.outcomes()[0].first_token_us, 6 * kUsPerSecond);
  EXPECT_FALSE(pool.outcomes()[0].met_slo);
}

TEST(ReplicaPool, AnAbruptStopSendsWhatItHeldBackToTheHead) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 0);
  pool.Arrive(At(0, 1000, 100));  // On replica 1: first token at 1 s, done at 2 s.
  pool.AddReplica(2, SecondsToUs(1.5));
  pool.StopReplica(1, SecondsToUs(1.5), /*drain=*/false);
  pool.Finish();
  const RequestOutcome& outcome = pool.outcomes()[0];
  EXPECT_EQ(outcome.restarts, 1u);
  EXPECT_EQ(outcome.first_token_us, SecondsToUs(2.5));  // Prefilled again on replica 2.
  EXPECT_EQ(outcome.finish_us, SecondsToUs(3.5));
  EXPECT_FALSE(outcome.met_slo);
  EXPECT_EQ(Summarize(pool.outcomes()).restarted, 1u);
}

TEST(ReplicaPool, ADrainFinishesWhatItHoldsAndTakesNothingNew) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  pool.AddReplica(1, 0);
  pool.Arrive(At(0, 1000, 100));
  pool.StopReplica(1, SecondsToUs(1.5), /*drain=*/true);
  EXPECT_EQ(pool.serving_replicas(), 0u);
  EXPECT_EQ(pool.in_flight(), 1u);
  pool.Arrive(At(3, 10, 10));  // No replica left to take it.
  pool.Finish();
  EXPECT_EQ(pool.outcomes()[0].finish_us, 2 * kUsPerSecond);
  EXPECT_EQ(pool.outcomes()[0].restarts, 0u);
  EXPECT_EQ(pool.outcomes()[1].finish_us, kNever);
}

TEST(ReplicaPool, DecodeSlowsWithTheKvResidentAtAdmission) {
  model::ServingCapacity capacity = RoundReplica();
  capacity.kv_read_s_per_token = 1e-6;
  ReplicaPool pool(capacity, ServingSlo{.ttft_us = 10 * kUsPerSecond, .tbt_s = 0.013});
  pool.AddReplica(1, 0);
  pool.Arrive(At(0, 1000, 1000));  // 2,000 resident: 12 ms a step.
  pool.Arrive(At(0, 1000, 1000));  // 4,000 resident: 14 ms, over the TBT SLO.
  pool.Finish();
  EXPECT_NEAR(pool.outcomes()[0].tbt_s, 0.012, 1e-12);
  EXPECT_NEAR(pool.outcomes()[1].tbt_s, 0.014, 1e-12);
  EXPECT_TRUE(pool.outcomes()[0].met_slo);
  EXPECT_FALSE(pool.outcomes()[1].met_slo);
}

// Any sequence of arrivals, scale-ups, drains and abrupt stops: every request ends served or
// failed exactly once, served ones in causal order, and no replica's KV cache overflows. A twin
// pool that retires settled requests after every step sums up the same.
RC_GTEST_PROP(ReplicaPoolProperty, NoRequestLostOrServedTwice, ()) {
  ReplicaPool pool(RoundReplica(), ServingSlo{});
  ReplicaPool retiring(RoundReplica(), ServingSlo{});
  ServingTally retired;
  const auto steps = *rc::gen::container<std::vector<std::tuple<int, int, int>>>(rc::gen::tuple(
      rc::gen::inRange(0, 4), rc::gen::inRange(0, 3000), rc::gen::inRange(1, 12000)));
  std::vector<uint64_t> live;
  uint64_t next_id = 1;
  TimeUs now_us = 0;
  size_t offered = 0;
  for (const auto& [action, gap_ms, tokens] : steps) {
    now_us += gap_ms * 1000;
    switch (action) {
      case 0:
      case 1:
        for (ReplicaPool* each : {&pool, &retiring}) {
          each->Arrive(InferenceRequest{now_us, static_cast<uint32_t>(tokens / 2),
                                        static_cast<uint32_t>(tokens - tokens / 2)});
        }
        ++offered;
        break;
      case 2:
        for (ReplicaPool* each : {&pool, &retiring}) {
          each->AddReplica(next_id, now_us + (tokens % 5) * kUsPerSecond);
        }
        live.push_back(next_id++);
        break;
      default:
        if (live.empty()) break;
        const size_t index = static_cast<size_t>(tokens) % live.size();
        for (ReplicaPool* each : {&pool, &retiring}) {
          each->StopReplica(live[index], now_us, tokens % 2 == 0);
        }
        live.erase(live.begin() + static_cast<ptrdiff_t>(index));
        break;
    }
    RC_ASSERT(pool.kv_utilisation() <= 1.0);
    retiring.RetireSettled(retired);
  }
  pool.Finish();
  retiring.Finish();
  retiring.RetireSettled(retired);
  RC_ASSERT(retiring.outcomes().empty());
  RC_ASSERT(pool.outcomes().size() == offered);
  RC_ASSERT(pool.queued() == 0u);
  RC_ASSERT(pool.in_flight() == 0u);
  for (const RequestOutcome& outcome : pool.outcomes()) {
    if (outcome.finish_us == kNever) {
      RC_ASSERT(!outcome.met_slo);
      continue;
    }
    RC_ASSERT(outcome.first_token_us >= outcome.arrival_us);
    RC_ASSERT(outcome.finish_us >= outcome.first_token_us);
  }
  const ServingSummary summary = Summarize(pool.outcomes());
  RC_ASSERT(summary.requests == offered);
  RC_ASSERT(summary.ttft_s.count + summary.failed == offered);
  const ServingSummary twin = retired.Summary();
  RC_ASSERT(twin.requests == summary.requests);
  RC_ASSERT(twin.failed == summary.failed);
  RC_ASSERT(twin.restarted == summary.restarted);
  RC_ASSERT(twin.slo_attainment == summary.slo_attainment);
  RC_ASSERT(twin.latency_s.p99 == summary.latency_s.p99);
  RC_ASSERT(twin.latency_s.max == summary.latency_s.max);
}

}  // namespace
}  // namespace headroom::sim
