#include "control/engine_replay.h"

#include <limits>
#include <optional>
#include <unordered_set>
#include <utility>

#include <fmt/format.h>

#include "control/engine_log.h"
#include "control/job_spec.h"
#include "engine/policy_yaml.h"
#include "model/cluster_yaml.h"

namespace headroom::control {
namespace {

using Json = nlohmann::json;

constexpr size_t kMismatchesKept = 10;

// A member of `object` of the given JSON type, or an error naming it.
Result<const Json*> Member(const Json& object, const char* key, Json::value_t type) {
  auto it = object.find(key);
  const bool number_ok =
      type == Json::value_t::number_integer && it != object.end() && it->is_number_integer();
  if (it == object.end() || (it->type() != type && !number_ok)) {
    return MakeError(ErrorCode::kInvalidArgument, "'{}' missing or of the wrong type", key);
  }
  return &*it;
}

// An optional true/false member of `object`: false when absent, nullopt when not a boolean.
std::optional<bool> OptionalFlag(const Json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end()) return false;
  return it->is_boolean() ? std::optional<bool>(it->get<bool>()) : std::nullopt;
}

// An optional checkpoint_interval_us of a start or restore: 0 when absent, nullopt when not a
// positive integer.
std::optional<TimeUs> OptionalInterval(const Json& object) {
  auto it = object.find("checkpoint_interval_us");
  if (it == object.end()) return TimeUs{0};
  if (!it->is_number_integer() || it->get<TimeUs>() <= 0) return std::nullopt;
  return it->get<TimeUs>();
}

}  // namespace

std::optional<JobId> EngineReplay::EngineIdOf(uint64_t job) const {
  auto it = engine_of_daemon_.find(job);
  if (it == engine_of_daemon_.end()) return std::nullopt;
  return it->second;
}

JobId EngineReplay::NewEngineId(uint64_t job) {
  const JobId id(static_cast<uint32_t>(daemon_of_engine_.size()));
  daemon_of_engine_.push_back(job);
  engine_of_daemon_[job] = id;
  return id;
}

tl::expected<void, Error> EngineReplay::Apply(const EngineLogRecord& record) {
  const Json body = Json::parse(record.body, nullptr, false);
  tl::expected<void, Error> result;
  if (body.is_object() && body.contains("build")) {
    result = Build(body["build"], record.seq);
  } else if (engine_ == nullptr) {
    ++skipped_;
  } else if (body.is_object() && body.contains("idle") && body["idle"].is_array()) {
    for (const Json& time : body["idle"]) {
      if (!time.is_number_integer() || time.get<TimeUs>() < last_step_us_) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "engine log record {}: idle: not a time, or one before the last step",
                         record.seq);
      }
      last_step_us_ = time.get<TimeUs>();
      first_step_ = false;
      ++steps_;
      std::vector<engine::Event> none;
      result = Run(none, Json::array(), record, time.get<TimeUs>());
      if (!result) break;
    }
  } else if (body.is_object() && body.contains("step")) {
    result = Step(body["step"], record);
  } else {
    result = MakeError(ErrorCode::kInvalidArgument, "not a build, step or idle record");
  }
  if (!result) {
    return MakeError(result.error().code, "engine log record {}: {}", record.seq,
                     result.error().message);
  }
  return {};
}

tl::expected<void, Error> EngineReplay::Build(const Json& build, int64_t seq) {
  auto cluster_text = Member(build, "cluster", Json::value_t::string);
  auto policy_text = Member(build, "policy", Json::value_t::string);
  if (!cluster_text) return tl::unexpected(cluster_text.error());
  if (!policy_text) return tl::unexpected(policy_text.error());
  auto cluster = model::ParseClusterYaml((*cluster_text)->get<std::string>(),
                                         fmt::format("record {} cluster", seq));
  if (!cluster) return tl::unexpected(cluster.error());
  auto policy = engine::ParsePolicyYaml((*policy_text)->get<std::string>(),
                                        fmt::format("record {} policy", seq));
  if (!policy) return tl::unexpected(policy.error());
  auto carried = CarriedOf(build);
  if (!carried) return tl::unexpected(carried.error());
  cluster_ = std::make_shared<const model::Cluster>(std::move(*cluster));
  engine_ = std::make_unique<engine::Engine>(*cluster_, *policy, *carried);
  daemon_of_engine_.clear();
  engine_of_daemon_.clear();
  last_step_us_ = std::numeric_limits<TimeUs>::min();
  first_step_ = true;
  ++builds_;
  return {};
}

