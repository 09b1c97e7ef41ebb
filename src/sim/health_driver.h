// HealthDriver: the simulator's side of device health (issue 14). It runs the failure model's
// faults and repairs (failure_model.h) against the engine's floor, and the policy's readiness
// checks where jobs start (engine/policy_config.h ReadinessConfig):
//  - a fault on a node where something runs, or one that is not latent, is detected at once:
//    the node is drained until its repair and the jobs on it are returned to be interrupted;
//  - a latent fault on an idle node stays hidden: the next job started there fails
//    `latent_fail_after_s` into its work, unless a readiness check before its work catches it
//    (then the job is interrupted when the check ends, having lost only the check);
//  - a node checked and passed stays verified for `verified_for_us`; a repaired node is checked
//    again before its next job;
//  - a latent fault of a fabric class (FaultClass::fabric) is missed by the node's check and
//    never met by work on that node alone: only a job on several nodes fails on it, unless the
//    policy's check across a gang's nodes (`gang_check_us`, at each start of such a job, after
//    the node checks) finds it first (with the same probability).
//  - a warned fault (FailureModel::warned_share) ends the work on its node warning_lead_s after
//    it begins; false warnings come with no fault. Under the policy's recovery.evacuate a
//    warning makes the node suspect: its devices are withdrawn (the engine moves its work off
//    them), and once no work is left there it is diagnosed for `diagnostics_us`, which find the
//    fault with the checks' probability (its repair begins) or return the node to work. Without
//    diagnostics a suspect node stays out until its fault shows, or for an hour after a false
//    warning (as headroomd's suspect_clear).
// Promises: a drained node is a detected one and is drained exactly until its repair; a job is
// returned for interruption only while the attempt that met the fault is still running; a
// suspect node's devices are withdrawn exactly while it is suspect.
// Threading: one per simulation.
#pragma once

#include <cstdint>
#include <queue>
#include <set>
#include <unordered_map>
#include <vector>

#include "base/rng.h"
#include "engine/engine.h"
#include "sim/failure_model.h"

namespace headroom::sim {

class HealthDriver {
 public:
  // `model` must outlive the driver.
  // `evacuate`: the policy's recovery.evacuate, which acts on warnings.
  HealthDriver(const FailureModel& model, const engine::ReadinessConfig& readiness, bool evacuate,
               const model::Cluster& cluster, TimeUs origin_us);

  // The next fault, repair or check outcome; kNever when none is to come.
  TimeUs NextUs() const;
  // The earliest repair of a node out of service; kNever when none is.
  TimeUs NextRepairUs() const { return faults_.NextRepairUs(); }
  // Applies what is due at `now_us`: drains and undrains go to `events`; returns the running
  // jobs whose attempts a detected fault ended (each once, in id order), each with the node
  // whose fault ended it (none for a job whose readiness check found the fault first).
  struct Interruption {
    JobId job;
    NodeId node;
  };
  std::vector<Interruption> Step(TimeUs now_us, const engine::Engine& engine, uint32_t job_ids,
                                 std::vector<engine::Event>& events);
  // A job starts on `tasks`: checks the nodes not verified lately and notes the latent faults
  // it meets. Returns how long its work waits for the checks (0 without).
  TimeUs Admit(JobId job, const std::vector<engine::TaskAllocation>& tasks, TimeUs now_us);
  // A running job moved: what its old attempt met no longer concerns it.
  void Moved(JobId job) { ++attempt_[job.value()]; }
  // Starts the diagnostics of suspect nodes that no work uses any more; call after each engine
  // step, with the engine's books.
  void DiagnoseIdle(TimeUs now_us, const engine::ClusterState& state);

  const FaultProcess& faults() const { return faults_; }
  uint64_t jobs_started_on_faulty() const { return jobs_started_on_faulty_; }
  uint64_t checks() const { return checks_; }
  uint64_t checks_failed() const { return checks_failed_; }
  uint64_t gang_checks() const { return gang_checks_; }
  double check_device_us() const { return check_device_us_; }
  uint64_t warnings() const { return warnings_; }              // Of faults to come.
  uint64_t false_warnings() const { return false_warnings_; }  // Of none.
  uint64_t diagnoses() const { return diagnoses_; }
  uint64_t diagnoses_found() const { return diagnoses_found_; }

 private:
  // A latent fault found by a check ending, or showing in a job's work.
  struct Found {
    TimeUs at_us;
    uint64_t sequence;
    uint32_t job;
    uint32_t attempt;
    NodeId node;
    friend bool operator>(const Found& a, const Found& b) {
      return a.at_us != b.at_us ? a.at_us > b.at_us : a.sequence > b.sequence;
    }
  };
  // A faulty node not yet found is found: its repair begins and it is drained.
  void Detect(NodeId node, TimeUs now_us, std::vector<engine::Event>& events);
  // A warned fault ending work, a suspect node's diagnostics done, a false warning cleared.
  enum class Timed : uint8_t { kFire, kDiagnosed, kClear };
  struct Due {
    TimeUs at_us;
    uint64_t sequence;
    uint32_t node;
    Timed what;
    friend bool operator>(const Due& a, const Due& b) {
      return a.at_us != b.at_us ? a.at_us > b.at_us : a.sequence > b.sequence;
    }
  };
  enum class Suspect : uint8_t { kNone, kWaiting, kDiagnosing };
  // Warning signs on `node`: suspect under the policy, its devices withdrawn.
  void Warn(NodeId node, TimeUs now_us, std::vector<engine::Event>& events);
  // A suspect node is suspect no more: its devices return.
  void Clear(NodeId node, std::vector<engine::Event>& events);
  // Every device of `node` withdrawn from work, or returned.
  void WithdrawDevices(NodeId node, bool withdrawn, std::vector<engine::Event>& events) const;
  void ScheduleFalseWarning(TimeUs from_us);

  const FailureModel* model_;
  engine::ReadinessConfig readiness_;
  const model::Cluster* cluster_;
  FaultProcess faults_;
  Rng check_rng_;
  std::vector<TimeUs> verified_us_;  // Per node: its last passed check; -1: none since repair.
  std::unordered_map<uint32_t, uint32_t> attempt_;  // Per job: starts and moves so far.
  std::priority_queue<Found, std::vector<Found>, std::greater<>> found_;
  uint64_t sequence_ = 0;
  uint64_t jobs_started_on_faulty_ = 0;
  uint64_t checks_ = 0;
  uint64_t checks_failed_ = 0;
  uint64_t gang_checks_ = 0;
  double check_device_us_ = 0;
  bool evacuate_ = false;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> due_;
  std::vector<TimeUs> fires_us_;  // Per node: when its warned fault ends work; -1: none.
  std::vector<Suspect> suspect_;
  std::set<uint32_t> waiting_;  // Suspect nodes waiting for their work to leave.
  Rng false_warning_rng_;
  double false_warning_gap_s_ = 0;  // Mean, across the building; 0: none.
  TimeUs next_false_warning_us_ = kNever;
  uint64_t warnings_ = 0;
  uint64_t false_warnings_ = 0;
  uint64_t diagnoses_ = 0;
  uint64_t diagnoses_found_ = 0;
};

}  // namespace headroom::sim
