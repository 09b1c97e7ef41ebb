// The queue-order role's contract (queue_order.h), run over every registered order with random
// weights, jobs and contexts: keys are a pure function of their inputs, distinct ids give
// distinct keys (a strict total order), and an order that says it is not time-dependent gives
// the same key whatever the time, usage and cluster.
#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/queue_order.h"
#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

OrderContext GenContext() {
  OrderContext context;
  context.now_us = SecondsToUs(static_cast<double>(*rc::gen::inRange<int64_t>(0, 100'000)));
  context.cluster_devices = *rc::gen::inRange<uint64_t>(1, 100'000);
  context.max_priority = *rc::gen::inRange<int32_t>(0, 5);
  context.fairshare = *rc::gen::element(0.0, 0.25, 0.5, 1.0);
  context.predicted_runtime_us = *rc::gen::element<TimeUs>(0, kUsPerSecond, 3600 * kUsPerSecond);
  return context;
}

RC_GTEST_PROP(QueueOrderContract, KeysArePureTotalAndStableWhenTimeIndependent, ()) {
  PolicyConfig policy;
  MultifactorWeights& weights = policy.multifactor;
  weights.age = *rc::gen::element(0.0, 1.0, 1000.0);
  weights.fairshare = *rc::gen::element(0.0, 100000.0);
  weights.job_size = *rc::gen::element(0.0, 1000.0);
  weights.qos = *rc::gen::element(0.0, 10000.0);
  policy.service.age_limit_us = *rc::gen::element<TimeUs>(0, 600 * kUsPerSecond);
  const auto jobs = headroom::testing::ToJobs(*headroom::testing::GenWorkload());
  const OrderContext context = GenContext();
  const OrderContext other = GenContext();
  for (const auto& entry : QueueOrders().entries()) {
    const std::unique_ptr<QueueOrder> order = entry.make(policy);
    RC_ASSERT(order->name() == entry.name);
    std::vector<QueueKey> keys;
    for (uint32_t i = 0; i < jobs.size(); ++i) {
      const QueueKey key = order->Key(jobs[i], JobId(i), context);
      const QueueKey again = order->Key(jobs[i], JobId(i), context);
      RC_ASSERT(!(key < again) && !(again < key));
      if (!order->time_dependent()) {
        const QueueKey later = order->Key(jobs[i], JobId(i), other);
        RC_ASSERT(!(key < later) && !(later < key));
      }
      keys.push_back(key);
    }
    for (size_t a = 0; a < keys.size(); ++a) {
      for (size_t b = a + 1; b < keys.size(); ++b)
        RC_ASSERT((keys[a] < keys[b]) != (keys[b] < keys[a]));
    }
  }
}

TEST(QueueOrderContract, EveryOrderIsRegisteredUnderItsOwnName) {
  EXPECT_EQ(QueueOrders().Names(),
            (std::vector<std::string_view>{"fifo", "priority", "multifactor", "qssf", "las"}));
  for (const auto& entry : QueueOrders().entries()) {
    EXPECT_EQ(entry.make(PolicyConfig{})->name(), entry.name);
  }
  auto unknown = MakeQueueOrder("lifo", PolicyConfig{});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message,
            "queue order 'lifo': expected one of fifo, priority, multifactor, qssf, las");
}

}  // namespace
}  // namespace headroom::engine
