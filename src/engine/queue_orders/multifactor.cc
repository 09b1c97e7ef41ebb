// multifactor: Slurm priority/multifactor (https://slurm.schedmd.com/priority_multifactor.html),
// priority = w_age·age + w_fairshare·fairshare + w_job_size·size + w_qos·qos, descending, each
// factor in [0, 1] as queue_order.h describes. Keys drift with time and usage.
#include <algorithm>

#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {
namespace {

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

std::unique_ptr<QueueOrder> MakeMultifactorOrder(const PolicyConfig& policy) {
  return std::make_unique<MultifactorOrder>(policy.multifactor);
}

}  // namespace headroom::engine
