// QuotaTree (engine/quota.h) and queues as YAML (engine/quota_yaml.h): borrowing limits, lending
// limits (the reserve nobody else may borrow), a parent's limit over its children, the implicit
// "(unqueued)" queue, who may reclaim and who borrows, the books balancing, the messages that
// name the queue and the limit, and the parser's errors with file, line and field.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/policy_yaml.h"
#include "engine/quota.h"
#include "engine/quota_yaml.h"

namespace headroom::engine {
namespace {

constexpr int64_t kDevice = 1000;

QuotaAmounts Devices(int64_t devices) { return {devices * kDevice, 0, 0}; }

std::vector<QueueConfig> Parse(std::string_view text) {
  auto queues = ParseQueuesYaml(text, "queues.yaml");
  EXPECT_TRUE(queues.has_value()) << (queues ? "" : queues.error().message);
  return queues ? *queues : std::vector<QueueConfig>{};
}

std::string ParseError(std::string_view text) {
  auto queues = ParseQueuesYaml(text, "queues.yaml");
  EXPECT_FALSE(queues.has_value());
  return queues ? "" : queues.error().message;
}

// A 16-device cluster: research (a, b) and prod.
constexpr std::string_view kTwoTeams = R"(queues:
  - name: research
    tenants: [alice, bob]
    guaranteed: {devices: 8}
    borrowing_limit: {devices: 4}
  - name: prod
    guaranteed: {devices: 8, cpu: 64, memory_gib: 512}
    lending_limit: {devices: 2}
)";

TEST(QuotaYaml, ParsesAmountsInTheirUnitsAndLeavesLimitsUnsetWhenNotStated) {
  const std::vector<QueueConfig> queues = Parse(kTwoTeams);
  ASSERT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues[0].tenants, (std::vector<std::string>{"alice", "bob"}));
  EXPECT_EQ(queues[0].guaranteed, (QuotaAmounts{8000, 0, 0}));
  QuotaAmounts borrowing_limit = kNoQuotaLimits;
  borrowing_limit[0] = 4000;
  EXPECT_EQ(queues[0].borrowing_limit, borrowing_limit);
  EXPECT_EQ(queues[0].lending_limit, kNoQuotaLimits);
  EXPECT_EQ(queues[1].guaranteed, (QuotaAmounts{8000, 64000, 512 * 1024}));
  EXPECT_EQ(queues[1].lending_limit[0], 2000);
  EXPECT_TRUE(queues[1].stated[1]);
  EXPECT_FALSE(queues[0].stated[1]);
  EXPECT_FALSE(queues[0].share.has_value());
  EXPECT_EQ(Parse("queues:\n  - {name: a, share: 2.5}\n")[0].share, 2.5);
}

TEST(QuotaYaml, ErrorsNameTheFileLineFieldAndWhatWasExpected) {
  EXPECT_EQ(ParseError("queues:\n  - name: a\n    guaranteed: {gpus: 3}\n"),
            "queues.yaml:3: field 'queues[0].guaranteed.gpus': expected one of the keys devices, "
            "cpu, memory_gib, device_models, got unknown key \"gpus\"");
  EXPECT_NE(ParseError("queues:\n  - name: a\n    guaranteed: {devices: -1}\n")
                .find("queues.yaml:3: field 'queues[0].guaranteed.devices'"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - name: a\n    parent: b\n")
                .find("queue 'a': parent 'b' is not a queue listed before it"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: a, guaranteed: {devices: 2}, lending_limit: "
                       "{devices: 3}}\n")
                .find("a lending limit of 3 devices is above the guarantee, 2 devices"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: org, guaranteed: {devices: 4}}\n"
                       "  - {name: a, parent: org, guaranteed: {devices: 3}}\n"
                       "  - {name: b, parent: org, guaranteed: {devices: 2}}\n")
                .find("queue 'org': devices: its children are guaranteed 5 devices, more than "
                      "its own 4 devices"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: a, tenants: [x]}\n  - {name: b, tenants: [x]}\n")
                .find("tenant 'x' is in another queue too"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: a, tenants: [x]}\n  - {name: b, parent: a}\n")
                .find("parent 'a' lists tenants; only leaves may"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: a}\n  - {name: a}\n").find("queue 'a': named twice"),
            std::string::npos);
  EXPECT_NE(ParseError("queues: 3\n").find("queues.yaml:1: field 'queues'"), std::string::npos);
}

