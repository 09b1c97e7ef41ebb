// qssf: Helios's quasi-shortest-service-first (Hu et al., "Characterization and Prediction of
// Deep Learning Workloads in Large-Scale GPU Datacenters", SC'21, §5; policies/qssf.py of
// S-Lab-System-Group/HeliosArtifact): pending jobs ascending by predicted service, devices ×
// the runtime their tenant's history predicts (runtime_history.h), so that the many short jobs
// do not queue behind the few long ones and no job's own time limit is trusted. Without history
// the prediction is 1 s, which orders by size, as the artifact sorts new jobs by GPU count.
// The age limit (ServiceOrderConfig) is ours: a job that has waited that long goes ahead of
// every younger one, oldest first, so that shortest-first cannot starve a large, long job.
#include <algorithm>

#include "engine/queue_orders/builtin_queue_orders.h"

namespace headroom::engine {
namespace {

class ServiceOrder final : public QueueOrder {
 public:
  explicit ServiceOrder(ServiceOrderConfig config) : config_(config) {}
  std::string_view name() const override { return "qssf"; }
  bool time_dependent() const override { return true; }
  bool uses_predicted_runtime() const override { return true; }

  QueueKey Key(const model::Job& job, JobId id, const OrderContext& context) const override {
    if (config_.age_limit_us > 0 && context.now_us - job.submit_time_us >= config_.age_limit_us) {
      return {-1, job.submit_time_us, id.value()};  // Before every service, which is >= 0.
    }
    // CPU-only jobs count as a thousandth of a device: they queue by runtime among themselves.
    const double devices =
        static_cast<double>(std::max<uint64_t>(job.total_milli(), 1)) / model::kMilliPerDevice;
    const double runtime_s = std::max(
        static_cast<double>(context.predicted_runtime_us) / static_cast<double>(kUsPerSecond), 1.0);
    return {devices * runtime_s, job.submit_time_us, id.value()};
  }

 private:
  ServiceOrderConfig config_;
};

}  // namespace

std::unique_ptr<QueueOrder> MakeServiceOrder(const PolicyConfig& policy) {
  return std::make_unique<ServiceOrder>(policy.service);
}

}  // namespace headroom::engine
