#include "sim/simulator.h"

#include <algorithm>
#include <cmath>
#include <future>
#include <optional>
#include <queue>
#include <thread>

#include "base/check.h"
#include "engine/engine.h"
#include "sim/block_metrics.h"
#include "sim/facility_meter.h"
#include "sim/health_driver.h"
#include "sim/queue_tally.h"
#include "sim/stats.h"

namespace headroom::sim {
namespace {

// The speed of a job whose devices heat shut down: no progress to speak of, kept above 0 so its
// completion stays a finite time (it is rescheduled when its nodes cool).
constexpr double kStalledSpeed = 1e-6;

// A job's expected completion; a migration reschedules it, and the older entry, now of an
// earlier generation, is skipped.
struct Completion {
  TimeUs time_us;
  uint64_t sequence;
  uint32_t job;
  uint32_t generation;
  friend bool operator>(const Completion& a, const Completion& b) {
    return a.time_us != b.time_us ? a.time_us > b.time_us : a.sequence > b.sequence;
  }
};

// Time series on a fixed grid that coarsens (halving its points) when a run outlasts it.
class SeriesSampler {
 public:
  SeriesSampler(TimeUs origin_us, TimeUs step_us, uint32_t max_points)
      : origin_us_(origin_us), step_us_(std::max<TimeUs>(step_us, 1)), max_points_(max_points) {}

  TimeUs next_us() const { return origin_us_ + step_us_ * static_cast<TimeUs>(points_.size()); }

  void Add(SeriesPoint point) {
    points_.push_back(point);
    if (points_.size() >= 2 * static_cast<size_t>(max_points_)) {
      std::vector<SeriesPoint> kept;
      for (size_t i = 0; i < points_.size(); i += 2) kept.push_back(points_[i]);
      points_ = std::move(kept);
      step_us_ *= 2;
    }
  }

  std::vector<SeriesPoint>& points() { return points_; }

