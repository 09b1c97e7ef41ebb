// The failure model: the faults that take a simulated building's nodes out of service and the
// repairs that bring them back (issue "device health", PHYSICS.md §4.5 and §5.5).
//
// Rate: each node fails as a Poisson process of `node_failures_per_day` per 8 devices (a node of
// 4 devices fails half as often; a node without devices never), only while it is in service; by
// default Llama 3's 419 unexpected interruptions of a 16,384-GPU job in 54 days, 3.8e-3 per
// 8-GPU node-day. Classes and repairs: each fault's class is drawn in proportion to how often the
// catalogue saw it, and its repair time (the node out of service) from the repair times the
// catalogue saw for that class, so a GPU fault is repaired as StepFun's GPU faults were.
//
// Latent faults: a share of faults (`latent_share`) show no sign while nothing runs on the
// node. The simulator keeps such a fault on an idle node latent: the node looks healthy until a
// job started there fails `latent_fail_after_s` later, or a readiness check before the job's
// work catches it (with probability `check_catches`). Its repair starts when it is detected.
// These three are assumptions, not measurements (PHYSICS.md gives no share or catch rate). A
// latent fault of a fabric class (FaultClass::fabric) shows only to a job on several nodes and
// only a check across them finds it (health_driver.h).
//
// Warned faults (`warned_share`): such a fault begins as a latent one that telemetry shows, and
// ends the work on its node `warning_lead_s` later (health_driver.h); never latent_if_idle.
//
// Promises: a node's faults depend only on the seed, the node's index and its device count,
// never on what the simulator does in between, so every policy of one run meets the same
// faults (when they are detected is the policy's doing); a node is never faulty twice at once;
// repairs take at least one second.
// Threading: a FaultProcess belongs to one simulation.
#pragma once

#include <cstdint>
#include <queue>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "base/ids.h"
#include "base/result.h"
#include "base/rng.h"
#include "base/time.h"
#include "model/cluster.h"
#include "sim/traces/stepfun_faults.h"

namespace headroom::sim {

// Rates per node-day are per this many devices (a node of 4 devices fails half as often).
inline constexpr double kDevicesPerRateNode = 8;
inline constexpr double kSecondsPerDay = 86400;

struct FaultClass {
  std::string name;              // As the catalogue names it, e.g. "GPU".
  std::string level;             // e.g. "Hardware Failure" (the first seen for the class).
  uint32_t seen = 0;             // Faults of this class in the catalogue: its weight.
  std::vector<double> repair_s;  // Observed repair times, ascending.
  // A fault of the node's links to other nodes (StepFun's "Parameter Plane Cable" link downs
  // and "NIC" faults): a node's own readiness check (DCGM level 1 tests no network) misses it
  // latent, a work on that node alone never meets it, and a communication check across a
  // gang's nodes can find it.
  bool fabric = false;
};

// Whether StepFun's catalogue class `name` is a fault of the links between nodes.
bool FabricFaultClass(std::string_view name);

struct FailureModel {
  double node_failures_per_day = 3.8e-3;  // Per 8 devices.
  double latent_share = 0;                // Of faults, those latent on an idle node.
  double latent_fail_after_s = 600;       // A job on a latently faulty node fails this late.
  double check_catches = 0.8;             // Share of latent faults a readiness check finds.
  // Warning signs: a share of faults shows in telemetry (corrected errors climbing, rows
  // remapped, XID 63/92/94: a suspect device) `warning_lead_s` before it ends the work on the
  // node; meanwhile checks and diagnostics can find it. False warnings, followed by no fault,
  // come at `false_warnings_per_day` per 8 devices. Assumptions, like the latent share.
  double warned_share = 0;
  double warning_lead_s = 3600;
  double false_warnings_per_day = 0;
  std::vector<FaultClass> classes;  // Empty: no faults.
  uint64_t seed = 1;
  std::string source;  // Where the catalogue came from, for reports.
};

// The catalogue of a fault trace: one class per fault_class, by how often it was seen, then name.
FailureModel FailureModelOf(const FaultTrace& trace);

// A failure model from FORMAT:PATH, as `headroom sim --failures` takes it: stepfun:PATH, a
// StepFun fault trace (fault_trace.json) as the catalogue, at the default rate. An error names
// what is wrong with the spec or the file.
Result<FailureModel> LoadFailureModel(const std::string& spec);

// A fault or a repair, in time order.
struct NodeChange {
  TimeUs at_us = 0;
  NodeId node;
  bool down = false;            // A fault begins; else its repair ends.
  bool latent_if_idle = false;  // A fault that stays latent while nothing runs on the node.
  uint32_t fault_class;         // Index into FailureModel::classes.
  bool warned = false;          // A fault that warns warning_lead_s before it ends work.
};

class FaultProcess {
 public:
  // Faults begin after `origin_us`. `model` must outlive the process.
  FaultProcess(const FailureModel& model, const model::Cluster& cluster, TimeUs origin_us);

  // The next fault or repair; kNever when no node can fail.
  TimeUs NextUs() const { return next_.empty() ? kNever : next_.top().at_us; }
  // The earliest repair of a node that is down now; kNever when none is.
  TimeUs NextRepairUs() const;
  // The faults and repairs due at `now_us` (NextUs() <= now_us), in time then node order. A
  // faulty node is repaired only once Detect has been called for it.
  std::vector<NodeChange> PopDue(TimeUs now_us);
  // The fault of a faulty node, not yet detected, is found at `at_us`: its repair begins.
  void Detect(NodeId node, TimeUs at_us);

  // Faulty: a fault began and its repair has not ended (detected or not). Down: detected and in
  // repair, out of service.
  bool faulty(NodeId node) const { return nodes_[node.value()].faulty; }
  bool down(NodeId node) const { return nodes_[node.value()].down; }
  // Whether the faulty node's fault is of a fabric class (FaultClass::fabric).
  bool fabric(NodeId node) const {
    const NodeProcess& process = nodes_[node.value()];
    return process.faulty && model_->classes[process.fault_class].fabric;
  }
  uint64_t down_devices() const { return down_devices_; }
  uint64_t faults() const { return faults_; }
  const std::vector<uint64_t>& faults_by_class() const { return faults_by_class_; }
  // Seconds of repair of every fault begun so far.
  double repair_s_total() const { return repair_s_total_; }

 private:
  struct NodeProcess {
    Rng rng;
    Rng warning_rng;        // Apart, so that warnings change no other draw of a seed.
    double mean_gap_s = 0;  // Between faults while in service; 0: never fails.
    uint32_t devices = 0;
    bool faulty = false;
    bool down = false;
    uint32_t fault_class = 0;
    TimeUs repair_us = 0;  // Its fault's repair time, from detection.
  };
  struct Due {
    TimeUs at_us;
    uint32_t node;
    friend bool operator>(const Due& a, const Due& b) {
      return a.at_us != b.at_us ? a.at_us > b.at_us : a.node > b.node;
    }
  };
  void ScheduleFault(uint32_t node, TimeUs from_us);

  const FailureModel* model_;
  double total_seen_ = 0;
  std::vector<NodeProcess> nodes_;
  std::priority_queue<Due, std::vector<Due>, std::greater<>> next_;
  std::multiset<TimeUs> repairs_;  // Of the nodes down now.
  uint64_t down_devices_ = 0;
  uint64_t faults_ = 0;
  std::vector<uint64_t> faults_by_class_;
  double repair_s_total_ = 0;
};

}  // namespace headroom::sim
