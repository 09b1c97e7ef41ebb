#include "engine/queue_order.h"

#include <algorithm>

namespace headroom::engine {
namespace {

class FifoOrder final : public QueueOrder {
 public:
  std::string_view name() const override { return "fifo"; }
  QueueKey Key(const model::Job& job, JobId id, const OrderContext&) const override {
    return {0, job.submit_time_us, id.value()};
  }
};

class PriorityOrder final : public QueueOrder {
 public:
  std::string_view name() const override { return "priority"; }
  QueueKey Key(const model::Job& job, JobId id, const OrderContext&) const override {
    return {-static_cast<double>(job.priority), job.submit_time_us, id.value()};
  }
};

class MultifactorOrder final : public QueueOrder {
 public:
  explicit MultifactorOrder(MultifactorWeights weights) : weights_(weights) {}
  std::string_view name() const override { return "multifactor"; }
  bool time_dependent() const override { return true; }

  QueueKey Key(const model::Job& job, JobId id, const OrderContext& context) const override {
    const double age = std::clamp(static_cast<double>(context.now_us - job.submit_time_us) /
                                      static_cast<double>(weights_.max_age_us),
                                  0.0, 1.0);
    const double size = std::min(1.0, static_cast<double>(job.total_devices()) /
                                          static_cast<double>(context.cluster_devices));
    const double qos =
        context.max_priority > 0
            ? std::clamp(static_cast<double>(job.priority) / context.max_priority, 0.0, 1.0)
            : 0.0;
    const double priority = weights_.age * age + weights_.fairshare * context.fairshare +
                            weights_.job_size * size + weights_.qos * qos;
    return {-priority, job.submit_time_us, id.value()};
  }

 private:
  MultifactorWeights weights_;
};

}  // namespace

Result<std::unique_ptr<QueueOrder>> MakeQueueOrder(std::string_view name,
                                                   const MultifactorWeights& weights) {
  if (name == "fifo") return std::make_unique<FifoOrder>();
  if (name == "priority") return std::make_unique<PriorityOrder>();
  if (name == "multifactor") return std::make_unique<MultifactorOrder>(weights);
  return MakeError(ErrorCode::kInvalidArgument,
                   "queue order '{}': expected one of fifo, priority, multifactor", name);
}

std::vector<std::string_view> QueueOrderNames() { return {"fifo", "priority", "multifactor"}; }

}  // namespace headroom::engine