 private:
  TimeUs origin_us_;
  TimeUs step_us_;
  uint32_t max_points_;
  std::vector<SeriesPoint> points_;
};

}  // namespace

PolicyRun Simulate(const model::Cluster& cluster, const model::Workload& workload,
                   const engine::PolicyConfig& policy, const SimOptions& options,
                   Observer* observer) {
  PolicyRun run;
  run.name = policy.name;
  run.description = policy.description;
  PolicyMetrics& metrics = run.metrics;
  const std::vector<model::Job>& jobs = workload.jobs;
  if (jobs.empty()) return run;

  engine::Engine engine(cluster, policy);
  QueueTally queues(engine.quotas(), jobs);
  const SpeedModel speed = SpeedModel::Default(cluster);
  const double capacity =
      std::max<double>(static_cast<double>(engine.cluster_state().capacity_milli()), 1);

  const TimeUs first_arrival = jobs.front().submit_time_us;
  const TimeUs last_arrival = jobs.back().submit_time_us;
  const TimeUs span = std::max<TimeUs>(last_arrival - first_arrival, kUsPerSecond);
  SeriesSampler sampler(first_arrival, span / std::max<uint32_t>(options.series_points, 1),
                        std::max<uint32_t>(options.series_points, 16));
  const TimeUs drain_limit = last_arrival + SecondsToUs(options.max_drain_s);
  std::optional<ServiceDriver> services;
  if (!options.services.empty()) {
    services.emplace(options.services, policy.autoscaling, first_arrival,
                     static_cast<uint32_t>(jobs.size()));
  }

  std::vector<TimeUs> start_us(jobs.size(), -1);     // Of the current (or last) attempt.
  std::vector<JobOutcome> outcomes(jobs.size());     // first_start_us -1: not started yet.
  std::vector<TimeUs> requeued_us(jobs.size(), -1);  // Pending again since; -1: not requeued.
  std::vector<double> stretch_of(jobs.size(), 1.0);
  // The tasks an attempt runs with (an elastic job may start narrower, model/job.h): full-speed
  // work takes stretch × task_count / width.
  std::vector<uint32_t> width_of(jobs.size(), 0);
  // Full-speed work between the checkpoints of a job's current attempt (0: it saves nothing):
  // the interval its start was told (recovery.direct_checkpoints, wall seconds at the pace it
  // started with), else its own, else the policy's default.
  std::vector<double> interval_of(jobs.size(), 0);
  // Heat and power caps slow a job to its slowest device's speed (FacilityMeter::DeviceSpeed;
  // shut down: stalled).
  std::vector<double> thermal_of(jobs.size(), 1.0);
  std::vector<std::vector<DeviceId>> devices_of(jobs.size());
  const auto work_pace = [&](uint32_t job) {
    return stretch_of[job] * static_cast<double>(jobs[job].task_count) /
           static_cast<double>(std::max<uint32_t>(width_of[job], 1)) /
           std::max(thermal_of[job], kStalledSpeed);
  };
  // A job pauses checkpoint_cost_us after each interval of work: wall time per unit of work.
  const auto checkpoint_pause = [&](uint32_t job) {
    return interval_of[job] > 0
               ? static_cast<double>(jobs[job].checkpoint_cost_us) / interval_of[job]
               : 0.0;
  };
  const auto pace = [&](uint32_t job) { return work_pace(job) + checkpoint_pause(job); };
  const auto devices_at_width = [&](uint32_t job) {
    return static_cast<double>(
        std::max<uint64_t>(uint64_t{width_of[job]} * jobs[job].task.devices, 1));
  };
  // Progress across migrations: full-speed runtime left when the current placement's work
  // began (after a migration, once its checkpoint + restart pause is over).
  std::vector<TimeUs> work_start_us(jobs.size(), 0);
  std::vector<double> remaining_us(jobs.size(), 0);
  // Wall time its remaining work takes at its pace; a stalled job's is bounded (kStalledSpeed).
  const auto rest_of = [&](uint32_t job) {
    return static_cast<TimeUs>(std::llround(std::min(remaining_us[job] * pace(job), 1e17)));
  };
  std::vector<uint32_t> generation(jobs.size(), 0);
  const uint32_t levels = cluster.domain_levels();
  std::vector<uint64_t> multi_node_within(levels, 0);
  int64_t migration_cost_device_us = 0;
  double preemption_lost_device_us = 0;
  double goodput_device_us = 0;
  // With services, training goodput is counted up to the end of their traces: the span over
  // which training and inference share the floor (after it, every policy has it all).
  const TimeUs goodput_until_us = services ? services->traces_end_us() : kNever;
  bool goodput_closed = false;
  // The full-speed work of every job done by `at_us` (completions up to it already counted),
  // kept work only: a requeued job's since its last checkpoint is gone.
  const auto full_devices = [&](uint32_t job) {
    return static_cast<double>(std::max<uint64_t>(jobs[job].total_devices(), 1));
  };
  const auto work_done_device_us = [&](TimeUs at_us) {
    double device_us = 0;
    for (uint32_t job = 0; job < jobs.size(); ++job) {
      if (start_us[job] < 0) continue;
      const auto runtime = static_cast<double>(jobs[job].runtime_us);
      double left_us = remaining_us[job];
      if (outcomes[job].end_us >= 0) {
        left_us = 0;
      } else if (requeued_us[job] < 0) {
        left_us -= static_cast<double>(std::max<TimeUs>(at_us - work_start_us[job], 0)) / pace(job);
      }
      device_us += (runtime - std::clamp(left_us, 0.0, runtime)) * full_devices(job);
    }
    return device_us;
  };
  // Time each job spent not progressing: work redone, restart pauses, pending after a requeue.
  std::vector<double> unproductive_us(jobs.size(), 0);
  // A requeued job (preempted, or interrupted by a fault) keeps the work up to its last
  // checkpoint (at full speed, counted from when its current placement began working); the rest
  // is lost, and its restart pauses. Returns what it loses, × its devices.
  // Its checkpoints' pauses are unproductive too.
  const auto requeue = [&](uint32_t job, TimeUs now, TimeUs restart_us) {
    HR_CHECK(start_us[job] >= 0);
    const double done_us =
        static_cast<double>(std::max<TimeUs>(now - work_start_us[job], 0)) / pace(job);
    const double interval = interval_of[job];
    const double saved_us = interval > 0 ? std::floor(done_us / interval) * interval : 0;
    remaining_us[job] = std::max(remaining_us[job] - saved_us, 0.0);
    ++generation[job];  // Its completion is void; its next start schedules another.
    requeued_us[job] = now;
    const double lost_us = (done_us - saved_us) * pace(job) + static_cast<double>(restart_us);
    unproductive_us[job] += lost_us + saved_us * checkpoint_pause(job);
    return lost_us * devices_at_width(job);
  };
  std::optional<HealthDriver> health;
  if (!options.failures.classes.empty()) {
    health.emplace(options.failures, policy.readiness, policy.recovery.evacuate, cluster,
                   first_arrival);
  }
  std::vector<TimeUs> interrupted_us(jobs.size(), -1);  // Of the attempt a fault ended last.
  std::vector<double> recoveries;
  uint64_t interruptions = 0;
  uint64_t jobs_held = 0;  // Held by recovery.hold_after (none is released in a simulation).
  double failure_lost_device_us = 0;
  const auto job_ids = [&] {
    return static_cast<uint32_t>(jobs.size()) + (services ? services->replicas_submitted() : 0);
  };
  // A detected fault ends the attempts running on its node; not a job completing at this very
  // instant (its completion is already among the events).
  const auto interrupt = [&](JobId id, NodeId node, TimeUs now, std::vector<engine::Event>& out) {
    const uint32_t job = id.value();
    if (job < jobs.size() && outcomes[job].end_us == now) return;
    out.push_back(engine::JobInterrupted{id, node});
    ++interruptions;
    if (job >= jobs.size()) {
      services->Preempted(id, now, /*by_fault=*/true);
      return;
    }
    failure_lost_device_us += requeue(job, now, policy.preemption.restart_us);
    interrupted_us[job] = now;
  };
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions;
  uint64_t sequence = 0;
  size_t next_arrival = 0;

  std::vector<double> waits;
  std::vector<double> jcts;
  std::vector<double> slowdowns;
  waits.reserve(jobs.size());
  double allocated_integral = 0;  // milli-device-microseconds
  double stretch_sum = 0;
  TimeUs last_time = first_arrival;
  TimeUs last_completion = first_arrival;

  FacilityMeter facility(cluster, first_arrival, options.incidents);
  facility.Observe(engine.cluster_state());
  double completed_device_us = 0;  // Full-speed work of the jobs completed.
  const auto slowest_device = [&](uint32_t job) {
    double slowest = 1;
    for (DeviceId device : devices_of[job]) {
      slowest = std::min(slowest, facility.DeviceSpeed(device));
    }
    return slowest;
  };
  // Its speed is read once the meter has seen its devices (follow_heat after Observe).
  const auto place_on = [&](uint32_t job, const std::vector<engine::TaskAllocation>& tasks) {
    devices_of[job].clear();
    for (const engine::TaskAllocation& task : tasks) {
      devices_of[job].insert(devices_of[job].end(), task.devices.begin(), task.devices.end());
    }
    thermal_of[job] = slowest_device(job);
  };
  // A running job whose nodes' speed changed goes on at the new pace from `now`.
  const auto follow_heat = [&](TimeUs now) {
    for (uint32_t job = 0; job < jobs.size(); ++job) {
      if (start_us[job] < 0 || outcomes[job].end_us >= 0 || requeued_us[job] >= 0) continue;
      const double slowest = slowest_device(job);
      if (slowest == thermal_of[job]) continue;
      if (now > work_start_us[job]) {
        const double done_us = static_cast<double>(now - work_start_us[job]) / pace(job);
        unproductive_us[job] += std::min(done_us, remaining_us[job]) * checkpoint_pause(job);
        remaining_us[job] = std::max(remaining_us[job] - done_us, 0.0);
        work_start_us[job] = now;
      }
      thermal_of[job] = slowest;
      completions.push(Completion{work_start_us[job] + std::max<TimeUs>(rest_of(job), 0),
                                  sequence++, job, ++generation[job]});
    }
  };
  std::vector<engine::Event> events;
  bool idle_wakeup = false;
  while (true) {
    while (!completions.empty() &&
           completions.top().generation != generation[completions.top().job]) {
      completions.pop();  // Superseded by a migration.
    }
    TimeUs now = kNever;
    if (next_arrival < jobs.size()) now = jobs[next_arrival].submit_time_us;
    if (!completions.empty()) now = std::min(now, completions.top().time_us);
    if (services) now = std::min(now, services->NextEventUs());
    const bool work_in_flight = now != kNever;
    const TimeUs wakeup = engine.NextWakeupUs();
    if (wakeup != kNever && !idle_wakeup && (work_in_flight || engine.running_count() == 0)) {
      now = std::min(now, std::max(wakeup, last_time));
    }
    // Faults come while anything else is still to come; a repair is worth waiting for while
    // jobs wait (it may be what they wait for).
    const bool repair_awaited =
        health && engine.pending_count() > 0 && health->NextRepairUs() != kNever;
    if (repair_awaited) now = std::min(now, health->NextRepairUs());
    // While a zone is warm, running work is looked at every minute, even work heat has stalled.
    const TimeUs thermal_tick_us =
        engine.running_count() > 0 ? facility.NextTickUs(last_time) : kNever;
    now = std::min(now, thermal_tick_us);
    if (now == kNever || now > drain_limit) break;
    if (health) now = std::min(now, health->NextUs());

    // The floor since the last step, then its devices at the inlets it left them.
    facility.Advance(now);
    facility.ObserveInlets(engine.cluster_state());
    if (facility.TakeSpeedsChanged()) follow_heat(now);
    // Sample the series on the grid up to `now` (the state is constant in between).
    while (sampler.next_us() <= now) {
      const TimeUs t = sampler.next_us();
      SeriesPoint point;
      point.time_s = UsToSeconds(t - first_arrival);
      point.allocation = static_cast<double>(engine.cluster_state().allocated_milli()) / capacity;
      point.fragmentation = static_cast<double>(engine.FragmentedMilli()) / capacity;
      point.pending_jobs = engine.pending_count();
      point.running_jobs = engine.running_count();
      point.service_devices = services ? services->replica_devices() : 0;
      point.down_devices = health ? health->faults().down_devices() : 0;
      point.power_kw = facility.power_w() / 1e3;
      for (double feed_w : facility.FeedPowerW()) point.feed_power_kw.push_back(feed_w / 1e3);
      point.largest_free_block_by_level = LargestFreeBlocks(engine.cluster_state());
      point.queue_usage_devices = queues.Usage(engine.quotas());
      queues.SampleModels(engine.quotas());
      if (!queues.empty()) {
        point.queue_usage_share = QueueTally::UsageShares(engine.QueueFairShares());
      }
      sampler.Add(point);
    }
    if (!goodput_closed && now > goodput_until_us) {
      goodput_device_us = work_done_device_us(goodput_until_us);
      goodput_closed = true;
    }
    if (last_time < last_arrival) {
      allocated_integral += static_cast<double>(engine.cluster_state().allocated_milli()) *
                            static_cast<double>(std::min(now, last_arrival) - last_time);
    }
    last_time = now;

    events.clear();
    // The building's limits as incidents left them: the engine sees what a power monitor and
    // the cooling plant would report.
    for (engine::FacilityLimit& limit : facility.TakeLimitChanges()) events.push_back(limit);
    while (next_arrival < jobs.size() && jobs[next_arrival].submit_time_us == now) {
      events.push_back(
          engine::JobSubmitted{JobId(static_cast<uint32_t>(next_arrival)), jobs[next_arrival]});
      ++next_arrival;
    }
    while (!completions.empty() && completions.top().time_us == now) {
      const uint32_t job = completions.top().job;
      const bool current = completions.top().generation == generation[job];
      completions.pop();
      if (!current) continue;
      events.push_back(engine::JobFinished{JobId(job)});
      unproductive_us[job] += remaining_us[job] * checkpoint_pause(job);
      const double jct_s = UsToSeconds(now - jobs[job].submit_time_us);
      const double run_s = jct_s - UsToSeconds(outcomes[job].wait_us);
      jcts.push_back(jct_s);
      queues.Completed(job, jct_s);
      if (!goodput_closed) {
        goodput_device_us += static_cast<double>(jobs[job].runtime_us) * full_devices(job);
      }
      completed_device_us += static_cast<double>(jobs[job].runtime_us) * full_devices(job);
      slowdowns.push_back(std::max(1.0, jct_s / std::max(run_s, 10.0)));
      stretch_sum += stretch_of[job];
      ++metrics.jobs_completed;
      outcomes[job].end_us = now;
      last_completion = now;
    }
    std::vector<HealthDriver::Interruption> ended_by_faults;
    if (health) {
      ended_by_faults = health->Step(now, engine, job_ids(), events);
      for (const HealthDriver::Interruption& ended : ended_by_faults) {
        interrupt(ended.job, ended.node, now, events);
      }
    }
    if (services) services->Step(now, events);
    metrics.events += events.size();
    // A look at warm zones' devices and nothing else: the engine is not stepped, so that heat
    // changes no policy's timing.
    if (now == thermal_tick_us && events.empty() && now < engine.NextWakeupUs()) continue;
    const size_t running_before = engine.running_count();
    const engine::Decisions decisions = engine.Step(events, now);
    ++metrics.engine_steps;
    for (const HealthDriver::Interruption& ended : ended_by_faults) {
      if (!engine.hold_reason(ended.job).empty()) ++jobs_held;
    }
    decisions.Visit(engine::Handlers{
        // A moved job keeps the work it has done (at its old placement's speed), pauses for its
        // checkpoint and restart on the new devices, and finishes the rest at the new speed.
        // A preempted job keeps the work up to its last checkpoint (at full speed, counted from
        // when its current placement began working); the rest is lost, and its restart pauses.
        [&](const engine::PreemptJob& preemption) {
          if (services && services->Owns(preemption.job)) {
            services->Preempted(preemption.job, now);
            return;
          }
          const uint32_t job = preemption.job.value();
          ++metrics.preemptions;
          ++outcomes[job].preemptions;
          const double lost_device_us = requeue(job, now, preemption.restart_us);
          preemption_lost_device_us += lost_device_us;
          queues.Preempted(job, lost_device_us);
        },
        // A cap is on the engine's books, which the meter reads: the job goes on at its new
        // speed once the meter has seen it (below).
        [&](const engine::CapJob&) { ++metrics.power_caps; },
        [&](const engine::MigrateJob& move) {
          if (health) health->Moved(move.job);
          if (services && services->Owns(move.job)) {
            services->Moved(move.job, now);
            return;
          }
          const uint32_t job = move.job.value();
          HR_CHECK(start_us[job] >= 0);
          const double done_us =
              static_cast<double>(std::max<TimeUs>(now - work_start_us[job], 0)) / pace(job);
          unproductive_us[job] += std::min(done_us, remaining_us[job]) * checkpoint_pause(job);
          // The move's checkpoint and restart make no progress either.
          unproductive_us[job] += static_cast<double>(move.pause_us);
          remaining_us[job] = std::max(remaining_us[job] - done_us, 0.0);
          stretch_of[job] = speed.Stretch(cluster, move.tasks);
          place_on(job, move.tasks);
          const bool resize = move.tasks.size() != width_of[job];
          width_of[job] = static_cast<uint32_t>(move.tasks.size());
          work_start_us[job] = now + move.pause_us;
          const TimeUs rest = rest_of(job);
          completions.push(Completion{work_start_us[job] + std::max<TimeUs>(rest, 0), sequence++,
                                      job, ++generation[job]});
          // An elastic job shrunk or grown (engine_elastic.cc) pauses as a move does; its pause
          // is work lost to a preemption mode, not to defragmentation.
          if (resize) {
            ++metrics.elastic_resizes;
            preemption_lost_device_us += static_cast<double>(move.cost_device_us);
            return;
          }
          ++metrics.migrations;
          ++outcomes[job].migrations;
          migration_cost_device_us += move.cost_device_us;
        },
        // A requeued job starts again from its last checkpoint after its restart pause.
        [&](const engine::StartJob& start) {
          // Readiness checks of the nodes hold the job's work (a replica's model load covers
          // them).
          const TimeUs check_us = health ? health->Admit(start.job, start.tasks, now) : 0;
          if (services && services->Owns(start.job)) {
            services->Started(start.job, now);
            return;
          }
          const uint32_t job = start.job.value();
          const bool restart = outcomes[job].first_start_us >= 0;
          start_us[job] = now;
          stretch_of[job] = speed.Stretch(cluster, start.tasks);
          place_on(job, start.tasks);
          width_of[job] = static_cast<uint32_t>(start.tasks.size());
          interval_of[job] =
              start.checkpoint_interval_us > 0
                  ? static_cast<double>(start.checkpoint_interval_us) / work_pace(job)
                  : static_cast<double>(jobs[job].checkpoint_interval_us > 0
                                            ? jobs[job].checkpoint_interval_us
                                            : policy.preemption.checkpoint_interval_us);
          work_start_us[job] = now + (restart ? policy.preemption.restart_us : 0) + check_us;
          if (!restart) remaining_us[job] = static_cast<double>(jobs[job].runtime_us);
          const TimeUs rest = rest_of(job);
          completions.push(Completion{work_start_us[job] + std::max<TimeUs>(rest, 0), sequence++,
                                      job, generation[job]});
          if (restart) {
            outcomes[job].wait_us += now - requeued_us[job];
            unproductive_us[job] += static_cast<double>(now - requeued_us[job]);
            requeued_us[job] = -1;
            if (interrupted_us[job] >= 0) {
              recoveries.push_back(UsToSeconds(work_start_us[job] - interrupted_us[job]));
              interrupted_us[job] = -1;
            }
            return;
          }
          outcomes[job].first_start_us = now;
          outcomes[job].wait_us = now - jobs[job].submit_time_us;
          if (SpansNodes(start.tasks)) {
            ++metrics.multi_node_jobs;
            const uint32_t common = DeepestCommonLevel(cluster, start.tasks);
            for (uint32_t level = 0; level <= common; ++level) ++multi_node_within[level];
          }
        }});
    if (health) health->DiagnoseIdle(now, engine.cluster_state());
    facility.Observe(engine.cluster_state());
    // Starts, moves and caps change the speed of the devices they touch.
    if (facility.TakeSpeedsChanged()) follow_heat(now);
    if (options.paranoid) {
      const std::string problem = engine.CheckInvariants();
      HR_CHECK(problem.empty());
    }
    if (observer != nullptr) observer->AfterStep(SimView{engine, now, decisions});
    // A wake-up that started nothing with nothing else left would repeat forever; with a repair
    // awaited, the next step is the next fault or repair.
    idle_wakeup = events.empty() && decisions.empty() && completions.empty() &&
                  next_arrival == jobs.size() && running_before == 0 &&
                  (!services || services->NextEventUs() == kNever);
    if (idle_wakeup && !repair_awaited) break;
  }

  // Waits of every started job, a requeued one's still open counted to the end of the run.
  for (uint32_t job = 0; job < jobs.size(); ++job) {
    if (outcomes[job].first_start_us < 0) continue;
    if (requeued_us[job] >= 0) outcomes[job].wait_us += last_time - requeued_us[job];
    waits.push_back(UsToSeconds(outcomes[job].wait_us));
    queues.Started(job, waits.back());
  }
  const TimeUs end = std::max(last_completion, first_arrival + 1);
  metrics.makespan_s = UsToSeconds(end - first_arrival);
  metrics.allocation_rate =
      last_arrival > first_arrival
          ? allocated_integral / (capacity * static_cast<double>(last_arrival - first_arrival))
          : 0;
  metrics.jobs_unplaced = jobs.size() - waits.size();
  metrics.wait_s = Summarize(waits);
  metrics.jct_s = Summarize(jcts);
  metrics.bounded_slowdown = Summarize(slowdowns);
  metrics.mean_slowdown_from_placement =
      metrics.jobs_completed == 0 ? 1.0 : stretch_sum / static_cast<double>(metrics.jobs_completed);
  metrics.migration_cost_device_hours =
      static_cast<double>(migration_cost_device_us) / (3600.0 * kUsPerSecond);
  metrics.preemption_lost_device_hours = preemption_lost_device_us / (3600.0 * kUsPerSecond);
  metrics.goodput_device_hours = goodput_device_us / (3600.0 * kUsPerSecond);
  run.facility = facility.Summary();
  if (run.facility.energy_kwh > 0) {
    run.facility.useful_device_h_per_kwh =
        completed_device_us / (3600.0 * kUsPerSecond) / run.facility.energy_kwh;
  }
  for (uint32_t level = 0; level < levels; ++level) {
    metrics.multi_node_within_one_block_by_level.push_back(
        metrics.multi_node_jobs == 0 ? 0
                                     : static_cast<double>(multi_node_within[level]) /
                                           static_cast<double>(metrics.multi_node_jobs));
  }
  metrics.multi_node_within_one_block = metrics.multi_node_within_one_block_by_level.back();
  run.series = std::move(sampler.points());
  run.queues = queues.Finish(engine.quotas(), run.series, engine.QueueFairShares(),
                             static_cast<double>(cluster.device_count()));
  double fragmentation_sum = 0;
  for (const SeriesPoint& point : run.series) fragmentation_sum += point.fragmentation;
  metrics.fragmentation_rate =
      run.series.empty() ? 0 : fragmentation_sum / static_cast<double>(run.series.size());
  std::sort(waits.begin(), waits.end());
  run.sorted_wait_s = std::move(waits);
  if (options.job_outcomes) run.jobs = std::move(outcomes);
  if (services) run.services = services->Finish(last_time);
  if (health) {
    const FaultProcess& faults = health->faults();
    FailureMetrics failed;
    failed.node_faults = faults.faults();
    failed.interruptions = interruptions;
    failed.jobs_held = jobs_held;
    failed.lost_device_hours = failure_lost_device_us / (3600.0 * kUsPerSecond);
    failed.recovery_s = Summarize(recoveries);
    failed.mean_repair_s =
        faults.faults() == 0 ? 0 : faults.repair_s_total() / static_cast<double>(faults.faults());
    failed.jobs_started_on_faulty = health->jobs_started_on_faulty();
    failed.checks = health->checks();
    failed.checks_failed = health->checks_failed();
    failed.gang_checks = health->gang_checks();
    failed.warnings = health->warnings();
    failed.false_warnings = health->false_warnings();
    failed.diagnoses = health->diagnoses();
    failed.diagnoses_found = health->diagnoses_found();
    failed.check_device_hours = health->check_device_us() / (3600.0 * kUsPerSecond);
    double large_unproductive_us = 0;
    double large_wall_us = 0;
    for (uint32_t job = 0; job < jobs.size(); ++job) {
      if (jobs[job].total_devices() < options.large_job_devices || outcomes[job].end_us < 0)
        continue;
      ++failed.large_jobs_completed;
      large_unproductive_us += unproductive_us[job];
      large_wall_us += static_cast<double>(outcomes[job].end_us - outcomes[job].first_start_us);
    }
    if (large_wall_us > 0) {
      failed.effective_training_time = 1 - large_unproductive_us / large_wall_us;
    }
    for (size_t i = 0; i < options.failures.classes.size(); ++i) {
      failed.faults_by_class.emplace_back(options.failures.classes[i].name,
                                          faults.faults_by_class()[i]);
    }
    run.failures = std::move(failed);
  }
  return run;
}

std::vector<PolicyRun> RunPolicies(const model::Cluster& cluster, const model::Workload& workload,
                                   const std::vector<engine::PolicyConfig>& policies,
                                   const SimOptions& options, unsigned threads) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<PolicyRun> runs(policies.size());
  size_t next = 0;
  while (next < policies.size()) {
    std::vector<std::future<PolicyRun>> batch;
    const size_t batch_end = std::min(policies.size(), next + threads);
    for (size_t i = next; i < batch_end; ++i) {
      batch.push_back(std::async(std::launch::async, [&, i] {
        return Simulate(cluster, workload, policies[i], options);
      }));
    }
    for (size_t i = next; i < batch_end; ++i) runs[i] = batch[i - next].get();
    next = batch_end;
  }
  return runs;
}

}  // namespace headroom::sim
