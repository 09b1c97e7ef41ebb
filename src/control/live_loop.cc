#include "control/live_loop.h"

#include <algorithm>
#include <chrono>
#include <future>
#include <set>
#include <unordered_set>

#include "base/check.h"
#include "control/engine_log.h"
#include "control/logging.h"
#include "control/thread_name.h"
#include "engine/pending_reason.h"

namespace headroom::control {
namespace {

// Completes "preempted (attempt N) for job M, ...".
std::string_view PreemptedFor(engine::PreemptReason reason) {
  switch (reason) {
    case engine::PreemptReason::kPriority:
      return "of higher priority";
    case engine::PreemptReason::kReclaim:
      return "whose queue takes back the capacity this job's queue borrows";
    case engine::PreemptReason::kLessService:
      return "which has had less service";
    case engine::PreemptReason::kFacility:
      return "as capping the work under a power domain or cooling zone past its limit was not "
             "enough";
  }
  return "of higher priority";
}

// "capped at 490 W per device (88% of its speed) ..." or "cap lifted ...".
std::string CapMessage(const engine::CapJob& cap, uint32_t attempt) {
  uint32_t cap_w = 0;
  for (const engine::TaskAllocation& task : cap.tasks) cap_w = std::max(cap_w, task.power_cap_w);
  if (cap_w == 0) return fmt::format("power cap lifted (attempt {}): room returned", attempt);
  return fmt::format(
      "power capped (attempt {}) at {} W per device, {:.0f}% of its uncapped speed, to keep the "
      "building's power domains and cooling zones within their limits",
      attempt, cap_w, cap.speed * 100);
}

}  // namespace

LiveLoop::LiveLoop(DaemonState& state, Journal& journal, EventLog& events, Backend& backend,
                   const Clock& clock, Histogram& cycle_seconds, LoopOptions options)
    : state_(state),
      journal_(journal),
      events_log_(events),
      backend_(backend),
      clock_(clock),
      cycle_seconds_(cycle_seconds),
      options_(std::move(options)) {
  carried_ = options_.carried;
}

LiveLoop::~LiveLoop() { Stop(); }

void LiveLoop::Start() {
  HR_CHECK(!thread_.joinable());
  std::lock_guard lock(inbox_mu_);
  thread_ = std::thread([this] { Run(); });
  loop_thread_id_ = thread_.get_id();
}

void LiveLoop::Stop() {
  {
    std::lock_guard lock(inbox_mu_);
    stopping_ = true;
  }
  inbox_cv_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void LiveLoop::Submitted(uint64_t job, std::shared_ptr<const std::string> spec_json) {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(Input{.submitted = job, .spec_json = std::move(spec_json)});
  }
  inbox_cv_.notify_one();
}

void LiveLoop::Wake() {
  {
    std::lock_guard lock(inbox_mu_);
    inbox_.push_back(Input{.call = [] {}});
  }
  inbox_cv_.notify_one();
}

void LiveLoop::RunCall(std::function<void()> call) {
  if (std::this_thread::get_id() == loop_thread_id_) {
    call();
    return;
  }
  std::promise<void> done;
  auto finished = done.get_future();
  {
    std::lock_guard lock(inbox_mu_);
    if (exited_) {
      call();  // The loop is gone; nothing else touches its state.
      return;
    }
    inbox_.push_back(Input{.call = [&] {
      call();
      done.set_value();
    }});
  }
  inbox_cv_.notify_one();
  finished.wait();
}

void LiveLoop::Barrier() {
  RunCall([] {});
}

TimeUs LiveLoop::Now() {
  last_now_us_ = std::max(last_now_us_, clock_.NowUs());
  return last_now_us_;
}

void LiveLoop::Log(std::string type, std::optional<uint64_t> job, std::optional<std::string> node,
                   std::string message, TimeUs now) {
  events_log_.Append(LoggedEvent{.time_us = now,
                                 .type = std::move(type),
                                 .job = job,
                                 .node = std::move(node),
                                 .message = std::move(message)});
}

TimeUs LiveLoop::NextDeadline(TimeUs now) const {
  if (rebuild_) return std::max(now, retry_at_us_);
  TimeUs deadline = std::min({backend_.NextPollUs(now), next_sample_us_, next_autoscale_us_});
  if (engine_ != nullptr) deadline = std::min(deadline, engine_->NextWakeupUs());
  return deadline;
}

void LiveLoop::Run() {
  NameThisThread("hr-loop");
  while (true) {
    std::vector<Input> inputs;
    const TimeUs before = Now();
    const TimeUs deadline = NextDeadline(before);
    {
      std::unique_lock lock(inbox_mu_);
      // Wake at least once a second of real time: backends poll for silence on wall time.
      const auto wait = std::min<std::chrono::microseconds>(
          deadline == kNever ? std::chrono::seconds(1) : clock_.WallDelay(deadline - before),
          std::chrono::seconds(1));
      inbox_cv_.wait_for(lock, wait, [&] { return !inbox_.empty() || stopping_; });
      inputs.swap(inbox_);
      if (stopping_ && inputs.empty()) {
        exited_ = true;
        break;
      }
    }
    if (!inputs.empty()) {
      // Let a burst gather: what arrives until the interval has passed joins this iteration.
      std::this_thread::sleep_for(last_iteration_ + options_.min_iteration_interval -
                                  clock_.SteadyNow());
      std::lock_guard lock(inbox_mu_);
      for (Input& input : inbox_) inputs.push_back(std::move(input));
      inbox_.clear();
    }
    const auto cycle_start = clock_.SteadyNow();
    last_iteration_ = cycle_start;
    const TimeUs now = Now();
    for (Input& input : inputs) {
      if (input.call) {
        input.call();
        continue;
      }
      if (rebuild_ || engine_ == nullptr) continue;  // The rebuild reads it from the state.
      std::unique_lock lock(state_.mu);
      auto it = state_.jobs.find(input.submitted);
      if (it == state_.jobs.end() || it->second.state != JobState::kPending) continue;
      JobRecord job = it->second;
      lock.unlock();
      job.spec_json = std::move(input.spec_json);
      EnqueueSubmit(job);
    }
    {
      std::lock_guard lock(inbox_mu_);
      if (stopping_) continue;  // Finish the queued calls, schedule nothing new.
    }
    Iterate(now);
    PublishPending();
    cycle_seconds_.Observe(std::chrono::duration<double>(clock_.SteadyNow() - cycle_start).count());
  }
  FlushEngineLog(Now(), true);
}

JobId LiveLoop::NewEngineId(uint64_t job) {
  const JobId id(static_cast<uint32_t>(daemon_of_engine_.size()));
  daemon_of_engine_.push_back(job);
  engine_of_daemon_[job] = id;
  return id;
}

void LiveLoop::EnqueueSubmit(const JobRecord& job) {
  if (engine_ == nullptr || engine_of_daemon_.contains(job.id)) return;
  const JobId id = NewEngineId(job.id);
  AddEvent(engine::JobSubmitted{id, EngineJobOf(job)}, SubmitEvent(job));
}

void LiveLoop::Iterate(TimeUs now) {
  BackendReport report = backend_.Poll(now);
  // A periodic snapshot of the engine log is a rebuild: its build record carries what the engine
  // learned, and the first step after it restores every job (engine_log.h).
  if (report.cluster_changed ||
      (engine_ != nullptr &&
       (now >= next_snapshot_us_ || events_since_snapshot_ >= options_.engine_snapshot_events))) {
    rebuild_ = true;
  }
  if (rebuild_) {
    if (now < retry_at_us_) return;
    Rebuild(now);
  }
  if (!report.completions.empty()) ApplyCompletions(report.completions, now);
  if (!report.lost_nodes.empty()) RequeueFrom(report.lost_nodes, now);
  if (!report.faulted_jobs.empty()) {
    Requeue(std::move(report.faulted_jobs), "a task exited as its device failed", now);
  }
  if (!report.lost_jobs.empty()) {
    Requeue(std::move(report.lost_jobs), "the agent of its node restarted; its tasks ended", now);
  }
  if (!report.unstarted_jobs.empty()) {
    Requeue(std::move(report.unstarted_jobs),
            "its node failed a readiness check before its tasks there started", now);
  }
  Autoscale(now);
  if (engine_ == nullptr) {
    ClearEvents();
    Sample(now);
    return;
  }
  SyncDrains(now);
  nlohmann::json logged_events(std::move(logged_events_));
  const engine::Decisions decisions = engine_->Step(events_, now);
  ClearEvents();
  LogStep(now, std::move(logged_events), decisions);
  if (!decisions.empty()) ApplyDecisions(decisions, now);
  PublishSpares();
  if (!interrupted_since_step_.empty()) NoteHolds(now);
  FlushEngineLog(now, false);
  Sample(now);
  ForgetFinished(now);
}

bool LiveLoop::CommitThenApply(std::vector<StoreWrite> writes, std::string_view what, TimeUs now,
                               const std::function<void()>& apply) {
  if (auto ok = journal_.Commit(std::move(writes)); !ok) {
    LogError("journal: {} not committed: {}", what, ok.error().message);
    rebuild_ = true;
    retry_at_us_ = now + kUsPerSecond;
    return false;
  }
  if (apply) {
    std::lock_guard lock(state_.mu);
    apply();
  }
  return true;
}

void LiveLoop::ForgetFinished(TimeUs now) {
  constexpr TimeUs kIntervalUs = 10 * kUsPerSecond;
  if (now < next_forget_us_) return;
  next_forget_us_ = now + kIntervalUs;
  std::vector<std::pair<TimeUs, uint64_t>> finished;  // (end, id)
  uint64_t next_job_id = 0;
  {
    std::lock_guard lock(state_.mu);
    for (const auto& [id, job] : state_.jobs) {
      if (IsFinal(job.state)) finished.emplace_back(job.end_us, id);
    }
    next_job_id = state_.next_job_id;
  }
  std::sort(finished.begin(), finished.end());
  const size_t excess =
      finished.size() > options_.max_finished ? finished.size() - options_.max_finished : 0;
  std::vector<StoreWrite> writes;
  for (size_t i = 0; i < finished.size(); ++i) {
    if (i >= excess && finished[i].first > now - options_.keep_finished_us) break;
    writes.push_back(JobRemoval{finished[i].second});
  }
  if (writes.empty()) return;
  const size_t forgotten = writes.size();
  writes.push_back(MetaRecord{kNextJobIdKey, std::to_string(next_job_id)});
  if (auto ok = journal_.Commit(std::move(writes)); !ok) {
    LogError("journal: finished jobs not forgotten: {}", ok.error().message);
    return;
  }
  {
    std::lock_guard lock(state_.mu);
    for (size_t i = 0; i < forgotten; ++i) state_.jobs.Erase(finished[i].second);
  }
  LogInfo("forgot {} finished jobs (kept: ended within {:.0f} s, at most {})", forgotten,
          UsToSeconds(options_.keep_finished_us), options_.max_finished);
}

void LiveLoop::ApplyCompletions(const std::vector<Completion>& completions, TimeUs now) {
  std::vector<StoreWrite> writes;
  std::vector<JobRecord> ended;
  std::vector<JobRecord> replicas;
  {
    std::lock_guard lock(state_.mu);
    uint64_t next_id = state_.next_job_id;
    for (const Completion& completion : completions) {
      auto it = state_.jobs.find(completion.job);
      if (it == state_.jobs.end() || it->second.state != JobState::kRunning) continue;
      JobRecord job = it->second;
      job.state = completion.exit_code == 0 ? JobState::kCompleted : JobState::kFailed;
      job.exit_code = completion.exit_code;
      job.end_us = completion.end_us > 0 ? std::min(completion.end_us, now) : now;
      job.message = completion.message;
      writes.push_back(ProgressOf(job));
      if (job.service_id != 0 && state_.services.contains(job.service_id)) {
        // A service keeps its replicas: an ended replica is replaced by a new job.
        JobRecord replica = NewReplica(state_.services.at(job.service_id), next_id++, now);
        writes.push_back(replica);
        replicas.push_back(std::move(replica));
      }
      ended.push_back(std::move(job));
    }
    state_.next_job_id = next_id;
  }
  if (writes.empty()) return;
  // The backend reported these; until they are durable the loop cannot act on them (they are
  // still running in the state the rebuild starts from).
  if (!CommitThenApply(std::move(writes), "completions", now, [&] {
        for (const JobRecord& job : ended) state_.jobs.Put(job);
        for (const JobRecord& job : replicas) state_.jobs.Put(job);
      })) {
    return;
  }
  for (const JobRecord& job : ended) {
    if (auto it = engine_of_daemon_.find(job.id); it != engine_of_daemon_.end() && engine_) {
      const bool failed = job.state == JobState::kFailed;
      AddEvent(engine::JobFinished{it->second, failed}, FinishEvent(job.id, failed));
    }
    Log(job.state == JobState::kCompleted ? "finished" : "failed", job.id, std::nullopt,
        fmt::format("job {} {} (exit code {}): {}", job.id, JobStateName(job.state),
                    job.exit_code.value_or(0), job.message),
        now);
  }
  for (const JobRecord& job : replicas) {
    EnqueueSubmit(job);
    Log("submitted", job.id, std::nullopt,
        fmt::format("job {} replaces an ended replica of service {}", job.id, job.service_id), now);
  }
}

void LiveLoop::RequeueFrom(const std::vector<std::string>& lost_nodes, TimeUs now) {
  std::vector<EndedJob> jobs;
  {
    std::lock_guard lock(state_.mu);
    for (const auto& [id, job] : state_.jobs) {
      if (job.state != JobState::kRunning) continue;
      for (const TaskPlacement& task : job.placement) {
        if (std::find(lost_nodes.begin(), lost_nodes.end(), task.node) != lost_nodes.end()) {
          jobs.push_back({id, task.node});
          break;
        }
      }
    }
  }
  if (!jobs.empty()) {
    Requeue(std::move(jobs), fmt::format("node {} was lost", fmt::join(lost_nodes, ", ")), now);
  }
}

void LiveLoop::Requeue(std::vector<EndedJob> jobs, const std::string& why, TimeUs now) {
  std::vector<StoreWrite> writes;
  std::vector<JobRecord> requeued;
  std::unordered_map<uint64_t, std::string> fault_node;
  {
    std::lock_guard lock(state_.mu);
    for (const auto& [id, node] : jobs) {
      if (!fault_node.try_emplace(id, node).second) continue;  // Once per job.
      auto it = state_.jobs.find(id);
      if (it == state_.jobs.end() || it->second.state != JobState::kRunning) continue;
      JobRecord job = it->second;
      // What it ran counts as service received (least attained service), as a preemption's.
      if (auto engine_id = engine_of_daemon_.find(id);
          engine_ && engine_id != engine_of_daemon_.end()) {
        job.attained_device_us = engine_->attained_device_us(engine_id->second, now);
      }
      job.state = JobState::kPending;
      job.start_us = 0;
      job.placement.clear();
      ++job.requeues;
      job.requeued_us = now;
      job.message = "requeued: " + why;
      writes.push_back(ProgressOf(job));
      requeued.push_back(std::move(job));
    }
  }
  if (writes.empty()) return;
  if (!CommitThenApply(std::move(writes), "requeue", now, [&] {
        for (const JobRecord& job : requeued) state_.jobs.Put(job);
        state_.requeues_total += requeued.size();
      })) {
    return;
  }
  for (const JobRecord& job : requeued) {
    backend_.OnStop(job.id);
    // The engine requeues it under its id, as the simulator's faults do (JobInterrupted): it
    // keeps its attained service and preemption count, and with recovery.expedite goes first.
    // Without an engine (one is being rebuilt) it is submitted again like any pending job.
    auto it = engine_of_daemon_.find(job.id);
    if (engine_ && it != engine_of_daemon_.end()) {
      const std::string& node = fault_node[job.id];
      const model::Node* where = cluster_->FindNode(node);
      AddEvent(engine::JobInterrupted{it->second, where ? where->id : NodeId()},
               InterruptEvent(job.id, where ? node : std::string()));
      interrupted_since_step_.push_back(job.id);
    } else {
      if (it != engine_of_daemon_.end()) engine_of_daemon_.erase(it);
      EnqueueSubmit(job);
    }
    Log("requeued", job.id, std::nullopt, fmt::format("job {} {}", job.id, job.message), now);
  }
}

void LiveLoop::ApplyDecisions(const engine::Decisions& decisions, TimeUs now) {
  // The step's engine log record goes with the decisions it explains.
  std::vector<StoreWrite> writes = TakeEngineLog(now);
  std::vector<JobRecord> changed;        // One per decision, in execution order.
  std::unordered_set<uint64_t> resized;  // Jobs whose move changed their width.
  {
    std::lock_guard lock(state_.mu);
    const auto record_of = [&](JobId engine_id) {
      return state_.jobs.at(daemon_of_engine_[engine_id.value()]);
    };
    decisions.Visit(engine::Handlers{
        [&](const engine::PreemptJob& preemption) {
          JobRecord job = record_of(preemption.job);
          HR_CHECK(job.state == JobState::kRunning);
          job.state = JobState::kPending;
          job.start_us = 0;
          job.placement.clear();
          ++job.requeues;
          ++job.preemptions;
          job.requeued_us = now;
          job.attained_device_us = engine_->attained_device_us(preemption.job);
          job.message = fmt::format(
              "preempted (attempt {}) for job {}, {}; requeued to restart from its last "
              "checkpoint ({:.0f} s of work lost)",
              job.starts, daemon_of_engine_[preemption.preemptor.value()],
              PreemptedFor(preemption.reason), UsToSeconds(preemption.lost_us));
          changed.push_back(std::move(job));
        },
        [&](const engine::CapJob& cap) {
          JobRecord job = record_of(cap.job);
          HR_CHECK(job.state == JobState::kRunning);
          job.placement = PlacementOn(*cluster_, cap.tasks);
          job.message = CapMessage(cap, job.starts);
          changed.push_back(std::move(job));
        },
        [&](const engine::MigrateJob& move) {
          JobRecord job = record_of(move.job);
          HR_CHECK(job.state == JobState::kRunning);
          const size_t width = job.placement.size();
          job.placement = PlacementOn(*cluster_, move.tasks);
          ++job.starts;  // The restart on the new devices is the job's next attempt.
          if (move.tasks.size() < width) {
            resized.insert(job.id);
            job.message = fmt::format(
                "shrunk from {} to {} tasks (attempt {}) to make room for a blocked job; paused "
                "{:.0f} s to checkpoint and restart",
                width, move.tasks.size(), job.starts, UsToSeconds(move.pause_us));
          } else if (move.tasks.size() > width) {
            resized.insert(job.id);
            job.message = fmt::format(
                "grown from {} to {} tasks (attempt {}) into idle capacity; paused {:.0f} s to "
                "checkpoint and restart",
                width, move.tasks.size(), job.starts, UsToSeconds(move.pause_us));
          } else {
            job.message = fmt::format(
                "moved (attempt {}) to free room for a blocked job; paused "
                "{:.0f} s to checkpoint and restart",
                job.starts, UsToSeconds(move.pause_us));
          }
          changed.push_back(std::move(job));
        },
        [&](const engine::StartJob& start) {
          JobRecord job = record_of(start.job);
          HR_CHECK(job.state == JobState::kPending);
          job.state = JobState::kRunning;
          job.start_us = now;
          job.placement = PlacementOn(*cluster_, start.tasks);
          job.checkpoint_interval_us = start.checkpoint_interval_us;
          ++job.starts;
          job.message.clear();
          changed.push_back(std::move(job));
        }});
  }
  for (const JobRecord& job : changed) writes.push_back(ProgressOf(job));
  // Not journaled, not applied: the state still has the jobs where they were.
  if (!CommitThenApply(std::move(writes), "decisions", now, [&] {
        for (const JobRecord& job : changed) state_.jobs.Put(job);
        state_.placements_total += decisions.starts.size();
        state_.migrations_total += decisions.migrations.size() - resized.size();
        state_.resizes_total += resized.size();
        state_.preemptions_total += decisions.preemptions.size();
        state_.power_caps_total += decisions.caps.size();
      })) {
    return;
  }
  const auto nodes_of = [](const JobRecord& job) {
    std::vector<std::string> nodes;
    for (const TaskPlacement& task : job.placement) nodes.push_back(task.node);
    return nodes;
  };
  auto job = changed.begin();
  decisions.Visit(engine::Handlers{
      [&](const engine::PreemptJob& preemption) {
        backend_.OnPreempt(*job, preemption, now);
        Log("preempted", job->id, std::nullopt, fmt::format("job {} {}", job->id, job->message),
            now);
        ++job;
      },
      [&](const engine::CapJob& cap) {
        backend_.OnCap(*job, cap, now, *cluster_);
        Log("capped", job->id, std::nullopt, fmt::format("job {} {}", job->id, job->message), now);
        ++job;
      },
      [&](const engine::MigrateJob& move) {
        backend_.OnMigrate(*job, move, now, *cluster_);
        const std::vector<std::string> nodes = nodes_of(*job);
        const char* kind = resized.contains(job->id) ? "resized" : "moved";
        Log(kind, job->id, nodes.front(),
            fmt::format("job {} {} to {} (attempt {})", job->id, kind, fmt::join(nodes, ", "),
                        job->starts),
            now);
        ++job;
      },
      [&](const engine::StartJob& start) {
        backend_.OnStart(*job, start.tasks, *cluster_);
        const std::vector<std::string> nodes = nodes_of(*job);
        Log("started", job->id, nodes.empty() ? std::nullopt : std::optional(nodes.front()),
            fmt::format("job {} started on {}", job->id, fmt::join(nodes, ", ")), now);
        ++job;
      }});
}

void LiveLoop::PublishSpares() {
  if (engine_->spare_count() == 0 && !spares_shown_) return;
  std::set<std::string> spares;
  if (engine_->spare_count() > 0) {
    for (const model::Node& node : cluster_->nodes()) {
      if (engine_->spare(node.id)) spares.insert(node.name);
    }
  }
  spares_shown_ = !spares.empty();
  std::lock_guard lock(state_.mu);
  if (state_.hot_spares != spares) state_.hot_spares = std::move(spares);
}

void LiveLoop::Sample(TimeUs now) {
  if (now < next_sample_us_) return;
  next_sample_us_ = now + options_.series_interval_us;
  SeriesPoint point{.time_us = now};
  point.devices = cluster_ == nullptr ? 0 : cluster_->device_count();
  std::lock_guard lock(state_.mu);
  point.pending = state_.jobs.CountIn(JobState::kPending);
  point.running = state_.jobs.CountIn(JobState::kRunning);
  for (uint64_t id : state_.jobs.running_ids()) {
    for (const TaskPlacement& task : state_.jobs.at(id).placement) {
      point.allocated_milli += uint64_t{task.milli_per_device} * task.device_indices.size();
    }
  }
  state_.series.push_back(point);
  while (state_.series.size() > options_.series_capacity) state_.series.pop_front();
}

}  // namespace headroom::control