tl::expected<void, Error> EngineReplay::Step(const Json& step, const EngineLogRecord& record) {
  auto events = Member(step, "events", Json::value_t::array);
  auto recorded = Member(step, "decisions", Json::value_t::array);
  if (!events) return tl::unexpected(events.error());
  if (!recorded) return tl::unexpected(recorded.error());
  if (record.time_us < last_step_us_) {
    return MakeError(ErrorCode::kInvalidArgument, "its time is before the last step's");
  }
  // The loop restores running jobs in the first step after a build only.
  const bool restores_allowed = std::exchange(first_step_, false);
  std::vector<engine::Event> inputs;
  // Devices the restores of this step take, so that two restores never share one.
  std::vector<uint32_t> restored_milli(cluster_->devices().size(), 0);
  // Jobs submitted or restored earlier in this step are not in the engine's books yet; the
  // loop may end or cancel them in the same step.
  std::unordered_set<uint32_t> new_in_step;
  const auto known = [&](const Json& id, JobState state) -> Result<JobId> {
    if (!id.is_number_unsigned()) {
      return MakeError(ErrorCode::kInvalidArgument, "a job id must be a number");
    }
    auto it = engine_of_daemon_.find(id.get<uint64_t>());
    if (it == engine_of_daemon_.end() ||
        (!new_in_step.contains(it->second.value()) && engine_->state(it->second) != state)) {
      return MakeError(ErrorCode::kInvalidArgument, "job {} is not {} in the engine",
                       id.get<uint64_t>(),
                       state == JobState::kRunning ? "running" : "pending or running");
    }
    return it->second;
  };
  for (const Json& event : **events) {
    if (!event.is_object()) {
      return MakeError(ErrorCode::kInvalidArgument, "an event is not an object");
    }
    if (event.contains("submit") || event.contains("restore")) {
      const bool restore = event.contains("restore");
      if (restore && !restores_allowed) {
        return MakeError(ErrorCode::kInvalidArgument, "a restore after the build's first step");
      }
      const Json& id = event[restore ? "restore" : "submit"];
      auto spec_text = Member(event, "spec", Json::value_t::string);
      auto submit_us = Member(event, "submit_us", Json::value_t::number_integer);
      if (!id.is_number_unsigned() || !spec_text || !submit_us) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a submit or restore lacks an id, spec or time");
      }
      auto spec = specs_.Parse((*spec_text)->get<std::string>(), "spec");
      if (!spec) return tl::unexpected(spec.error());
      model::Job job = ToModelJob(*spec, spec->tenant, (*submit_us)->get<TimeUs>());
      if (event.contains("preemptions")) {
        const Json& count = event["preemptions"];
        if (!count.is_number_unsigned() ||
            count.get<uint64_t>() > std::numeric_limits<uint32_t>::max()) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "a submit or restore's 'preemptions': expected a count (0 or more)");
        }
        job.preemptions = count.get<uint32_t>();
      }
      if (event.contains("pending_since_us")) {
        const Json& since = event["pending_since_us"];
        if (!since.is_number_integer() || since.get<TimeUs>() < job.submit_time_us) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "a submit's 'pending_since_us': expected a time no earlier than its "
                           "submit_us");
        }
        job.pending_since_us = since.get<TimeUs>();
      }
      if (event.contains("attained_device_us")) {
        const Json& attained = event["attained_device_us"];
        // A restored job's is a base that may be below 0 (engine_log.cc, RestoreEvent).
        if (!attained.is_number_integer() || (!restore && attained.get<int64_t>() < 0)) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "a submit's or restore's 'attained_device_us': expected a whole "
                           "number of device-microseconds, 0 or more for a submit");
        }
        job.attained_device_us = attained.get<int64_t>();
      }
      if (event.contains("hold_reason")) {
        const Json& reason = event["hold_reason"];
        if (restore || !reason.is_string() || reason.get<std::string>().empty()) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "a submit's 'hold_reason': expected why the pending job is held");
        }
        job.hold_reason = reason.get<std::string>();
      }
      const std::optional<bool> expedited = OptionalFlag(event, "expedited");
      if (!expedited || (restore && *expedited)) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a submit's 'expedited': expected true or false");
      }
      job.expedited = *expedited;
      if (!restore) {
        const JobId engine_id = NewEngineId(id.get<uint64_t>());
        new_in_step.insert(engine_id.value());
        inputs.push_back(engine::JobSubmitted{engine_id, std::move(job)});
        continue;
      }
      auto start_us = Member(event, "start_us", Json::value_t::number_integer);
      auto placement_text = Member(event, "placement", Json::value_t::string);
      if (!start_us || !placement_text) {
        return MakeError(ErrorCode::kInvalidArgument, "a restore lacks its start or placement");
      }
      auto placement = PlacementFromJson((*placement_text)->get<std::string>());
      if (!placement) return tl::unexpected(placement.error());
      auto tasks = AllocationsOn(*cluster_, *placement);
      bool fits = tasks && job.AllowsWidth(tasks->size());
      for (size_t t = 0; fits && t < tasks->size(); ++t) {
        for (DeviceId device : (*tasks)[t].devices) {
          restored_milli[device.value()] += (*tasks)[t].milli_per_device;
          fits = fits && (*tasks)[t].milli_per_device <= 1000 &&
                 restored_milli[device.value()] <= 1000;
        }
      }
      if (!fits) {
        return MakeError(ErrorCode::kInvalidArgument, "job {}'s placement does not fit the cluster",
                         id.get<uint64_t>());
      }
      const std::optional<TimeUs> interval_us = OptionalInterval(event);
      if (!interval_us) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a restore's 'checkpoint_interval_us': expected a positive number of "
                         "microseconds");
      }
      const JobId engine_id = NewEngineId(id.get<uint64_t>());
      new_in_step.insert(engine_id.value());
      inputs.push_back(engine::JobRestored{engine_id, std::move(job), std::move(*tasks),
                                           (*start_us)->get<TimeUs>(), *interval_us});
    } else if (event.contains("finish")) {
      auto id = known(event["finish"], JobState::kRunning);
      if (!id) return tl::unexpected(id.error());
      // Logs written before "failed" was recorded read as completed (the engine treats both alike).
      const auto failed = event.find("failed");
      inputs.push_back(engine::JobFinished{*id, failed != event.end() && *failed == true});
    } else if (event.contains("cancel")) {
      auto id = known(event["cancel"], JobState::kRunning);
      if (!id) id = known(event["cancel"], JobState::kPending);
      if (!id) return tl::unexpected(id.error());
      inputs.push_back(engine::JobCancelled{*id});
    } else if (event.contains("interrupt")) {
      auto id = known(event["interrupt"], JobState::kRunning);
      if (!id) return tl::unexpected(id.error());
      NodeId node;
      if (event.contains("node")) {
        const model::Node* where = event["node"].is_string()
                                       ? cluster_->FindNode(event["node"].get<std::string>())
                                       : nullptr;
        if (where == nullptr) {
          return MakeError(ErrorCode::kInvalidArgument,
                           "an interrupt names no node of the cluster");
        }
        node = where->id;
      }
      inputs.push_back(engine::JobInterrupted{*id, node});
    } else if (event.contains("hold")) {
      auto id = known(event["hold"], JobState::kPending);
      auto held = Member(event, "held", Json::value_t::boolean);
      if (!id || !held)
        return MakeError(ErrorCode::kInvalidArgument, "a hold names no pending job");
      std::string reason;
      if ((*held)->get<bool>()) {
        auto why = Member(event, "reason", Json::value_t::string);
        if (!why || (*why)->get<std::string>().empty()) {
          return MakeError(ErrorCode::kInvalidArgument, "a hold says not why");
        }
        reason = (*why)->get<std::string>();
      }
      inputs.push_back(engine::JobHeld{*id, (*held)->get<bool>(), std::move(reason)});
    } else if (event.contains("drain")) {
      const model::Node* node = event["drain"].is_string()
                                    ? cluster_->FindNode(event["drain"].get<std::string>())
                                    : nullptr;
      auto drained = Member(event, "drained", Json::value_t::boolean);
      if (node == nullptr || !drained) {
        return MakeError(ErrorCode::kInvalidArgument, "a drain names no node of the cluster");
      }
      inputs.push_back(engine::NodeDrained{node->id, (*drained)->get<bool>()});
    } else if (event.contains("withdraw")) {
      const model::Node* node = event["withdraw"].is_string()
                                    ? cluster_->FindNode(event["withdraw"].get<std::string>())
                                    : nullptr;
      auto withdrawn = Member(event, "withdrawn", Json::value_t::boolean);
      auto index = Member(event, "device", Json::value_t::number_unsigned);
      std::optional<DeviceId> device;
      for (uint32_t d = node == nullptr ? 0 : node->first_device;
           node != nullptr && index && d < node->first_device + node->device_count; ++d) {
        if (cluster_->devices()[d].index_on_node == (*index)->get<uint64_t>()) device = DeviceId(d);
      }
      if (!device || !withdrawn) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a withdrawal names no device of the cluster: {}",
                         event.dump().substr(0, 80));
      }
      const std::optional<bool> degraded = OptionalFlag(event, "degraded");
      if (!degraded) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a withdrawal's 'degraded': expected true or false: {}",
                         event.dump().substr(0, 80));
      }
      inputs.push_back(engine::DeviceWithdrawn{*device, (*withdrawn)->get<bool>(), *degraded});
    } else {
      return MakeError(ErrorCode::kInvalidArgument, "an event of no known kind: {}",
                       event.dump().substr(0, 80));
    }
  }
  last_step_us_ = record.time_us;
  ++steps_;
  events_ += inputs.size();
  return Run(inputs, **recorded, record, record.time_us);
}

