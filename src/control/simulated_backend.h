// SimulatedBackend: the digital twin. Nodes are those of a cluster file, always reachable;
// a started job runs for its spec's `runtime` stretched by the simulator's speed model for its
// placement (sim/speed_model.h) and is cut at its time limit (exit code 124, "time limit");
// a job without a runtime runs until its time limit and completes there. A moved job keeps the
// work it has done at its old speed, pauses for its checkpoint and restart, and runs the rest
// at its new placement's speed; the pause counts against its time limit (as the simulator's
// migrations, sim/simulator.cc). A preempted job keeps the work up to its last checkpoint; its
// next start pauses for the restart, then runs the rest (as the simulator's preemptions). A
// job that declares its checkpoint cost pauses that long after each checkpoint interval (the
// one its start was told, else its own), as in the simulator. A capped job runs at the speed its
// devices' power model gives under the cap (model/device_power.h); a cap set while it runs keeps
// the work done and paces the rest anew, without a pause.
// Time is the loop's clock, which may be scaled (--time-scale), so a simulated hour can pass in
// a real minute. After a restart, restored jobs keep their original start, so they end when
// they would have (a moved job as if it had run on its current devices throughout).
// Threading: the live loop's thread only.
#pragma once

#include <memory>
#include <set>
#include <unordered_map>
#include <utility>

#include "control/backend.h"
#include "sim/speed_model.h"

namespace headroom::control {

class SimulatedBackend : public Backend {
 public:
  explicit SimulatedBackend(std::shared_ptr<const model::Cluster> cluster);

  std::shared_ptr<const model::Cluster> CurrentCluster() override { return cluster_; }
  void OnStart(const JobRecord& job, const std::vector<engine::TaskAllocation>& tasks,
               const model::Cluster& cluster) override;
  void OnMigrate(const JobRecord& job, const engine::MigrateJob& move, TimeUs now_us,
                 const model::Cluster& cluster) override;
  void OnPreempt(const JobRecord& job, const engine::PreemptJob& preemption,
                 TimeUs now_us) override;
  void OnCap(const JobRecord& job, const engine::CapJob& cap, TimeUs now_us,
             const model::Cluster& cluster) override;
  void OnStop(uint64_t job) override;
  BackendReport Poll(TimeUs now_us) override;
  TimeUs NextPollUs(TimeUs now_us) const override;

 private:
  struct Ending {
    TimeUs end_us = 0;
    bool timed_out = false;
    TimeUs deadline_us = 0;    // start + time limit.
    TimeUs work_start_us = 0;  // When the current placement began working (after a pause).
    double stretch = 1;        // Of the current placement.
    double remaining_us = 0;   // Work left at work_start_us, at full speed; 0: no runtime.
  };

  void Schedule(uint64_t job, Ending ending);
  // How much longer than its full-speed work the job takes on `tasks` (placement and width).
  double Stretch(const JobRecord& job, const std::vector<engine::TaskAllocation>& tasks,
                 const model::Cluster& cluster) const;

  std::shared_ptr<const model::Cluster> cluster_;
  sim::SpeedModel speed_;
  std::set<std::pair<TimeUs, uint64_t>> by_end_;
  std::unordered_map<uint64_t, Ending> endings_;
  // Preempted jobs: (full-speed work left, restart pause) for their next start.
  std::unordered_map<uint64_t, std::pair<double, TimeUs>> resumes_;
};

}  // namespace headroom::control
