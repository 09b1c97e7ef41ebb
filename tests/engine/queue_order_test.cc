// Each built-in queue order's exact keys (queue_order.h): fifo by submit time, priority by
// priority then submit time, multifactor by Slurm's weighted factors.
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
  auto fifo = *MakeQueueOrder("fifo", MultifactorWeights{});
  auto priority = *MakeQueueOrder("priority", MultifactorWeights{});
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
  MultifactorWeights weights;
  weights.age = 1000;
  weights.fairshare = 100000;
  weights.job_size = 1000;
  weights.qos = 10000;
  weights.max_age_us = 7 * 24 * 3600 * kUsPerSecond;
  auto order = *MakeQueueOrder("multifactor", weights);
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

}  // namespace
}  // namespace headroom::engine
