// Each built-in queue order's exact keys (queue_order.h): fifo by submit time, priority by
// priority then submit time, multifactor by Slurm's weighted factors, qssf by predicted service
// with an age limit.
#include "engine/queue_order.h"

#include <gtest/gtest.h>

#include "testing/cluster_fixtures.h"

namespace headroom::engine {
namespace {

model::Job JobAt(double submit_s, int32_t priority, uint32_t devices) {
  model::Job job = headroom::testing::JobOf(1, devices);
  job.submit_time_us = SecondsToUs(submit_s);
  job.priority = priority;
  return job;
}

TEST(QueueOrderTest, FifoAndPriorityKeys) {
  const OrderContext context;
  auto fifo = *MakeQueueOrder("fifo", PolicyConfig{});
  auto priority = *MakeQueueOrder("priority", PolicyConfig{});
  const model::Job early_low = JobAt(10, 0, 1);
  const model::Job late_high = JobAt(20, 5, 1);
  EXPECT_LT(fifo->Key(early_low, JobId(1), context), fifo->Key(late_high, JobId(0), context));
  EXPECT_LT(priority->Key(late_high, JobId(0), context),
            priority->Key(early_low, JobId(1), context));
  // Same submit time and priority: the lower id first.
  EXPECT_LT(fifo->Key(early_low, JobId(1), context), fifo->Key(early_low, JobId(2), context));
  EXPECT_FALSE(fifo->time_dependent());
  EXPECT_FALSE(priority->time_dependent());
}

TEST(QueueOrderTest, MultifactorWeighsAgeFairShareSizeAndQos) {
  PolicyConfig policy;
  MultifactorWeights& weights = policy.multifactor;
  weights.age = 1000;
  weights.fairshare = 100000;
  weights.job_size = 1000;
  weights.qos = 10000;
  weights.max_age_us = 7 * 24 * 3600 * kUsPerSecond;
  auto order = *MakeQueueOrder("multifactor", policy);
  EXPECT_TRUE(order->time_dependent());
  OrderContext context;
  context.now_us = weights.max_age_us / 2;  // Half the maximum age: age factor 0.5.
  context.cluster_devices = 64;             // 8 of 64 devices: size factor 0.125.
  context.max_priority = 2;                 // Priority 1 of 2: QoS factor 0.5.
  context.fairshare = 0.5;
  const QueueKey key = order->Key(JobAt(0, 1, 8), JobId(3), context);
  EXPECT_DOUBLE_EQ(key.primary, -(1000 * 0.5 + 100000 * 0.5 + 1000 * 0.125 + 10000 * 0.5));
  EXPECT_EQ(key.id, 3u);
  // Past the maximum age, age counts 1 and no more.
  context.now_us = weights.max_age_us * 3;
  EXPECT_DOUBLE_EQ(order->Key(JobAt(0, 1, 8), JobId(3), context).primary,
                   -(1000 * 1.0 + 100000 * 0.5 + 1000 * 0.125 + 10000 * 0.5));
}

TEST(QueueOrderTest, QssfPutsTheLeastPredictedServiceFirstUntilTheAgeLimit) {
  PolicyConfig policy;
  policy.service.age_limit_us = 3600 * kUsPerSecond;
  auto order = *MakeQueueOrder("qssf", policy);
  EXPECT_TRUE(order->time_dependent());
  OrderContext context;
  context.now_us = 600 * kUsPerSecond;
  // 8 devices for a predicted 100 s (800 device-seconds) go before 1 device for 1000 s.
  context.predicted_runtime_us = 100 * kUsPerSecond;
  const QueueKey wide_short = order->Key(JobAt(10, 0, 8), JobId(1), context);
  EXPECT_DOUBLE_EQ(wide_short.primary, 800);
  context.predicted_runtime_us = 1000 * kUsPerSecond;
  const QueueKey narrow_long = order->Key(JobAt(0, 0, 1), JobId(0), context);
  EXPECT_DOUBLE_EQ(narrow_long.primary, 1000);
  EXPECT_LT(wide_short, narrow_long);
  // Without history a job counts 1 s: the order is by size.
  context.predicted_runtime_us = 0;
  EXPECT_DOUBLE_EQ(order->Key(JobAt(0, 0, 4), JobId(2), context).primary, 4);
  // Past the age limit a job goes before every younger one, whatever its service; among the
  // aged, the oldest first.
  context.now_us = 3600 * kUsPerSecond + 5 * kUsPerSecond;
  context.predicted_runtime_us = 1000 * kUsPerSecond;
  const QueueKey aged_late = order->Key(JobAt(5, 0, 64), JobId(3), context);
  const QueueKey aged_early = order->Key(JobAt(4, 0, 64), JobId(4), context);
  const QueueKey young = order->Key(JobAt(10, 0, 1), JobId(5), context);
  EXPECT_LT(aged_late, young);
  EXPECT_LT(aged_early, aged_late);
  // No limit: never aged.
  auto unaged = *MakeQueueOrder("qssf", PolicyConfig{});
  EXPECT_GT(unaged->Key(JobAt(0, 0, 64), JobId(6), context).primary, 0);
}

TEST(QueueOrderTest, LasPutsTheLeastServedQueueFirstThenFirstComeFirstServed) {
  PolicyConfig policy;
  policy.las.limits_device_s = {100, 1000};
  auto order = *MakeQueueOrder("las", policy);
  EXPECT_FALSE(order->time_dependent());
  ASSERT_NE(order->attained_service(), nullptr);
  OrderContext context;
  context.attained_device_us = 100 * kUsPerSecond;  // Reached the first limit: second queue.
  const QueueKey served_early = order->Key(JobAt(0, 0, 1), JobId(0), context);
  EXPECT_DOUBLE_EQ(served_early.primary, 1);
  context.attained_device_us = 99 * kUsPerSecond;
  const QueueKey fresh_late = order->Key(JobAt(50, 0, 64), JobId(1), context);
  const QueueKey fresh_later = order->Key(JobAt(60, 0, 1), JobId(2), context);
  EXPECT_DOUBLE_EQ(fresh_late.primary, 0);
  EXPECT_LT(fresh_late, served_early);  // Less service first, whatever its size or submission.
  EXPECT_LT(fresh_late, fresh_later);   // One queue: first come first served.
  policy.las.promote_knob = 2;
  EXPECT_TRUE((*MakeQueueOrder("las", policy))->time_dependent());  // Promotions move keys.
  // The other orders do not rank by attained service.
  EXPECT_EQ((*MakeQueueOrder("qssf", policy))->attained_service(), nullptr);
}

}  // namespace
}  // namespace headroom::engine
