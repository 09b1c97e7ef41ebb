// Engine's device-model quotas (quota_config.h, quota.h): which devices a job may be placed on
// when queues count devices by model. A job's selector may match devices of several models;
// each model with a quota is one option, and the devices of models without one are another.
// A job runs on one option, so its devices count against one model's books, and a migration
// or an elastic resize keeps it there (its placement request carries the option's classes).
// Options are tried in rank order: within its queues' guarantees, then on models without
// quotas, then borrowing; as Kueue's flavor assignment tries a ClusterQueue's flavors in turn
// (flavorFungibility: borrow only once no flavor fits without).
#include <algorithm>
#include <map>
#include <optional>

#include "engine/engine.h"
#include "engine/engine_records.h"

namespace headroom::engine {

namespace {

// What a job would count against its queues on the option of `option_slot`.
QuotaAmounts OnOption(QuotaAmounts demand, uint8_t slot_now, uint8_t option_slot) {
  if (slot_now < kQuotaResources) demand[slot_now] = 0;
  if (option_slot < kQuotaResources) demand[option_slot] = demand[0];
  return demand;
}

}  // namespace

void Engine::BuildModelOptions(uint32_t selector_mask) {
  if (quotas_.device_models().empty()) return;
  std::map<size_t, std::vector<DeviceClassId>> by_slot;
  for (const DeviceClassId device_class : masks_[selector_mask].classes) {
    by_slot[quotas_.DeviceModelSlot(cluster_.device_class(device_class).model)].push_back(
        device_class);
  }
  std::vector<ModelOption> options;
  if (by_slot.empty() || (by_slot.size() == 1 && by_slot.begin()->first == kQuotaResources)) {
    // No device of a model with a quota: placed by its selector alone.
  } else {
    for (auto& [slot, classes] : by_slot) {
      uint32_t mask = selector_mask;
      if (by_slot.size() > 1) {
        ClassMask option;
        option.matches.assign(state_.class_count(), 0);
        for (const DeviceClassId device_class : classes) {
          option.matches[device_class.value()] = 1;
        }
        option.classes = std::move(classes);
        mask = static_cast<uint32_t>(masks_.size());
        masks_.push_back(std::move(option));
      }
      options.push_back({static_cast<uint8_t>(slot), mask});
    }
  }
  if (model_options_.size() <= selector_mask) model_options_.resize(selector_mask + 1);
  model_options_[selector_mask] = std::move(options);
}

bool Engine::HasModelOptions(const JobRecord& r) const {
  return r.selector_mask < model_options_.size() && !model_options_[r.selector_mask].empty();
}

void Engine::UseModelOption(JobRecord& r, const ModelOption& option) {
  r.mask = option.mask;
  r.model_slot = option.slot;
}

bool Engine::FitsOnOption(const JobRecord& r, const ModelOption& option) const {
  Shape shape = r.shape();
  shape.task_count = r.job.elastic() ? r.job.min_task_count : r.full_task_count;
  shape.mask = option.mask;
  auto [it, inserted] = fits_on_option_->try_emplace(shape, false);
  if (inserted) {
    JobRecord narrowest = r.AtNarrowest();
    narrowest.mask = option.mask;
    it->second = !NeverFits(narrowest);
  }
  return it->second;
}

std::vector<Engine::ModelOption> Engine::RankedModelOptions(const JobRecord& r, bool all) const {
  const std::vector<ModelOption>& options = model_options_[r.selector_mask];
  if (options.size() == 1) {  // One model: nothing to rank (the common case of one model).
    const ModelOption& option = options.front();
    if (!FitsOnOption(r, option) ||
        (!all && !quotas_.Admits(r.quota_queue, OnOption(DemandOf(r), r.model_slot, option.slot))
                      .admitted)) {
      return {};
    }
    return {option};
  }
  std::vector<std::pair<int, ModelOption>> ranked;
  for (const ModelOption& option : options) {
    if (!FitsOnOption(r, option)) continue;
    const QuotaAmounts demand = OnOption(DemandOf(r), r.model_slot, option.slot);
    if (!all && !quotas_.Admits(r.quota_queue, demand).admitted) continue;
    const int rank = option.slot == kQuotaResources                   ? 1
                     : quotas_.WithinGuarantee(r.quota_queue, demand) ? 0
                                                                      : 2;
    ranked.emplace_back(rank, option);
  }
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<ModelOption> out;
  out.reserve(ranked.size());
  for (const auto& [unused_rank, option] : ranked) out.push_back(option);
  return out;
}

void Engine::UsePreferredModelOption(JobRecord& r) const {
  if (!HasModelOptions(r)) return;
  if (model_options_[r.selector_mask].size() == 1) {
    UseModelOption(r, model_options_[r.selector_mask].front());
    return;
  }
  std::vector<ModelOption> options = RankedModelOptions(r, false);
  if (options.empty()) options = RankedModelOptions(r, true);
  if (!options.empty()) UseModelOption(r, options.front());
}

void Engine::UseModelOfTasks(JobRecord& r) const {
  if (!HasModelOptions(r)) return;
  // Every device of a job placed on an option is of its classes. A job placed across models
  // before the quotas it now runs under came into force counts against no model until it ends
  // (its devices, of any model, still count).
  std::optional<size_t> slot;
  for (const TaskAllocation& task : r.tasks) {
    for (const DeviceId device : task.devices) {
      const size_t of_device = quotas_.DeviceModelSlot(
          cluster_.device_class(cluster_.device(device).device_class).model);
      if (slot && *slot != of_device) {
        r.mask = r.selector_mask;
        r.model_slot = kQuotaResources;
        return;
      }
      slot = of_device;
    }
  }
  for (const ModelOption& option : model_options_[r.selector_mask]) {
    if (option.slot == slot.value_or(kQuotaResources)) UseModelOption(r, option);
  }
}

QuotaTree::Verdict Engine::QuotaVerdict(const JobRecord& r, QuotaAmounts* refused) const {
  if (!HasModelOptions(r)) {
    const QuotaAmounts demand = DemandOf(r);
    if (refused != nullptr) *refused = demand;
    return quotas_.Admits(r.quota_queue, demand);
  }
  std::optional<QuotaTree::Verdict> first_refusal;
  const QuotaAmounts demand_now = DemandOf(r);
  for (const ModelOption& option : model_options_[r.selector_mask]) {
    if (!FitsOnOption(r, option)) continue;  // Its queues' say there would change nothing.
    const QuotaAmounts demand = OnOption(demand_now, r.model_slot, option.slot);
    const QuotaTree::Verdict verdict = quotas_.Admits(r.quota_queue, demand);
    if (verdict.admitted) return verdict;
    if (!first_refusal) {
      first_refusal = verdict;
      if (refused != nullptr) *refused = demand;
    }
  }
  return first_refusal.value_or(QuotaTree::Verdict{});
}

void Engine::ForgetFruitlessSearches(JobId id) {
  const JobRecord& r = record(id);
  fruitless_preemptions_.erase(FruitlessKey(id, r.selector_mask));
  if (!HasModelOptions(r)) return;
  for (const ModelOption& option : model_options_[r.selector_mask]) {
    fruitless_preemptions_.erase(FruitlessKey(id, option.mask));
  }
}

}  // namespace headroom::engine
