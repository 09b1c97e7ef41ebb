// Tests for the StepFun fault trace loader: the published file loads with its README's counts,
// starts pair with their repairs by node and fault, and malformed events are errors naming the
// file, the event and the field.
#include "sim/traces/stepfun_faults.h"

#include <map>
#include <string>

#include <gtest/gtest.h>

#include "testing/traces.h"

namespace headroom::sim {
namespace {

using ::headroom::testing::TracePath;

std::string Event(const std::string& node, double days, const std::string& type,
                  const std::string& fault_class = "GPU") {
  return "{\"node_id\": \"" + node + "\", \"event_time\": " + std::to_string(days) +
         ", \"event_type\": \"" + type +
         "\", \"fault_type\": {\"Level\": \"Hardware Failure\", \"Class\": \"" + fault_class +
         "\", \"Desc\": \"d\"}}";
}

TEST(StepfunFaults, ThePublishedTraceLoadsWithItsReadmeCounts) {
  const std::string path = TracePath("stepfun-infinitehbd-faults/fault_trace.json");
  HEADROOM_SKIP_IF_MISSING(path);
  auto trace = LoadStepfunFaults(path);
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  EXPECT_EQ(trace->faults.size(), 584u);
  EXPECT_EQ(trace->nodes, 231u);
  EXPECT_NEAR(trace->span_days, 348, 1);
  EXPECT_DOUBLE_EQ(trace->faults.front().start_days, 3.8955);
  std::map<std::string, int> by_class;
  for (const NodeFault& fault : trace->faults) {
    ++by_class[fault.fault_class];
    EXPECT_GE(fault.end_days, fault.start_days);
  }
  EXPECT_EQ(by_class["GPU"], 158);
  EXPECT_EQ(by_class["Unknown Error"], 144);
  EXPECT_EQ(by_class["Stress Test Failure"], 97);
  EXPECT_EQ(by_class["Power Supply"], 26);
}

TEST(StepfunFaults, StartsPairWithTheFirstLaterRepairOfTheSameNodeAndFault) {
  const std::string text = "[" + Event("a", 2, "fault_end") + "," + Event("a", 1, "fault_start") +
                           "," + Event("b", 1.5, "fault_start", "NIC") + "," +
                           Event("a", 3, "fault_start") + "," + Event("a", 4, "fault_end") + "," +
                           Event("b", 5, "fault_end", "NIC") + "]";
  auto trace = ParseStepfunFaults(text, "t.json");
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  ASSERT_EQ(trace->faults.size(), 3u);
  EXPECT_EQ(trace->faults[0].node, "a");
  EXPECT_DOUBLE_EQ(trace->faults[0].end_days, 2);  // Sorted by time, not file order.
  EXPECT_EQ(trace->faults[1].fault_class, "NIC");
  EXPECT_DOUBLE_EQ(trace->faults[1].end_days, 5);
  EXPECT_EQ(trace->faults[1].level, "Hardware Failure");
  EXPECT_DOUBLE_EQ(trace->faults[2].start_days, 3);
  EXPECT_DOUBLE_EQ(trace->faults[2].end_days, 4);
  EXPECT_EQ(trace->nodes, 2u);
  EXPECT_DOUBLE_EQ(trace->span_days, 5);
}

TEST(StepfunFaults, AFaultStillOpenIsRepairedAtTheLastEvent) {
  const std::string text =
      "[" + Event("a", 1, "fault_start") + "," + Event("b", 7, "fault_start", "Fan") + "]";
  auto trace = ParseStepfunFaults(text, "t.json");
  ASSERT_TRUE(trace.has_value()) << trace.error().message;
  ASSERT_EQ(trace->faults.size(), 2u);
  EXPECT_DOUBLE_EQ(trace->faults[0].end_days, 7);
  EXPECT_DOUBLE_EQ(trace->faults[1].end_days, 7);
}

TEST(StepfunFaults, MalformedEventsAreErrorsNamingTheEventAndField) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"{\"node_id\": 1}", "t.json: expected a JSON array of fault events, got {\"node_id\":1}"},
      {"[1,", "t.json: expected a JSON array of fault events, got text that is not JSON"},
      {"[" + Event("a", 1, "fault_start") + ", 7]", "t.json: event 2: expected an object, got 7"},
      {"[{\"event_time\": 1}]", "t.json: event 1: field 'node_id': expected a text, got nothing"},
      {"[" + Event("a", -1, "fault_start") + "]",
       "t.json: event 1: field 'event_time': expected days from 0 to 36525, got -1.0"},
      {"[" + Event("a", 1, "fault_begin") + "]",
       "t.json: event 1: field 'event_type': expected fault_start or fault_end, got "
       "\"fault_begin\""},
      {"[{\"node_id\": \"a\", \"event_time\": 1, \"event_type\": \"fault_end\", \"fault_type\": "
       "{\"Level\": \"L\", \"Class\": \"C\"}}]",
       "t.json: event 1: field 'Desc': expected a text, got nothing"},
      {"[" + Event("a", 1, "fault_start") + "," + Event("a", 2, "fault_end", "NIC") + "]",
       "t.json: event 2: field 'event_type': expected a fault_start of this node and fault "
       "before this fault_end, got none"},
  };
  for (const Case& c : cases) {
    auto trace = ParseStepfunFaults(c.text, "t.json");
    ASSERT_FALSE(trace.has_value()) << c.text;
    EXPECT_NE(trace.error().message.find(c.expected), std::string::npos) << c.text << "\n"
                                                                         << trace.error().message;
  }
}

}  // namespace
}  // namespace headroom::sim
