// LiveLoop's calls for operators' requests on jobs and nodes: cancel a job, drain or undrain a
// node; each runs on the loop thread, journals first and then changes the state (live_loop.h).
#include "control/live_loop.h"

#include <fmt/format.h>

#include "control/engine_log.h"
#include "engine/policy_yaml.h"
#include "engine/quota_yaml.h"

namespace headroom::control {

ApiResult<JobRecord> LiveLoop::CopyOfJob(uint64_t id) const {
  std::lock_guard lock(state_.mu);
  auto it = state_.jobs.find(id);
  if (it == state_.jobs.end())
    return Fail(404, "job {} does not exist; list jobs with GET /v1/jobs", id);
  return it->second;
}

ApiResult<JobRecord> LiveLoop::Cancel(uint64_t id) {
  ApiResult<JobRecord> result = Fail(500, "the loop did not run the cancel");
  RunCall([&] {
    const TimeUs now = Now();
    auto found = CopyOfJob(id);
    if (!found) {
      result = tl::unexpected(found.error());
      return;
    }
    JobRecord job = std::move(*found);
    if (job.state == JobState::kCancelled) {
      result = job;
      return;
    }
    if (IsFinal(job.state)) {
      result =
          Fail(409, "job {} already {}; there is nothing to cancel", id, JobStateName(job.state));
      return;
    }
    const bool was_running = job.state == JobState::kRunning;
    job.state = JobState::kCancelled;
    job.end_us = now;
    job.message = "cancelled by request";
    if (auto ok = journal_.Commit({ProgressOf(job)}); !ok) {
      result = StoreFailure(ok.error());
      return;
    }
    ApplyCancelled({job}, {was_running}, now);
    result = job;
  });
  Wake();
  return result;
}

ApiResult<JobRecord> LiveLoop::Hold(uint64_t id, bool held, std::string reason) {
  ApiResult<JobRecord> result = Fail(500, "the loop did not run the hold");
  RunCall([&] {
    const TimeUs now = Now();
    auto found = CopyOfJob(id);
    if (!found) {
      result = tl::unexpected(found.error());
      return;
    }
    JobRecord job = std::move(*found);
    if (job.state != JobState::kPending) {
      result = Fail(409, "job {} is {}; only a pending job is {}", id, JobStateName(job.state),
                    held ? "held" : "released");
      return;
    }
    if (job.hold_reason.empty() != held) {
      result = job;  // Already as asked.
      return;
    }
    job.hold_reason = held ? "Held by an operator: " + reason : std::string();
    job.message = held ? job.hold_reason : "released by an operator";
    if (auto ok = journal_.Commit({ProgressOf(job)}); !ok) {
      result = StoreFailure(ok.error());
      return;
    }
    {
      std::lock_guard lock(state_.mu);
      state_.jobs.Put(job);
    }
    if (auto it = engine_of_daemon_.find(id); it != engine_of_daemon_.end() && engine_) {
      AddEvent(engine::JobHeld{it->second, held, job.hold_reason},
               HoldEvent(id, held, job.hold_reason));
    }
    Log(held ? "held" : "released", id, std::nullopt, fmt::format("job {} {}", id, job.message),
        now);
    result = job;
  });
  Wake();
  return result;
}

void LiveLoop::NoteHolds(TimeUs now) {
  std::vector<uint64_t> interrupted;
  interrupted.swap(interrupted_since_step_);
  std::vector<JobRecord> held;
  {
    std::lock_guard lock(state_.mu);
    for (uint64_t id : interrupted) {
      auto engine_id = engine_of_daemon_.find(id);
      auto it = state_.jobs.find(id);
      if (engine_id == engine_of_daemon_.end() || it == state_.jobs.end()) continue;
      const std::string_view reason = engine_->hold_reason(engine_id->second);
      if (reason.empty() || it->second.hold_reason == reason) continue;
      JobRecord job = it->second;
      job.hold_reason = std::string(reason);
      job.message = job.hold_reason;
      held.push_back(std::move(job));
    }
  }
  std::vector<StoreWrite> writes;
  for (const JobRecord& job : held) writes.push_back(ProgressOf(job));
  if (writes.empty() || !CommitThenApply(std::move(writes), "holds", now, [&] {
        for (const JobRecord& job : held) state_.jobs.Put(job);
      })) {
    return;
  }
  for (const JobRecord& job : held) Log("held", job.id, std::nullopt, job.message, now);
}

void LiveLoop::ApplyCancelled(const std::vector<JobRecord>& cancelled,
                              const std::vector<bool>& was_running, TimeUs now) {
  {
    std::lock_guard lock(state_.mu);
    for (const JobRecord& job : cancelled) state_.jobs.Put(job);
  }
  for (size_t i = 0; i < cancelled.size(); ++i) {
    const uint64_t id = cancelled[i].id;
    if (was_running[i]) backend_.OnStop(id);
    if (auto it = engine_of_daemon_.find(id); it != engine_of_daemon_.end() && engine_) {
      AddEvent(engine::JobCancelled{it->second}, CancelEvent(id));
    }
    Log("cancelled", id, std::nullopt, fmt::format("job {} cancelled", id), now);
  }
}

ApiResult<NodeRecord> LiveLoop::SetDrain(const std::string& name, bool drained,
                                         std::string reason) {
  ApiResult<NodeRecord> result = Fail(500, "the loop did not run the drain");
  RunCall([&] {
    const TimeUs now = Now();
    NodeRecord node;
    {
      std::lock_guard lock(state_.mu);
      auto it = state_.nodes.find(name);
      if (it == state_.nodes.end()) {
        result = Fail(404, "node '{}' does not exist; list nodes with GET /v1/nodes", name);
        return;
      }
      node = it->second.record;
    }
    node.drained = drained;
    node.drain_reason = drained ? reason : "";
    if (auto ok = journal_.Commit({node}); !ok) {
      result = StoreFailure(ok.error());
      return;
    }
    {
      std::lock_guard lock(state_.mu);
      state_.nodes[name].record = node;
      ++state_.node_gates_version;
    }
    Log(drained ? "node_drained" : "node_undrained", std::nullopt, name,
        drained ? fmt::format("node {} drained: {}", name, reason)
                : fmt::format("node {} undrained", name),
        now);
    result = node;
  });
  Wake();
  return result;
}

engine::PolicyConfig LiveLoop::policy() const {
  std::lock_guard lock(policy_mu_);
  return options_.policy;
}

std::string LiveLoop::policy_text() const {
  std::lock_guard lock(policy_mu_);
  return options_.policy_text;
}

ApiResult<void> LiveLoop::SetPolicy(std::string text, engine::PolicyConfig policy) {
  ApiResult<void> result = Fail(500, "the loop did not run the policy change");
  // On the loop thread, so that two changes are journaled and applied in the same order.
  RunCall([&] { result = ApplyPolicy(std::move(text), std::move(policy)); });
  Wake();
  return result;
}

ApiResult<void> LiveLoop::SetQueues(const std::string& queues_text) {
  ApiResult<void> result = Fail(500, "the loop did not run the queues change");
  RunCall([&] {
    auto text = engine::PolicyTextWithQueues(options_.policy_text, queues_text, "body");
    if (!text) {
      result = Fail(400, "{}", text.error().message);
      return;
    }
    auto policy = engine::ParsePolicyYaml(*text, "the policy with these queues");
    if (!policy) {
      result = Fail(400, "{}", policy.error().message);
      return;
    }
    result = ApplyPolicy(std::move(*text), std::move(*policy));
  });
  Wake();
  return result;
}

ApiResult<void> LiveLoop::ApplyPolicy(std::string text, engine::PolicyConfig policy) {
  // The floor's levels are known once it has nodes (agents' floors: cluster, nvlink).
  if (cluster_ != nullptr && policy.recovery.spare_nodes > 0) {
    if (auto level = engine::SpareLevel(policy.recovery, *cluster_); !level) {
      return Fail(400, "{}", level.error().message);
    }
  }
  if (auto ok = journal_.Commit({MetaRecord{kPolicyKey, text}}); !ok) {
    return StoreFailure(ok.error());
  }
  const std::string name = policy.name;
  {
    std::lock_guard lock(policy_mu_);
    options_.policy = std::move(policy);
    options_.policy_text = std::move(text);
  }
  rebuild_ = true;
  Log("policy", std::nullopt, std::nullopt, fmt::format("policy set to {}", name), Now());
  return {};
}

}  // namespace headroom::control
