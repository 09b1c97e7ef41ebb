// LiveLoop's engine log (engine_log.h): each event queued for the engine with the form the log
// records it in, step and idle records gathered between commits, and their flush — with the
// decisions of a step, or at least once a second (live_loop.h).
#include "control/live_loop.h"

#include <algorithm>
#include <utility>

#include "control/engine_log.h"

namespace headroom::control {

void LiveLoop::AddEvent(engine::Event event, nlohmann::json logged) {
  events_.push_back(std::move(event));
  logged_events_.push_back(std::move(logged));
}

void LiveLoop::ClearEvents() {
  events_.clear();
  logged_events_.clear();
}

void LiveLoop::LogStep(TimeUs now, nlohmann::json events, const engine::Decisions& decisions) {
  const size_t snapshot_events = std::min(std::exchange(snapshot_events_, 0), events.size());
  events_since_snapshot_ += events.size() - snapshot_events;
  if (events.empty() && decisions.empty()) {
    idle_steps_us_.push_back(now);
    return;
  }
  CloseIdleRecord(now);
  nlohmann::json step{{"events", std::move(events)},
                      {"decisions", DecisionsJson(decisions, *cluster_, daemon_of_engine_)}};
  engine_log_.push_back(EngineLogAppend{now, EngineLogText({{"step", std::move(step)}})});
}

void LiveLoop::CloseIdleRecord(TimeUs now) {
  if (idle_steps_us_.empty()) return;
  engine_log_.push_back(EngineLogAppend{now, EngineLogText({{"idle", idle_steps_us_}})});
  idle_steps_us_.clear();
}

std::vector<StoreWrite> LiveLoop::TakeEngineLog(TimeUs now) {
  CloseIdleRecord(now);
  engine_log_flushed_ = clock_.SteadyNow();
  return std::exchange(engine_log_, {});
}

void LiveLoop::FlushEngineLog(TimeUs now, bool force) {
  if (engine_log_.empty() && idle_steps_us_.empty()) return;
  if (!force && clock_.SteadyNow() - engine_log_flushed_ < std::chrono::seconds(1)) return;
  // A refused commit leaves a gap in the log: the rebuild makes the next record a build.
  CommitThenApply(TakeEngineLog(now), "engine log", now);
}

}  // namespace headroom::control
