// The scorer role's contract (scorer.h), run over every registered scorer on random states: a
// score lies in [0, 1] and is a pure function of its inputs (asked twice, it answers the same,
// and the state is unchanged).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "engine/scorer.h"
#include "tests/engine/role_fixtures.h"

namespace headroom::engine {
namespace {

RC_GTEST_PROP(ScorerContract, EveryScorerGivesAPureScoreInZeroToOne, ()) {
  const testing::RandomState random = testing::GenRandomState();
  const ClusterState& state = *random.state;
  const std::string before = state.CheckInvariants();
  RC_ASSERT(before.empty());
  const uint64_t allocated = state.allocated_milli();
  for (const auto& entry : Scorers().entries()) {
    const std::unique_ptr<NodeScorer> scorer = entry.make();
    RC_ASSERT(scorer->name() == entry.name);
    for (const testing::OwnedRequest& owned : random.requests) {
      const PlacementRequest request = owned.request();
      for (const model::Node& node : random.cluster->nodes()) {
        const uint32_t room = Placer::FreeCapacity(state, node.id, request, nullptr);
        for (uint32_t tasks = 1; tasks <= room; ++tasks) {
          const double score = scorer->Score(state, node.id, request, tasks);
          RC_ASSERT(score >= 0.0);
          RC_ASSERT(score <= 1.0);
          RC_ASSERT(score == scorer->Score(state, node.id, request, tasks));
        }
      }
    }
  }
  RC_ASSERT(state.allocated_milli() == allocated);
  RC_ASSERT(state.CheckInvariants().empty());
}

TEST(ScorerContract, EveryScorerIsRegisteredOnceUnderItsOwnName) {
  std::vector<std::string_view> names = Scorers().Names();
  EXPECT_GE(names.size(), 6u);
  std::sort(names.begin(), names.end());
  EXPECT_EQ(std::adjacent_find(names.begin(), names.end()), names.end());
  for (const auto& entry : Scorers().entries()) {
    EXPECT_EQ(entry.make()->name(), entry.name);
    EXPECT_FALSE(entry.summary.empty());
  }
  EXPECT_FALSE(Scorers().Make("nosuch").has_value());
  EXPECT_NE(Scorers().Unknown("nosuch").message.find("expected one of best_fit"),
            std::string::npos);
}

}  // namespace
}  // namespace headroom::engine