tl::expected<void, Error> EngineReplay::Run(std::vector<engine::Event>& inputs,
                                            const Json& recorded, const EngineLogRecord& record,
                                            TimeUs time_us) {
  if (mode_ == ReplayMode::kCheck) {
    Compare(record, recorded, engine_->Step(inputs, time_us));
    return {};
  }
  auto decisions = Recorded(recorded);
  if (!decisions) return tl::unexpected(decisions.error());
  decisions_ += recorded.size();
  if (std::string bad = engine_->Follow(inputs, *decisions, time_us); !bad.empty()) {
    return MakeError(ErrorCode::kInvalidArgument, "its decisions do not apply: {}", bad);
  }
  return {};
}

Result<engine::Decisions> EngineReplay::Recorded(const Json& recorded) const {
  engine::Decisions decisions;
  const auto engine_id = [&](const Json& id) -> std::optional<JobId> {
    return id.is_number_unsigned() ? EngineIdOf(id.get<uint64_t>()) : std::nullopt;
  };
  for (const Json& decision : recorded) {
    if (decision.is_object() && decision.contains("preempt")) {
      const auto job = engine_id(decision["preempt"]);
      const auto by = engine_id(decision.value("by", Json()));
      engine::PreemptJob preemption;
      for (const auto& [key, slot] :
           {std::pair{"checkpoint_interval_us", &preemption.checkpoint_interval_us},
            std::pair{"lost_us", &preemption.lost_us},
            std::pair{"restart_us", &preemption.restart_us}}) {
        auto value = Member(decision, key, Json::value_t::number_integer);
        if (!value || (*value)->get<TimeUs>() < 0) {
          return MakeError(ErrorCode::kInvalidArgument, "a preemption lacks its {}", key);
        }
        *slot = (*value)->get<TimeUs>();
      }
      if (!job || !by) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "a preemption names no job of this engine as its victim or preemptor");
      }
      preemption.job = *job;
      preemption.preemptor = *by;
      decisions.preemptions.push_back(preemption);
      continue;
    }
    const bool move = decision.is_object() && decision.contains("move");
    const bool cap = decision.is_object() && decision.contains("cap");
    if (!decision.is_object() || (!move && !cap && !decision.contains("start"))) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "a decision is neither a start, a move, a cap nor a preemption");
    }
    const Json& id = decision[move ? "move" : cap ? "cap" : "start"];
    const auto job = engine_id(id);
    auto placement_text = Member(decision, "placement", Json::value_t::string);
    if (!job || !placement_text) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "a decision names no job of this engine, or lacks its placement");
    }
    auto placement = PlacementFromJson((*placement_text)->get<std::string>());
    if (!placement) return tl::unexpected(placement.error());
    auto tasks = AllocationsOn(*cluster_, *placement);
    if (!tasks) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "job {}'s placement names a node or device the cluster lacks",
                       id.get<uint64_t>());
    }
    if (cap) {
      decisions.caps.push_back(engine::CapJob{.job = *job, .tasks = std::move(*tasks)});
      continue;
    }
    if (!move) {
      const std::optional<TimeUs> interval_us = OptionalInterval(decision);
      if (!interval_us) {
        return MakeError(ErrorCode::kInvalidArgument,
                         "job {}'s start: 'checkpoint_interval_us': expected a positive number of "
                         "microseconds",
                         id.get<uint64_t>());
      }
      decisions.starts.push_back(engine::StartJob{*job, std::move(*tasks), *interval_us});
      continue;
    }
    auto pause_us = Member(decision, "pause_us", Json::value_t::number_integer);
    if (!pause_us || (*pause_us)->get<TimeUs>() < 0) {
      return MakeError(ErrorCode::kInvalidArgument, "job {}'s move lacks its pause",
                       id.get<uint64_t>());
    }
    decisions.migrations.push_back(engine::MigrateJob{
        .job = *job, .tasks = std::move(*tasks), .pause_us = (*pause_us)->get<TimeUs>()});
  }
  return decisions;
}

void EngineReplay::Compare(const EngineLogRecord& record, const Json& recorded,
                           const engine::Decisions& decisions) {
  const Json replayed = DecisionsJson(decisions, *cluster_, daemon_of_engine_);
  decisions_ += replayed.size();
  if (replayed == recorded) return;
  ++mismatch_count_;
  if (mismatches_.size() < kMismatchesKept) {
    mismatches_.push_back(ReplayMismatch{.seq = record.seq,
                                         .time_us = record.time_us,
                                         .recorded = recorded.dump(),
                                         .replayed = replayed.dump()});
  }
}

}  // namespace headroom::control
