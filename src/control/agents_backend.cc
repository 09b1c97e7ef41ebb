#include "control/agents_backend.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "base/check.h"
#include "control/clock.h"
#include "control/logging.h"
#include "model/cluster_builder.h"

namespace headroom::control {

std::vector<model::DesiredTask> DesiredTasks(const DaemonState& state, const std::string& node,
                                             int64_t stop_grace_s) {
  std::vector<model::DesiredTask> out;
  auto node_it = state.nodes.find(node);
  if (node_it == state.nodes.end() || node_it->second.health == NodeHealth::kDown) return out;
  const std::vector<model::RegisteredDevice>& inventory = node_it->second.record.devices;
  const auto& abandoned = node_it->second.abandoned_attempts;
  const auto& unstarted = node_it->second.unstarted_attempts;
  for (uint64_t id : state.jobs.RunningOn(node)) {
    const JobRecord& job = state.jobs.at(id);
    // An attempt placed here before the agent registered died with the earlier agent, and one
    // the node's failed readiness check kept from starting is going elsewhere: each is being
    // requeued and must not start here.
    const std::pair attempt(id, job.starts);
    if (std::find(abandoned.begin(), abandoned.end(), attempt) != abandoned.end() ||
        std::find(unstarted.begin(), unstarted.end(), attempt) != unstarted.end()) {
      continue;
    }
    for (const TaskPlacement& task : job.placement) {
      if (task.node != node) continue;
      model::DesiredTask desired{.key = {.job = static_cast<int64_t>(id),
                                         .rank = static_cast<int>(task.rank),
                                         .attempt = job.starts},
                                 .world_size = static_cast<int>(job.placement.size()),
                                 .command = job.spec.command,
                                 .env = {job.spec.env.begin(), job.spec.env.end()},
                                 .stop_grace_s = stop_grace_s,
                                 .tenant = job.spec.tenant,
                                 .checkpoint_interval_s = job.checkpoint_interval_us / kUsPerSecond,
                                 .power_cap_w = task.power_cap_w};
      for (uint32_t index : task.device_indices) {
        desired.devices.push_back(
            static_cast<int>(index < inventory.size() ? inventory[index].index : index));
      }
      std::string port = "29500";
      for (const auto& [key, value] : job.spec.env) {
        if (key == "MASTER_PORT") port = value;
      }
      const std::string& head = job.placement.front().node;
      auto head_it = state.nodes.find(head);
      const std::string address =
          head_it == state.nodes.end() || head_it->second.record.address.empty()
              ? head
              : head_it->second.record.address;
      desired.rendezvous = fmt::format("{}:{}", address, port);
      out.push_back(std::move(desired));
    }
  }
  return out;
}

std::vector<std::pair<uint64_t, uint32_t>> RunningAttemptsOn(const DaemonState& state,
                                                             const std::string& node) {
  std::vector<std::pair<uint64_t, uint32_t>> out;
  for (uint64_t id : state.jobs.RunningOn(node)) out.emplace_back(id, state.jobs.at(id).starts);
  return out;
}

bool NoteUnstartedAttempts(const DaemonState& state, const std::string& node, NodeStatus& status,
                           const std::vector<model::TaskReport>& tasks, bool ready) {
  if (ready) return false;
  bool moved = false;
  for (uint64_t id : state.jobs.RunningOn(node)) {
    const std::pair<uint64_t, uint32_t> attempt(id, state.jobs.at(id).starts);
    // Attempt 0: an agent that sends none reports the current one.
    const bool started = std::any_of(tasks.begin(), tasks.end(), [&](const model::TaskReport& t) {
      return static_cast<uint64_t>(t.key.job) == id &&
             (t.key.attempt == 0 || static_cast<uint32_t>(t.key.attempt) == attempt.second);
    });
    const auto listed = [&](const std::vector<std::pair<uint64_t, uint32_t>>& attempts) {
      return std::find(attempts.begin(), attempts.end(), attempt) != attempts.end();
    };
    if (started || listed(status.abandoned_attempts) || listed(status.unstarted_attempts)) {
      continue;
    }
    status.unstarted_attempts.push_back(attempt);
    moved = true;
  }
  return moved;
}

std::vector<ReportedExit> ExitsPlacedOn(DaemonState& state, const std::string& node,
                                        std::vector<ReportedExit> exits) {
  std::vector<ReportedExit> placed;
  for (const ReportedExit& exit : exits) {
    auto it = state.jobs.find(exit.job);
    if (it == state.jobs.end() || it->second.state != JobState::kRunning) continue;
    const JobRecord& job = it->second;
    if (exit.attempt && *exit.attempt != job.starts) continue;
    const auto task =
        std::find_if(job.placement.begin(), job.placement.end(),
                     [&](const TaskPlacement& t) { return t.rank == exit.rank && t.node == node; });
    if (task != job.placement.end()) {
      placed.push_back(exit);
      // A task that ended as its device failed was ended by the fault, not by its job.
      const DeviceHealthBook& book = state.nodes.at(node).health_book;
      placed.back().device_failed =
          std::any_of(task->device_indices.begin(), task->device_indices.end(),
                      [&](uint32_t index) { return book.state(index) == DeviceState::kFailed; });
      placed.back().node = node;
      continue;
    }
    ++state.foreign_reports_total;
    LogWarn("agents: node {} reported an exit of job {} rank {}, not placed on it; ignored", node,
            exit.job, exit.rank);
  }
  return placed;
}

std::shared_ptr<const model::Cluster> ClusterOfRegisteredNodes(const DaemonState& state) {
  // Topology as the hardware reports it: nodes whose GPUs share an NVLink fabric clique (NVML's
  // clusterUuid.cliqueId, reported by the agent) form one "nvlink" domain; a node without one is
  // a domain of its own, so a gang that prefers or requires one NVLink domain fits on one node.
  std::map<std::string, std::vector<const std::string*>> nodes_by_domain;
  for (const auto& [name, status] : state.nodes) {
    if (!status.record.registered) continue;
    const auto& devices = status.record.devices;
    const std::string clique = devices.empty() ? std::string() : devices.front().clique_id;
    nodes_by_domain[clique.empty() ? "host-" + name : "clique-" + clique].push_back(&name);
  }
  model::ClusterBuilder builder({"cluster", "nvlink"}, "cluster");
  size_t count = 0;
  for (const auto& [domain_name, names] : nodes_by_domain) {
    const DomainId domain = builder.AddDomain(builder.root(), domain_name);
    for (const std::string* name : names) {
      const NodeRecord& record = state.nodes.at(*name).record;
      model::NodeSpec spec{
          .name = *name, .cpu_milli = record.cpu_milli, .memory_mib = record.memory_mib};
      for (const model::RegisteredDevice& device : record.devices) {
        spec.devices.push_back(
            model::DeviceAttributes(device.model, static_cast<double>(device.memory_mib) / 1024.0));
      }
      builder.AddNode(domain, std::move(spec));
      ++count;
    }
  }
  if (count == 0) return nullptr;
  auto cluster = std::move(builder).Build();
  if (!cluster) {
    LogError("agents: the registered nodes do not form a cluster: {}", cluster.error().message);
    return nullptr;
  }
  return std::make_shared<const model::Cluster>(std::move(*cluster));
}

AgentsBackend::AgentsBackend(DaemonState& state, EventLog& events, const Clock& clock,
                             AgentsOptions options)
    : state_(state), events_(events), clock_(clock), options_(options) {}

void AgentsBackend::Registered() {
  std::lock_guard lock(mu_);
  cluster_changed_ = true;
}

void AgentsBackend::Reported(std::vector<ReportedExit> exits) {
  std::lock_guard lock(mu_);
  exits_.insert(exits_.end(), exits.begin(), exits.end());
}

std::shared_ptr<const model::Cluster> AgentsBackend::CurrentCluster() {
  std::lock_guard lock(state_.mu);
  return ClusterOfRegisteredNodes(state_);
}

void AgentsBackend::Abandoned() {
  std::lock_guard lock(mu_);
  scan_nodes_ = true;
}

void AgentsBackend::OnStart(const JobRecord& job, const std::vector<engine::TaskAllocation>& tasks,
                            const model::Cluster&) {
  // A restore of the attempt it tracks (an engine rebuild) keeps the exits seen so far.
  if (auto it = gangs_.find(job.id); it != gangs_.end() && it->second.attempt == job.starts) return;
  const TimeUs deadline_us =
      job.spec.time_limit_us > 0 ? job.start_us + TimeLimitAtWidth(job.spec, tasks.size()) : kNever;
  EraseGang(job.id);
  gangs_[job.id] = Gang{.attempt = job.starts,
                        .world_size = static_cast<uint32_t>(tasks.size()),
                        .deadline_us = deadline_us};
  deadlines_.emplace(deadline_us, job.id);
}

void AgentsBackend::OnMigrate(const JobRecord& job, const engine::MigrateJob& move, TimeUs,
                              const model::Cluster& cluster) {
  // What the agents run follows the job's record (DesiredTasks); here the gang starts over as
  // the new attempt, with the deadline of the job's first start.
  HR_CHECK(job.start_us > 0);
  OnStart(job, move.tasks, cluster);
}

void AgentsBackend::OnCap(const JobRecord&, const engine::CapJob&, TimeUs, const model::Cluster&) {
  // The cap is in the job's record (each task's power_cap_w), which DesiredTasks hands the
  // agents: each sets its devices' limits at its next heartbeat (agent/power_limiter.h). The
  // gang, its attempt and its deadline are unchanged.
}

void AgentsBackend::OnPreempt(const JobRecord& job, const engine::PreemptJob&, TimeUs) {
  // The job's record is pending now, so no agent is asked to run it (DesiredTasks): each stops
  // its task with the checkpoint signal and the stop grace; the task resumes from its own
  // checkpoint when the job starts again as its next attempt.
  EraseGang(job.id);
}

void AgentsBackend::OnStop(uint64_t job) { EraseGang(job); }

void AgentsBackend::EraseGang(uint64_t job) {
  auto it = gangs_.find(job);
  if (it == gangs_.end()) return;
  deadlines_.erase({it->second.deadline_us, job});
  gangs_.erase(it);
}

BackendReport AgentsBackend::Poll(TimeUs now_us) {
  BackendReport report;
  std::vector<ReportedExit> exits;
  // Silence is measured on the wall clock: heartbeats arrive in real time.
  const TimeUs wall = clock_.WallNowUs();
  bool scan_nodes = wall >= next_node_scan_wall_us_;
  {
    std::lock_guard lock(mu_);
    exits.swap(exits_);
    report.cluster_changed = cluster_changed_;
    cluster_changed_ = false;
    scan_nodes = scan_nodes || scan_nodes_;
    scan_nodes_ = false;
  }
  for (const ReportedExit& exit : exits) {
    auto it = gangs_.find(exit.job);
    if (it == gangs_.end() || exit.rank >= it->second.world_size) continue;
    if (exit.attempt && *exit.attempt != it->second.attempt) {
      LogDebug("agents: job {} rank {}: exit of attempt {} ignored, attempt {} runs", exit.job,
               exit.rank, *exit.attempt, it->second.attempt);
      continue;
    }
    it->second.exits[exit.rank] = exit.exit_code;
    if (exit.exit_code != 0 && exit.device_failed) {
      report.faulted_jobs.push_back({exit.job, exit.node});
      EraseGang(exit.job);
    } else if (exit.exit_code != 0) {
      report.completions.push_back(
          {exit.job, exit.exit_code,
           fmt::format("rank {} exited with code {}", exit.rank, exit.exit_code)});
      EraseGang(exit.job);
    } else if (it->second.exits.size() == it->second.world_size) {
      report.completions.push_back({exit.job, 0, "every rank exited 0"});
      EraseGang(exit.job);
    }
  }
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_us) {
    const auto [deadline_us, job] = *deadlines_.begin();
    report.completions.push_back({job, 124, "time limit reached", deadline_us});
    EraseGang(job);
  }
  // The walk over every node (12,500 at building scale) runs a few times per grace period, not
  // at each of the loop's steps, and at once after a registration abandoned attempts.
  if (!scan_nodes) return report;
  next_node_scan_wall_us_ = wall + std::min(kUsPerSecond, options_.grace_us / 4);
  bool abandoned_left = false;
  {
    std::lock_guard lock(state_.mu);
    for (auto& [name, status] : state_.nodes) {
      // Attempts abandoned by a registration are requeued (again at each Poll until the loop has
      // done it); those no longer current are forgotten.
      const std::string& node = name;  // A lambda cannot capture a structured binding (C++17).
      const auto requeue = [&](std::vector<std::pair<uint64_t, uint32_t>>& attempts,
                               std::vector<EndedJob>& jobs) {
        std::erase_if(attempts, [&](const std::pair<uint64_t, uint32_t>& attempt) {
          auto job = state_.jobs.find(attempt.first);
          const bool current = job != state_.jobs.end() &&
                               job->second.state == JobState::kRunning &&
                               job->second.starts == attempt.second;
          if (current) jobs.push_back({attempt.first, node});
          return !current;
        });
        abandoned_left = abandoned_left || !attempts.empty();
      };
      requeue(status.abandoned_attempts, report.lost_jobs);
      requeue(status.unstarted_attempts, report.unstarted_jobs);
      if (!status.record.registered || status.health == NodeHealth::kDown) continue;
      const TimeUs silent_us = wall - status.last_heartbeat_us;
      if (status.health == NodeHealth::kUp && silent_us > options_.grace_us) {
        status.health = NodeHealth::kUnknown;
        ++state_.node_gates_version;
        events_.Append(
            LoggedEvent{.time_us = wall,
                        .type = "node_unknown",
                        .node = name,
                        .message = fmt::format("node {} silent for {:.1f} s: no new work", name,
                                               UsToSeconds(silent_us))});
      } else if (status.health == NodeHealth::kUnknown && silent_us > 2 * options_.grace_us) {
        status.health = NodeHealth::kDown;
        ++state_.node_gates_version;
        report.lost_nodes.push_back(name);
        events_.Append(LoggedEvent{.time_us = wall,
                                   .type = "node_unknown",
                                   .node = name,
                                   .message = fmt::format("node {} down after {:.1f} s of silence; "
                                                          "its jobs are requeued",
                                                          name, UsToSeconds(silent_us))});
      }
    }
  }
  // Until the loop has requeued them, look again at the next step.
  if (abandoned_left) Abandoned();
  return report;
}

TimeUs AgentsBackend::NextPollUs(TimeUs now_us) const {
  const TimeUs next_deadline_us = deadlines_.empty() ? kNever : deadlines_.begin()->first;
  return std::min(now_us + kUsPerSecond / 2, std::max(now_us, next_deadline_us));
}

}  // namespace headroom::control
