// Warning signs in the simulator (FailureModel::warned_share, false_warnings_per_day) and the
// policy's recovery.evacuate: a warned fault ends the work on its node warning_lead_s after it
// shows, unless the work has moved off and diagnostics found the fault first; a false warning
// costs a move and a diagnosis and finds nothing. The engine's invariants are checked after
// every step.
#include <vector>

#include <gtest/gtest.h>

#include "engine/presets.h"
#include "sim/failure_model.h"
#include "sim/simulator.h"
#include "testing/cluster_fixtures.h"

namespace headroom::sim {
namespace {

using testing::JobOf;
using testing::TinyCluster;
using testing::WorkloadOf;

constexpr double kHour = 3600;

// Four 8-device nodes, repairs of 2 hours and a 4-hour job of one node every 6 hours: a
// healthy free node is there to move to whenever a warning comes (on this seed).
class SimulatorWarningsTest : public ::testing::Test {
 protected:
  SimulatorWarningsTest() {
    std::vector<model::Job> jobs;
    for (int i = 0; i < 200; ++i) {
      model::Job job = JobOf(1, 8, "", 0, 0, 4 * kHour, 4 * kHour, i * 6 * kHour);
      job.checkpoint_interval_us = SecondsToUs(kHour);
      jobs.push_back(std::move(job));
    }
    workload_ = WorkloadOf(jobs);
    options_.paranoid = true;
    options_.failures.classes.push_back({"GPU", "Hardware Failure", 1, {2 * kHour}});
    options_.failures.seed = 11;
    options_.failures.check_catches = 1;
    blind_ = *engine::PresetPolicy("fifo");
    evacuating_ = blind_;
    evacuating_.recovery.evacuate = true;
    evacuating_.readiness.diagnostics_us = SecondsToUs(900.0);
  }

  const model::Cluster cluster_ =
      TinyCluster().Rack("r0", {{"n0", 8}, {"n1", 8}, {"n2", 8}, {"n3", 8}}).Build();
  model::Workload workload_;
  SimOptions options_;
  engine::PolicyConfig blind_;
  engine::PolicyConfig evacuating_;
};

TEST_F(SimulatorWarningsTest, WorkMovesOffAWarnedNodeAndDiagnosticsFindTheFaultBeforeItShows) {
  options_.failures.node_failures_per_day = 0.5;
  options_.failures.warned_share = 1;
  options_.failures.warning_lead_s = 1800;

  const PolicyRun blind = Simulate(cluster_, workload_, blind_, options_);
  ASSERT_TRUE(blind.failures.has_value());
  EXPECT_GT(blind.failures->warnings, 0u);
  EXPECT_GT(blind.failures->interruptions, 0u);  // Faults ended work half an hour after warning.
  EXPECT_EQ(blind.failures->diagnoses, 0u);
  EXPECT_EQ(blind.metrics.migrations, 0u);
  EXPECT_EQ(blind.metrics.jobs_completed, 200u);

  // Each warning: the job moves off at once, the idle node is diagnosed in 15 minutes, within
  // the half hour before the fault would show, and its repair begins: no fault ends any work.
  const PolicyRun careful = Simulate(cluster_, workload_, evacuating_, options_);
  ASSERT_TRUE(careful.failures.has_value());
  EXPECT_GT(careful.failures->warnings, 0u);
  EXPECT_EQ(careful.failures->diagnoses, careful.failures->warnings);
  EXPECT_EQ(careful.failures->diagnoses_found, careful.failures->warnings);
  EXPECT_EQ(careful.failures->interruptions, 0u);
  EXPECT_EQ(careful.failures->lost_device_hours, 0);
  EXPECT_GT(careful.metrics.migrations, 0u);
  EXPECT_NEAR(careful.failures->check_device_hours,
              static_cast<double>(careful.failures->diagnoses) * 900 * 8 / kHour, 1e-6);
  EXPECT_EQ(careful.metrics.jobs_completed, 200u);
}

TEST_F(SimulatorWarningsTest, AFalseWarningCostsAMoveAndADiagnosisAndFindsNothing) {
  options_.failures.node_failures_per_day = 0;  // No fault at all.
  options_.failures.false_warnings_per_day = 0.5;

  const PolicyRun blind = Simulate(cluster_, workload_, blind_, options_);
  ASSERT_TRUE(blind.failures.has_value());
  EXPECT_GT(blind.failures->false_warnings, 0u);
  EXPECT_EQ(blind.metrics.migrations, 0u);

  const PolicyRun careful = Simulate(cluster_, workload_, evacuating_, options_);
  ASSERT_TRUE(careful.failures.has_value());
  EXPECT_GT(careful.failures->false_warnings, 0u);
  EXPECT_EQ(careful.failures->warnings, 0u);
  EXPECT_GT(careful.failures->diagnoses, 0u);
  EXPECT_EQ(careful.failures->diagnoses_found, 0u);
  EXPECT_EQ(careful.failures->interruptions, 0u);
  EXPECT_GT(careful.metrics.migrations, 0u);
  EXPECT_EQ(careful.metrics.jobs_completed, 200u);

  // Without diagnostics a warned node stays out for an hour, then returns: nothing is lost.
  evacuating_.readiness.diagnostics_us = 0;
  const PolicyRun undiagnosed = Simulate(cluster_, workload_, evacuating_, options_);
  ASSERT_TRUE(undiagnosed.failures.has_value());
  EXPECT_EQ(undiagnosed.failures->diagnoses, 0u);
  EXPECT_EQ(undiagnosed.failures->check_device_hours, 0);
  EXPECT_GT(undiagnosed.metrics.migrations, 0u);
  EXPECT_EQ(undiagnosed.metrics.jobs_completed, 200u);
}

}  // namespace
}  // namespace headroom::sim
