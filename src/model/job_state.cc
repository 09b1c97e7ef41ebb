#include "model/job_state.h"

#include <array>
#include <cstddef>

namespace headroom::model {
namespace {

constexpr std::array<std::string_view, 5> kJobStateNames = {"pending", "running", "completed",
                                                            "failed", "cancelled"};

}  // namespace

std::string_view JobStateName(JobState state) { return kJobStateNames[static_cast<size_t>(state)]; }

std::optional<JobState> JobStateByName(std::string_view name) {
  for (size_t i = 0; i < kJobStateNames.size(); ++i) {
    if (kJobStateNames[i] == name) return static_cast<JobState>(i);
  }
  return std::nullopt;
}

}  // namespace headroom::model