TEST(QuotaYaml, DeviceModelsHaveQuotasOfTheirOwn) {
  const std::vector<QueueConfig> queues = Parse(R"(queues:
  - name: org
    guaranteed: {devices: 24, device_models: {H100: 16, A100: 8}}
  - name: a
    parent: org
    guaranteed: {device_models: {H100: 8.5}}
    borrowing_limit: {device_models: {H100: 4}}
    lending_limit: {device_models: {H100: 2}}
)");
  ASSERT_EQ(queues.size(), 2u);
  EXPECT_EQ(queues[0].guaranteed[0], 24 * kDevice);
  EXPECT_EQ(queues[0].device_models.at("H100"), (DeviceModelQuota{16 * kDevice}));
  EXPECT_EQ(queues[0].device_models.at("A100"), (DeviceModelQuota{8 * kDevice}));
  EXPECT_EQ(queues[1].device_models.at("H100"),
            (DeviceModelQuota{8'500, 4 * kDevice, 2 * kDevice}));
  EXPECT_FALSE(queues[1].stated[0]);  // Its devices of any model are not governed.

  // The tree: one slot per model, in name order, with the cluster's devices of each model.
  const QuotaTree tree(queues, Devices(32), [](const std::string& model) {
    return model == "H100" ? 24 * kDevice : 8 * kDevice;
  });
  EXPECT_EQ(tree.device_models(), (std::vector<std::string>{"A100", "H100"}));
  const size_t h100 = tree.DeviceModelSlot("H100");
  EXPECT_EQ(h100, kFixedQuotaResources + 1);
  EXPECT_EQ(tree.DeviceModelSlot("L40S"), kQuotaResources);
  EXPECT_EQ(tree.guaranteed(QuotaTree::kRoot)[h100], 24 * kDevice);
  EXPECT_TRUE(tree.governs_slot(h100));
  const uint32_t a = tree.QueueOf("a");
  QuotaAmounts demand = Devices(12);
  demand[h100] = 12 * kDevice;
  EXPECT_TRUE(tree.Admits(a, demand).admitted);  // 8.5 + 4 of H100.
  demand = Devices(13);
  demand[h100] = 13 * kDevice;
  const QuotaTree::Verdict verdict = tree.Admits(a, demand);
  EXPECT_FALSE(verdict.admitted);
  EXPECT_EQ(verdict.resource, h100);
  EXPECT_EQ(tree.Describe(verdict, demand),
            "Queue 'a' uses 0 H100 devices of the 12.500 H100 devices it may (guaranteed 8.500 "
            "H100 devices + borrowing limit 4 H100 devices); the job asks for 13 H100 devices "
            "more.");
  // Its share is its guaranteed devices of its models when it states none of any model.
  EXPECT_DOUBLE_EQ(tree.share(a), 8.5);
}

TEST(QuotaYaml, DeviceModelErrorsNameTheModel) {
  EXPECT_NE(ParseError("queues:\n  - {name: a, guaranteed: {device_models: {H100: -1}}}\n")
                .find("field 'queues[0].guaranteed.device_models.H100': expected a number of "
                      "devices of this model, 0 or more"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: a, guaranteed: {device_models: [H100]}}\n")
                .find("field 'queues[0].guaranteed.device_models': expected a map"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: a, guaranteed: {device_models: {H100: 2}}, "
                       "lending_limit: {device_models: {H100: 3}}}\n")
                .find("queue 'a': device model 'H100': a lending limit of 3 devices is above the "
                      "guarantee, 2 devices"),
            std::string::npos);
  EXPECT_NE(ParseError("queues:\n  - {name: org, guaranteed: {device_models: {H100: 4}}}\n"
                       "  - {name: a, parent: org, guaranteed: {device_models: {H100: 5}}}\n")
                .find("queue 'org': device model 'H100': its children are guaranteed 5 "
                      "devices, more than its own 4 devices"),
            std::string::npos);
  std::string many = "queues:\n  - name: a\n    guaranteed:\n      device_models:\n";
  for (int m = 0; m <= static_cast<int>(kMaxQuotaDeviceModels); ++m) {
    many += "        M" + std::to_string(m) + ": 1\n";
  }
  EXPECT_NE(ParseError(many).find("at most 8 device models may have quotas"), std::string::npos);
}

TEST(QuotaTree, NoQueuesAdmitsEverything) {
  QuotaTree tree;
  EXPECT_TRUE(tree.empty());
  EXPECT_TRUE(tree.Admits(tree.QueueOf("anyone"), Devices(1'000'000)).admitted);
  EXPECT_FALSE(tree.WithinGuarantee(tree.QueueOf("anyone"), Devices(1)));
}

TEST(QuotaTree, AQueuesFairShareShareIsItsGuaranteedDevicesUnlessSet) {
  const std::vector<QueueConfig> queues = Parse(R"(queues:
  - {name: research, guaranteed: {devices: 12.5}}
  - {name: prod, share: 3, guaranteed: {devices: 8}}
  - {name: batch, guaranteed: {cpu: 64}}
)");
  const QuotaTree tree(queues, Devices(64));
  EXPECT_EQ(tree.share(1), 12.5);
  EXPECT_EQ(tree.share(2), 3);
  EXPECT_EQ(tree.share(3), 1);  // No device guarantee.
  EXPECT_EQ(tree.name(4), "(unqueued)");
  EXPECT_EQ(tree.share(4), 1);
}

TEST(QuotaTree, AQueueUsesUpToItsGuaranteePlusItsBorrowingLimitAndNoMore) {
  const std::vector<QueueConfig> queues = Parse(R"(queues:
  - {name: research, tenants: [alice, bob], guaranteed: {devices: 8}, borrowing_limit: {devices: 4}}
  - {name: prod, guaranteed: {devices: 8}}
)");
  QuotaTree tree(queues, Devices(16));
  const uint32_t research = tree.QueueOf("alice");
  ASSERT_EQ(tree.QueueOf("bob"), research);
  EXPECT_EQ(tree.name(research), "research");
  tree.Add(research, Devices(10), +1);
  EXPECT_TRUE(tree.Admits(research, Devices(2)).admitted);
  const QuotaTree::Verdict verdict = tree.Admits(research, Devices(3));
  ASSERT_FALSE(verdict.admitted);
  EXPECT_EQ(verdict.queue, research);
  EXPECT_FALSE(verdict.pool);
  EXPECT_EQ(verdict.limit, 12 * kDevice);
  EXPECT_EQ(tree.Describe(verdict, Devices(3)),
            "Queue 'research' uses 10 devices of the 12 devices it may (guaranteed 8 devices + "
            "borrowing limit 4 devices); the job asks for 3 devices more.");
  EXPECT_EQ(tree.CheckBooks(), "");
}

TEST(QuotaTree, WhatAQueueDoesNotLendStaysFreeForItEvenWhenIdle) {
  // prod lends at most 2 of its 8: 6 devices stay reserved for it. A queue without limits
  // ("(unqueued)" here) gets the rest of the 16: 10.
  const std::vector<QueueConfig> queues = Parse(kTwoTeams);
  QuotaTree tree(queues, Devices(16));
  const uint32_t unqueued = tree.QueueOf("carol");
  EXPECT_EQ(tree.name(unqueued), "(unqueued)");
  EXPECT_TRUE(tree.Admits(unqueued, Devices(10)).admitted);
  const QuotaTree::Verdict verdict = tree.Admits(unqueued, Devices(11));
  ASSERT_FALSE(verdict.admitted);
  EXPECT_TRUE(verdict.pool);
  EXPECT_EQ(verdict.queue, QuotaTree::kRoot);
  EXPECT_EQ(verdict.limit, 16 * kDevice);
  EXPECT_EQ(tree.Describe(verdict, Devices(11)),
            "The queues hold 6 devices of the cluster's 16 devices (in use, or guaranteed and not "
            "lent); the job asks for 11 devices more.");
  // prod itself may use its reserve whatever others use.
  tree.Add(unqueued, Devices(10), +1);
  const uint32_t prod = tree.QueueOf("prod");
  EXPECT_TRUE(tree.Admits(prod, Devices(6)).admitted);
  EXPECT_FALSE(tree.Admits(prod, Devices(7)).admitted);
  EXPECT_TRUE(tree.WithinGuarantee(prod, Devices(7)));  // It may reclaim the 7th.
  EXPECT_TRUE(tree.Borrowing(unqueued, prod));
  EXPECT_FALSE(tree.Borrowing(prod, unqueued));
  tree.Add(unqueued, Devices(10), -1);
  EXPECT_EQ(tree.usage(QuotaTree::kRoot), QuotaAmounts{});
  EXPECT_EQ(tree.CheckBooks(), "");
}

TEST(QuotaTree, AParentsLimitBindsItsChildrenTogether) {
  const std::vector<QueueConfig> queues = Parse(R"(queues:
  - {name: org, guaranteed: {devices: 8}, borrowing_limit: {devices: 0}}
  - {name: a, parent: org, guaranteed: {devices: 4}}
  - {name: b, parent: org, guaranteed: {devices: 4}}
  - {name: other, guaranteed: {devices: 8}}
)");
  QuotaTree tree(queues, Devices(32));
  const uint32_t a = tree.QueueOf("a");
  const uint32_t b = tree.QueueOf("b");
  EXPECT_EQ(tree.QueueOf("org"), tree.QueueOf("nobody"));  // A parent takes no jobs.
  EXPECT_TRUE(tree.Admits(a, Devices(8)).admitted);        // a borrows b's idle 4, inside org.
  const QuotaTree::Verdict verdict = tree.Admits(a, Devices(9));
  ASSERT_FALSE(verdict.admitted);
  EXPECT_EQ(tree.name(verdict.queue), "org");
  EXPECT_TRUE(verdict.pool);
  EXPECT_EQ(tree.Describe(verdict, Devices(9)),
            "The queues under 'org' hold 0 devices of the 8 devices it may use (in use, or "
            "guaranteed and not lent); the job asks for 9 devices more.");
  tree.Add(a, Devices(6), +1);
  EXPECT_TRUE(tree.Borrowing(a, b));                       // Above its 4, seen from its sibling.
  EXPECT_FALSE(tree.Borrowing(a, a));                      // Its own work, seen from itself.
  EXPECT_FALSE(tree.Borrowing(a, tree.QueueOf("other")));  // org as a whole is within its 8.
  EXPECT_TRUE(tree.WithinGuarantee(b, Devices(2)));
  EXPECT_FALSE(tree.WithinGuarantee(b, Devices(3)));  // org would pass its 8.
  EXPECT_FALSE(tree.Admits(b, Devices(3)).admitted);
  EXPECT_EQ(tree.usage(tree.parent(a)), Devices(6));
  EXPECT_EQ(tree.CheckBooks(), "");
}

TEST(QuotaTree, ResourcesNoQueueStatesAreNotGoverned) {
  const std::vector<QueueConfig> queues =
      Parse("queues:\n  - {name: a, guaranteed: {devices: 1}, borrowing_limit: {devices: 0}}\n");
  QuotaTree tree(queues, {16 * kDevice, 64'000, 1024});
  const uint32_t a = tree.QueueOf("a");
  EXPECT_TRUE(tree.Admits(a, {kDevice, 1'000'000, 1'000'000}).admitted);
  EXPECT_TRUE(tree.WithinGuarantee(a, {kDevice, 1'000'000, 1'000'000}));
  EXPECT_FALSE(tree.Admits(a, {2 * kDevice, 0, 0}).admitted);
}

// PUT /v1/queues: the queues go into the policy in force as the operator wrote them, and the
// policy's other lines, comments included, stay as they were.
TEST(QueuesYaml, PuttingQueuesKeepsThePolicysOtherLinesAndTheOperatorsWords) {
  const std::string policy =
      "# my policy\nname: mine   # ours\nqueue:\n  order: fifo\nqueues:\n"
      "  - {name: old, guaranteed: {devices: 4}}\n\n# reclaims\npreemption: {enabled: true}\n";
  const std::string queues =
      "# two teams\nqueues:\n  - {name: a, guaranteed: {devices: 8}}  # half\n"
      "  - {name: b, guaranteed: {devices: 8}}\n";
  auto replaced = PolicyTextWithQueues(policy, queues, "body");
  ASSERT_TRUE(replaced.has_value()) << replaced.error().message;
  EXPECT_EQ(*replaced, "# my policy\nname: mine   # ours\nqueue:\n  order: fifo\n" + queues +
                           "\n# reclaims\npreemption: {enabled: true}\n");
  auto parsed = ParsePolicyYaml(*replaced, "replaced");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  EXPECT_EQ(parsed->queues.size(), 2u);
  EXPECT_TRUE(parsed->preemption.enabled);

  // None before: after the policy. An empty list: the block goes, the rest stays.
  auto added = PolicyTextWithQueues("name: mine  # ours\n", queues, "body");
  ASSERT_TRUE(added.has_value());
  EXPECT_EQ(*added, "name: mine  # ours\n" + queues);
  auto removed = PolicyTextWithQueues(*replaced, "queues: []\n", "body");
  ASSERT_TRUE(removed.has_value());
  EXPECT_NE(removed->find("name: mine   # ours\n"), std::string::npos) << *removed;
  EXPECT_NE(removed->find("\n# reclaims\npreemption: {enabled: true}\n"), std::string::npos)
      << *removed;
  auto without = ParsePolicyYaml(*removed, "removed");
  ASSERT_TRUE(without.has_value()) << without.error().message;
  EXPECT_TRUE(without->queues.empty());

  // A policy in flow style has no lines to keep: it is written anew, with the queues.
  auto flow = PolicyTextWithQueues("{name: mine, queue: {order: fifo}}\n", queues, "body");
  ASSERT_TRUE(flow.has_value());
  auto flow_parsed = ParsePolicyYaml(*flow, "flow");
  ASSERT_TRUE(flow_parsed.has_value()) << flow_parsed.error().message;
  EXPECT_EQ(flow_parsed->queues.size(), 2u);
  EXPECT_EQ(flow_parsed->queue_order, "fifo");
}

}  // namespace
}  // namespace headroom::engine
