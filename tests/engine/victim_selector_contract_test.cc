// The victim-selection role's contract (victim_selector.h), run over every registered selector
// on random candidates: keys are pure, distinct ids give distinct keys, so the order of the
// input does not matter; and each built-in selector takes back what it says it does first.
#include <algorithm>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/victim_selector.h"

namespace headroom::engine {
namespace {

struct Candidate {
  MovableJob job;
  int64_t cost_device_us = 0;
};

std::vector<Candidate> GenCandidates() {
  const auto count = *rc::gen::inRange<uint32_t>(1, 30);
  std::vector<uint32_t> ids(count);
  for (uint32_t i = 0; i < count; ++i) ids[i] = i * 7 + 3;
  std::vector<Candidate> candidates;
  for (uint32_t id : ids) {
    Candidate c;
    c.job.id = JobId(id);
    c.job.devices = *rc::gen::inRange<uint64_t>(1, 65);
    c.job.priority = *rc::gen::inRange<int32_t>(-2, 3);
    c.job.start_us = *rc::gen::inRange<int64_t>(0, 1'000'000);
    c.cost_device_us = static_cast<int64_t>(c.job.devices) * *rc::gen::element<int64_t>(60, 660);
    candidates.push_back(c);
  }
  return candidates;
}

std::vector<uint32_t> Ordered(const VictimSelector& selector, std::vector<Candidate> candidates) {
  std::sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    return selector.Key(a.job, a.cost_device_us) < selector.Key(b.job, b.cost_device_us);
  });
  std::vector<uint32_t> ids;
  for (const Candidate& c : candidates) ids.push_back(c.job.id.value());
  return ids;
}

RC_GTEST_PROP(VictimSelectorContract, KeysArePureAndTotalSoInputOrderDoesNotMatter, ()) {
  const std::vector<Candidate> candidates = GenCandidates();
  std::vector<Candidate> shuffled = candidates;
  std::reverse(shuffled.begin(), shuffled.end());
  std::rotate(shuffled.begin(), shuffled.begin() + shuffled.size() / 2, shuffled.end());
  for (const auto& entry : VictimSelectors().entries()) {
    const std::unique_ptr<VictimSelector> selector = entry.make();
    RC_ASSERT(selector->name() == entry.name);
    for (const Candidate& a : candidates) {
      RC_ASSERT(selector->Key(a.job, a.cost_device_us) == selector->Key(a.job, a.cost_device_us));
      for (const Candidate& b : candidates) {
        if (a.job.id == b.job.id) continue;
        RC_ASSERT(selector->Key(a.job, a.cost_device_us) != selector->Key(b.job, b.cost_device_us));
      }
    }
    RC_ASSERT(Ordered(*selector, candidates) == Ordered(*selector, shuffled));
  }
}

RC_GTEST_PROP(VictimSelectorContract, EachSelectorTakesBackWhatItSaysFirst, ()) {
  const std::vector<Candidate> candidates = GenCandidates();
  auto in_order = [&](std::string_view name) {
    const std::vector<uint32_t> ids = Ordered(**VictimSelectors().Make(name), candidates);
    std::vector<Candidate> ordered;
    for (uint32_t id : ids) {
      for (const Candidate& c : candidates) {
        if (c.job.id.value() == id) ordered.push_back(c);
      }
    }
    return ordered;
  };
  const auto cheapest = in_order("cheapest_move");
  for (size_t i = 1; i < cheapest.size(); ++i) {
    RC_ASSERT(cheapest[i - 1].cost_device_us <= cheapest[i].cost_device_us);
  }
  const auto lowest = in_order("lowest_priority");
  for (size_t i = 1; i < lowest.size(); ++i) {
    RC_ASSERT(lowest[i - 1].job.priority <= lowest[i].job.priority);
    if (lowest[i - 1].job.priority == lowest[i].job.priority) {
      RC_ASSERT(lowest[i - 1].cost_device_us <= lowest[i].cost_device_us);
    }
  }
}

}  // namespace
}  // namespace headroom::engine
