// EngineReplay: a daemon's engine log (engine_log.h) run again through a fresh engine, as the
// live loop ran it — `headroom replay` and `headroom explain --data-dir` are built on it. A build
// record makes a new engine from the recorded cluster and policy; a step record feeds the
// recorded events at the recorded time and compares the engine's decisions with the recorded
// ones; an idle record steps with no input at each of its times and expects no decision.
//
// Two modes: kCheck (`headroom replay`) searches every step again and counts the decisions that
// come out differently; kFollow (recovery, daemon.cc) executes the recorded decisions through
// Engine::Follow, without the queue passes, to bring what the engine learned up to the log's end.
//
// Promises:
//  1. Deterministic: the same records give the same counts and mismatches.
//  2. A record it cannot use (not JSON, an unknown job or node, a placement that does not fit)
//     is an error naming its seq and what is wrong; it never crashes on one.
//  3. Records before the first build (none in a log headroomd wrote) are counted as skipped.
// Threading: single-threaded.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/ids.h"
#include "base/result.h"
#include "control/job_spec.h"
#include "control/sqlite_store.h"
#include "engine/engine.h"
#include "model/cluster.h"

namespace headroom::control {

struct ReplayMismatch {
  int64_t seq = 0;
  TimeUs time_us = 0;
  std::string recorded;  // The decisions as the log has them (JSON).
  std::string replayed;  // As the engine made them again.
};

enum class ReplayMode { kCheck, kFollow };

class EngineReplay {
 public:
  explicit EngineReplay(ReplayMode mode = ReplayMode::kCheck) : mode_(mode) {}

  tl::expected<void, Error> Apply(const EngineLogRecord& record);

  // The engine as of the last record applied (nullptr before the first build).
  const engine::Engine* engine() const { return engine_.get(); }
  // The engine's id of daemon job `job` in the current engine.
  std::optional<JobId> EngineIdOf(uint64_t job) const;

  // The time of the last step applied.
  TimeUs last_step_us() const { return last_step_us_; }
  uint64_t builds() const { return builds_; }
  uint64_t steps() const { return steps_; }
  uint64_t events() const { return events_; }
  uint64_t decisions() const { return decisions_; }
  uint64_t skipped() const { return skipped_; }
  uint64_t mismatch_count() const { return mismatch_count_; }
  // The first ten mismatches.
  const std::vector<ReplayMismatch>& mismatches() const { return mismatches_; }

 private:
  tl::expected<void, Error> Build(const nlohmann::json& build, int64_t seq);
  tl::expected<void, Error> Step(const nlohmann::json& step, const EngineLogRecord& record);
  // Steps the engine on `inputs` at `time_us`: searching and comparing with `recorded`
  // (kCheck), or executing `recorded` (kFollow).
  tl::expected<void, Error> Run(std::vector<engine::Event>& inputs, const nlohmann::json& recorded,
                                const EngineLogRecord& record, TimeUs time_us);
  Result<engine::Decisions> Recorded(const nlohmann::json& recorded) const;
  void Compare(const EngineLogRecord& record, const nlohmann::json& recorded,
               const engine::Decisions& decisions);
  JobId NewEngineId(uint64_t job);

  ReplayMode mode_;
  JobSpecCache specs_;  // Submissions in a loop log one spec text many times.
  std::shared_ptr<const model::Cluster> cluster_;
  std::unique_ptr<engine::Engine> engine_;
  std::vector<uint64_t> daemon_of_engine_;
  std::unordered_map<uint64_t, JobId> engine_of_daemon_;
  TimeUs last_step_us_ = 0;
  bool first_step_ = false;
  uint64_t builds_ = 0;
  uint64_t steps_ = 0;
  uint64_t events_ = 0;
  uint64_t decisions_ = 0;
  uint64_t skipped_ = 0;
  uint64_t mismatch_count_ = 0;
  std::vector<ReplayMismatch> mismatches_;
};

}  // namespace headroom::control
