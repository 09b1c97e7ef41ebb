// lowest_priority_newest: the lowest-priority job first, then the one that started most
// recently, then the lower id; what a job would lose is not looked at. Kubernetes' default
// preemption reprieves the most important pods first (higher priority, then the earlier start:
// MoreImportantPod, kubernetes.io/docs/concepts/scheduling-eviction/pod-priority-preemption),
// so its victims are the least important ones; Kueue orders its candidates the same way after
// the borrowed work of other queues (candidatesOrdering in kueue's pkg/scheduler/preemption).
#include "engine/victim_selectors/builtin_victim_selectors.h"

namespace headroom::engine {
namespace {

class LowestPriorityNewest final : public VictimSelector {
 public:
  std::string_view name() const override { return "lowest_priority_newest"; }
  VictimKey Key(const MovableJob& job, int64_t /*cost_device_us*/) const override {
    return {job.priority, -job.start_us, job.id.value()};
  }
};

}  // namespace

std::unique_ptr<VictimSelector> MakeLowestPriorityNewestSelector() {
  return std::make_unique<LowestPriorityNewest>();
}

}  // namespace headroom::engine
