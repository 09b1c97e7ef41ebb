// ReadCanonicalJobSpec, the store's fast reader: it reads every canonical text to the spec that
// ParseJobSpec reads, and declines (nullopt) everything else — other shapes, duplicated keys,
// escapes the writer never writes, values ParseJobSpec refuses — so that ParseJobSpec reads or
// explains those.
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "control/job_spec.h"

namespace headroom::control {
namespace {

// A spec as the API could accept it: every field exercised, names and text with tabs, quotes,
// backslashes and non-ASCII letters.
rc::Gen<JobSpec> ArbitrarySpec() {
  return rc::gen::exec([] {
    const auto text = [](bool allow_empty) {
      const std::vector<std::string> pieces = {"a", "Z9", "\t", "\"", "\\", "é", "日本", " ", "-"};
      const int count = *rc::gen::inRange(allow_empty ? 0 : 1, 6);
      std::string out;
      for (int i = 0; i < count; ++i) out += *rc::gen::elementOf(pieces);
      return out;
    };
    JobSpec spec;
    spec.kind = *rc::gen::element(JobKind::kJob, JobKind::kService);
    if (*rc::gen::arbitrary<bool>()) spec.name = text(false);
    if (*rc::gen::arbitrary<bool>()) spec.tenant = text(false);
    spec.priority = *rc::gen::inRange(-1'000'000, 1'000'001);
    if (spec.kind == JobKind::kJob) {
      spec.tasks = *rc::gen::inRange<uint32_t>(1, kMaxTasks + 1);
      if (spec.tasks > 1 && *rc::gen::arbitrary<bool>()) {
        spec.task_step = *rc::gen::inRange<uint32_t>(1, spec.tasks);
        const uint32_t steps =
            *rc::gen::inRange<uint32_t>(1, (spec.tasks - 1) / spec.task_step + 1);
        spec.min_tasks = spec.tasks - steps * spec.task_step;
      }
    } else {
      spec.replicas = *rc::gen::inRange<uint32_t>(0, kMaxReplicas + 1);
    }
    spec.time_limit_us = *rc::gen::inRange<int64_t>(1, 366LL * 86400 + 1) * kUsPerSecond;
    if (*rc::gen::arbitrary<bool>()) {
      spec.runtime_us = *rc::gen::inRange<int64_t>(1, 86400) * kUsPerSecond;
    }
    if (*rc::gen::arbitrary<bool>()) {
      spec.checkpoint_interval_us = *rc::gen::inRange<int64_t>(1, 86400) * kUsPerSecond;
    }
    if (*rc::gen::arbitrary<bool>()) {
      spec.checkpoint_cost_us = *rc::gen::inRange<int64_t>(1, 3600) * kUsPerSecond;
    }
    const int args = *rc::gen::inRange(0, 4);
    for (int i = 0; i < args; ++i) spec.command.push_back(text(true));
    const int vars = *rc::gen::inRange(0, 4);
    for (int i = 0; i < vars; ++i) spec.env.emplace_back("V_" + std::to_string(i), text(true));
    spec.cpu_milli = *rc::gen::inRange<int64_t>(0, 1'000'000);
    spec.memory_mib = *rc::gen::inRange<int64_t>(0, 1 << 24);
    if (*rc::gen::arbitrary<bool>()) {
      spec.devices = *rc::gen::inRange<uint32_t>(1, kMaxDevicesPerTask + 1);
      if (*rc::gen::arbitrary<bool>()) spec.request_name = text(false);
      if (spec.devices == 1 && *rc::gen::arbitrary<bool>()) {
        spec.share_milli = *rc::gen::inRange<uint32_t>(1, 1000);
      }
      if (*rc::gen::arbitrary<bool>()) {
        spec.selector = *model::Selector::Parse(*rc::gen::element<std::string>(
            "model == \"H100\"", "memory_gib >= 80", "model == \"A100\" && memory_gib >= 40"));
      }
      spec.accept_degraded = *rc::gen::arbitrary<bool>();
    }
    const auto level = [] { return *rc::gen::element<std::string>("", "rack", "nvlink", "pod-1"); };
    spec.required_topology_level = level();
    spec.preferred_topology_level = level();
    return spec;
  });
}

RC_GTEST_PROP(ControlJobSpecJson, ReadsEveryCanonicalTextAsParseJobSpecDoes, ()) {
  const JobSpec spec = *ArbitrarySpec();
  const std::string json = JobSpecToJson(spec);
  auto slow = ParseJobSpec(json);
  RC_ASSERT(slow.has_value());
  auto fast = ReadCanonicalJobSpec(json);
  RC_ASSERT(fast.has_value());
  RC_ASSERT(*fast == *slow);
  RC_ASSERT(*fast == spec);
}

std::string Canonical() {
  JobSpec spec;
  spec.name = "train";
  spec.tasks = 7;
  spec.min_tasks = 1;
  spec.task_step = 2;
  spec.time_limit_us = 3600 * kUsPerSecond;
  spec.command = {"python", "train.py"};
  spec.env = {{"B", "1"}, {"A", "2"}};  // Document order, not sorted.
  spec.devices = 1;
  spec.share_milli = 500;
  spec.selector = *model::Selector::Parse("model == \"H100\"");
  return JobSpecToJson(spec);
}

std::string Replace(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in " << text;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

TEST(ControlJobSpecJson, KeepsEnvInDocumentOrder) {
  auto fast = ReadCanonicalJobSpec(Canonical());
  ASSERT_TRUE(fast.has_value()) << Canonical();
  ASSERT_EQ(fast->env.size(), 2u);
  EXPECT_EQ(fast->env[0].first, "B");
  EXPECT_EQ(fast->env[1].first, "A");
}

// Each of these is declined, and ParseJobSpec then decides: some it reads (other shapes of a
// valid spec), some it refuses with a message.
TEST(ControlJobSpecJson, DeclinesWhatIsNotCanonical) {
  const std::string canonical = Canonical();
  ASSERT_TRUE(ReadCanonicalJobSpec(canonical).has_value());
  const std::vector<std::string> declined = {
      Replace(canonical, "\"priority\":0", "\"priority\":0,\"priority\":5"),  // Key twice.
      Replace(canonical, "\"priority\":0", "\"priority\":\"0\""),             // A string.
      Replace(canonical, "\"priority\":0", "\"priority\":0.0"),               // A float.
      Replace(canonical, "\"priority\":0", "\"priority\":null"),
      Replace(canonical, "\"priority\":0,", ""),  // The writer always writes it.
      Replace(canonical, "\"tasks\":7", "\"tasks\":7,\"replicas\":1"),
      Replace(canonical, "\"tasks\":7", "\"tasks\":0"),
      Replace(canonical, "\"minTasks\":1", "\"minTasks\":7"),  // Not below the full width.
      Replace(canonical, "\"minTasks\":1", "\"minTasks\":0"),
      Replace(canonical, "\"step\":2", "\"step\":4"),  // Does not divide 7 - 1.
      Replace(canonical, "\"minTasks\":1,", ""),
      Replace(canonical, "\"kind\":\"Job\"", "\"kind\":\"Service\""),  // Elastic, tasks.
      Replace(canonical, "\"timeLimit\":3600", "\"timeLimit\":\"1h\""),
      Replace(canonical, "\"timeLimit\":3600", "\"timeLimit\":-1"),
      Replace(canonical, "\"train\"", "\"tr\\u0061in\""),  // An escape the writer never writes.
      Replace(canonical, "\"train\"", "\"tr\\/ain\""),
      Replace(canonical, "\"train\"", "\"\""),            // Not a valid name.
      Replace(canonical, "\"train\"", "\"a\\u001bb\""),   // ESC in a name.
      Replace(canonical, "\"python\"", "\"py\\nthon\""),  // A control character.
      Replace(canonical, "\"B\":\"1\"", "\"1B\":\"1\""),  // Not an env name.
      Replace(canonical, "\"B\":\"1\"", "\"A\":\"1\""),   // An env name twice.
      Replace(canonical, "\"share\":500", "\"share\":1000"),
      Replace(canonical, "\"share\":500", "\"share\":500,\"extra\":1"),  // Unknown member.
      Replace(canonical, "\"count\":1", "\"count\":2"),                  // A share needs count 1.
      Replace(canonical, "\"deviceClassName\":\"gpu\"", "\"deviceClassName\":\"tpu\""),
      Replace(canonical, "model == \\\"H100\\\"", "  model == \\\"H100\\\""),  // Not trimmed.
      Replace(canonical, "model == \\\"H100\\\"", "model ==="),                // Does not parse.
      Replace(canonical, "\"cpu\":\"0m\"", "\"cpu\":0"),
      Replace(canonical, "\"memory\":\"0Mi\"", "\"memory\":\"0MB\""),
      Replace(canonical, "\"kind\":\"Job\"", "\"kind\":\"Pod\""),
      Replace(canonical, "\"apiVersion\":\"headroom/v1\"", "\"apiVersion\":\"v2\""),
      Replace(canonical, "\"metadata\":{\"name\":\"train\"}", "\"metadata\":{}"),
      canonical + " {}",                                                    // Trailing content.
      "[" + canonical + "]",                                                // Not an object.
      canonical.substr(0, canonical.size() - 1),                            // Cut short.
      Replace(canonical, "[\"python\"", "[[[[[[[[[[\"python\"]]]]]]]]]]"),  // Deep.
      "apiVersion: headroom/v1\nkind: Job\nspec: {timeLimit: 1h}\n",        // YAML.
      // Blank space between tokens: the writer writes none, and YAML reads a lone carriage
      // return as a line break where JSON reads it as a blank (found by the fuzzer).
      Replace(canonical, "\"requests\":[", "\"requests\":\r["),
      canonical + "\n",
  };
  for (const std::string& text : declined) {
    EXPECT_FALSE(ReadCanonicalJobSpec(text).has_value()) << text;
  }
}

// Where a store holds a spec written another way, the cache still reads it (through
// ParseJobSpec) and still names what is wrong with a bad one.
TEST(ControlJobSpecJson, CacheFallsBackToParseJobSpec) {
  JobSpecCache cache;
  auto yaml = cache.Parse("kind: Job\nspec: {timeLimit: 1h, command: [\"a\"]}\n", "store job 1");
  ASSERT_TRUE(yaml.has_value()) << yaml.error().message;
  EXPECT_EQ(yaml->time_limit_us, 3600 * kUsPerSecond);
  auto bad = cache.Parse(Replace(Canonical(), "\"tasks\":7", "\"tasks\":0"), "store job 2");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("store job 2:1: field 'spec.tasks'"), std::string::npos)
      << bad.error().message;
  auto canonical = cache.Parse(Canonical(), "store job 3");
  ASSERT_TRUE(canonical.has_value());
  EXPECT_EQ(canonical->name, "train");
}

}  // namespace
}  // namespace headroom::control
