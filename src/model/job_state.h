// JobState: where a job is in its life, the one enum the engine's records, the daemon's store
// and API, and the CLI share. A job is pending until it
// starts, running until it ends, and ends exactly once: completed (exit code 0), failed (non-zero
// exit, lost node, killed outside the scheduler) or cancelled. The names are the API's and the
// store's ("pending", "running", ...); the numeric values are stored and must not change.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace headroom::model {

enum class JobState : uint8_t { kPending = 0, kRunning, kCompleted, kFailed, kCancelled };

std::string_view JobStateName(JobState state);
std::optional<JobState> JobStateByName(std::string_view name);

inline bool IsFinal(JobState state) {
  return state == JobState::kCompleted || state == JobState::kFailed ||
         state == JobState::kCancelled;
}

}  // namespace headroom::model
