// Issue 10: bodies and specs are bounded before they are held — nesting depth, duplicate keys,
// names — and error messages quote a short, escaped excerpt of what they reject.
#include <string>

#include <gtest/gtest.h>

#include "control/api_json.h"
#include "control/job_spec.h"
#include "control/names.h"
#include "model/yaml_field.h"

namespace headroom::control {
namespace {

std::string Repeat(std::string_view piece, size_t times) {
  std::string out;
  out.reserve(piece.size() * times);
  for (size_t i = 0; i < times; ++i) out += piece;
  return out;
}

// A JSON value nested `depth` lists deep.
std::string DeepList(size_t depth) { return Repeat("[", depth) + Repeat("]", depth); }

TEST(Issue10Json, ABodyNestedTensOfThousandsDeepIsRefusedBeforeParsing) {
  auto deep = ParseBody(R"({"node": )" + DeepList(100'000) + "}");
  ASSERT_FALSE(deep.has_value());
  EXPECT_EQ(deep.error().status, 400);
  EXPECT_NE(deep.error().message.find("more than 32 deep"), std::string::npos)
      << deep.error().message;
  // At the limit it parses; one level more does not. Brackets inside strings do not count.
  EXPECT_TRUE(ParseBody(R"({"a": )" + DeepList(kMaxJsonDepth - 1) + "}").has_value());
  EXPECT_FALSE(ParseBody(R"({"a": )" + DeepList(kMaxJsonDepth) + "}").has_value());
  EXPECT_TRUE(ParseBody(R"({"a": ")" + Repeat("[", 1000) + R"(\"["})").has_value());
}

TEST(Issue10Json, DuplicateKeysAreRefusedWithTheirPath) {
  auto role = ParseBody(R"({"role": "user", "tenant": "a", "role": "admin"})");
  ASSERT_FALSE(role.has_value());
  EXPECT_EQ(role.error().message, "role: expected each key once, got it twice");
  auto nested = ParseBody(R"({"devices": [{"index": 0}, {"index": 1, "uuid": "x", "index": 2}]})");
  ASSERT_FALSE(nested.has_value());
  EXPECT_EQ(nested.error().message, "devices[1].index: expected each key once, got it twice");
  // The same key in sibling objects is no duplicate.
  EXPECT_TRUE(ParseBody(R"({"a": {"k": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 2}]})"));
  auto deeper = ParseBody(R"({"a": [1, [2], {"b": {"c": 1, "d": [], "c": 2}}], "e": 0})");
  ASSERT_FALSE(deeper.has_value());
  EXPECT_EQ(deeper.error().message, "a[2].b.c: expected each key once, got it twice");
}

TEST(Issue10Json, ABodyParsesToWhatTheLibraryParses) {
  // Every kind of value, nested, as nlohmann::json::parse builds it: the body parser builds its
  // own tree (to name duplicate keys without a callback per event).
  const std::string text =
      R"({"s": "x\u00e9\n", "i": -3, "u": 18446744073709551615, "f": 2.5e-3, "t": true,)"
      R"( "n": null, "a": [[], {}, [1, {"k": [null]}]], "o": {"p": {"q": "r"}, "e": {}}})";
  auto body = ParseBody(text);
  ASSERT_TRUE(body.has_value()) << body.error().message;
  EXPECT_EQ(*body, Json::parse(text));
  EXPECT_TRUE((*body)["u"].is_number_unsigned());
  EXPECT_TRUE((*body)["i"].is_number_integer());
  for (const char* bad : {"", "{", R"({"a": 1} x)", R"({"a": })", "[1, 2]", "7"}) {
    EXPECT_FALSE(ParseBody(bad).has_value()) << bad;
  }
}

TEST(Issue10Json, UnknownFieldsAreNamedWithTheKnownOnes) {
  auto body = ParseBody(R"({"role": "user", "tenant": "a", "admin": true})");
  ASSERT_TRUE(body.has_value());
  auto unknown = RejectUnknownFields(*body, "", {"role", "tenant"});
  ASSERT_FALSE(unknown.has_value());
  EXPECT_EQ(unknown.error().message, "admin: unknown field; the known fields are role, tenant");
  EXPECT_TRUE(RejectUnknownFields(*body, "", {"role", "tenant", "admin"}).has_value());
}

TEST(Issue10Json, MessagesQuoteAShortEscapedExcerpt) {
  // A 900 KB value of the wrong type, then a string holding a terminal escape sequence.
  Json body = {{"node", Json::array()}, {"reason", "\x1b[2J" + std::string(100'000, 'x')}};
  for (int i = 0; i < 100'000; ++i) body["node"].push_back(123456789);
  auto list = StringField(body, "node", "node", true);
  ASSERT_FALSE(list.has_value());
  EXPECT_EQ(list.error().message, "node: expected a string, got a list of 100000 items");
  auto text = IntField(body, "reason", "reason", 0, 10, std::nullopt);
  ASSERT_FALSE(text.has_value());
  EXPECT_LT(text.error().message.size(), 120u) << text.error().message;
  EXPECT_EQ(text.error().message.find('\x1b'), std::string::npos);
  EXPECT_NE(text.error().message.find(R"("\x1b[2Jxxx)"), std::string::npos);
}

TEST(Issue10Names, OneRuleForEveryStoredName) {
  EXPECT_TRUE(IsValidName("team-a", NameKind::kLabel));
  EXPECT_TRUE(IsValidName("équipe Ω\tzwei", NameKind::kLabel));
  EXPECT_TRUE(IsValidName(Repeat("é", 126) + "x", NameKind::kLabel));  // 253 bytes.
  EXPECT_FALSE(IsValidName(Repeat("é", 127), NameKind::kLabel));       // 254 bytes.
  EXPECT_FALSE(IsValidName("", NameKind::kLabel));
  EXPECT_FALSE(IsValidName("a\x01", NameKind::kLabel));
  EXPECT_FALSE(IsValidName("a\x7f", NameKind::kLabel));
  EXPECT_FALSE(IsValidName("\xc3", NameKind::kLabel));          // Cut UTF-8.
  EXPECT_FALSE(IsValidName("\xed\xa0\x80", NameKind::kLabel));  // A surrogate.
  EXPECT_FALSE(IsValidName("\xc0\xaf", NameKind::kLabel));      // Overlong '/'.

  EXPECT_TRUE(IsValidName("rack0-n0.example_1", NameKind::kNode));
  EXPECT_TRUE(IsValidName(std::string(253, 'n'), NameKind::kNode));
  EXPECT_FALSE(IsValidName(std::string(254, 'n'), NameKind::kNode));
  EXPECT_FALSE(IsValidName("a/b", NameKind::kNode));
  EXPECT_FALSE(IsValidName("a b", NameKind::kNode));
  EXPECT_FALSE(IsValidName("", NameKind::kNode));

  EXPECT_TRUE(IsValidName("", NameKind::kAddress));
  EXPECT_TRUE(IsValidName("[fe80::1%eth0]", NameKind::kAddress));
  EXPECT_FALSE(IsValidName("10.0.0.1 ", NameKind::kAddress));

  EXPECT_TRUE(IsValidName("", NameKind::kReason));
  EXPECT_TRUE(IsValidName(Repeat("é", 128), NameKind::kReason));  // 256 bytes.
  EXPECT_FALSE(IsValidName(Repeat("é", 128) + "x", NameKind::kReason));
  EXPECT_FALSE(IsValidName("fan\x1b[31m", NameKind::kReason));
  EXPECT_FALSE(IsValidName("fan\tbroken", NameKind::kReason));
  EXPECT_FALSE(
      IsValidName("csi \xc2\x9b"
                  "31m",
                  NameKind::kReason));  // C1 CSI.
}

TEST(Issue10Names, ExcerptsAreShortEscapedAndCutBetweenCharacters) {
  EXPECT_EQ(QuoteExcerpt("a\"b\n\x1b"), R"("a\"b\n\x1b")");
  const std::string excerpt = QuoteExcerpt("x" + Repeat("é", 100));
  EXPECT_EQ(excerpt, "\"x" + Repeat("é", 19) + "...\"");  // 39 bytes: é is not split.
}

TEST(Issue10Yaml, HundredThousandOpenBracketsAreRefusedBeforeYamlCpp) {
  auto flow = ParseJobSpec("spec: " + Repeat("[", 100'000));
  ASSERT_FALSE(flow.has_value());
  EXPECT_NE(flow.error().message.find("request body:1: document: expected lists and maps nested "
                                      "at most 64 deep"),
            std::string::npos)
      << flow.error().message;
  auto json = ParseJobSpec(R"({"spec": {"command": )" + DeepList(50'000) + "}}");
  ASSERT_FALSE(json.has_value());
  EXPECT_NE(json.error().message.find("nested at most 64 deep"), std::string::npos);
}

TEST(Issue10Yaml, DeepBlockNestingIsRefused) {
  std::string maps;
  for (size_t level = 0; level < 3'000; ++level) maps += std::string(level, ' ') + "a:\n";
  auto by_indentation = ParseJobSpec(maps);
  ASSERT_FALSE(by_indentation.has_value());
  EXPECT_NE(by_indentation.error().message.find("nested at most 64 deep"), std::string::npos)
      << by_indentation.error().message;
  // Compact sequences nest on one line: "- - - - x".
  auto compact = ParseJobSpec("spec:\n" + Repeat("- ", 50'000) + "x\n");
  ASSERT_FALSE(compact.has_value());
  EXPECT_NE(compact.error().message.find("nested at most 64 deep"), std::string::npos);
  // Quoted brackets and block scalars are text, not nesting.
  std::string spec = "spec:\n  timeLimit: 1h\n  command:\n  - \"" + Repeat("[", 200) + "\"\n";
  spec += "  - >-\n" + Repeat("      {[(\n", 100) + "  - '" + Repeat("{", 100) + "'\n";
  auto text = ParseJobSpec(spec);
  ASSERT_TRUE(text.has_value()) << text.error().message;
  EXPECT_EQ(text->command.size(), 3u);
}

TEST(Issue10Yaml, TheBoundCoversWhatYamlCppNests) {
  // Block maps, block sequences under keys at the same column, compact sequences, flow.
  constexpr std::string_view kDoc =
      "a:\n- b:\n  - - c: [1, {d: [2]}]\n    - e\n  f: \"[[[\"  # [[[\n";
  const model::YamlNesting nesting = model::YamlNestingBound(kDoc, 1000);
  // Real depth: a(map) > seq > map(b) > seq > seq > map(c) > flow seq > flow map > flow seq = 9.
  EXPECT_GE(nesting.bound, 9u);
  EXPECT_LE(nesting.bound, 20u);
}

TEST(Issue10JobSpec, ServicesMayHaveZeroReplicasAsScalingLeavesThem) {
  auto zero = ParseJobSpec("kind: Service\nspec:\n  replicas: 0\n  timeLimit: 1d\n");
  ASSERT_TRUE(zero.has_value()) << zero.error().message;
  EXPECT_EQ(zero->replicas, 0u);
  auto back = ParseJobSpec(JobSpecToJson(*zero));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(*back, *zero);
}

TEST(Issue10JobSpec, TenantsAndNamesFollowTheSharedRule) {
  const std::string longest = Repeat("é", 126) + "x";
  auto ok = ParseJobSpec(
      Json{{"metadata", {{"name", longest}}}, {"spec", {{"tenant", longest}, {"timeLimit", 60}}}}
          .dump());
  ASSERT_TRUE(ok.has_value()) << ok.error().message;
  auto back = ParseJobSpec(JobSpecToJson(*ok));
  ASSERT_TRUE(back.has_value()) << back.error().message;
  EXPECT_EQ(back->tenant, longest);
  auto too_long =
      ParseJobSpec(Json{{"spec", {{"tenant", longest + "y"}, {"timeLimit", 60}}}}.dump());
  ASSERT_FALSE(too_long.has_value());
  EXPECT_NE(too_long.error().message.find("field 'spec.tenant': expected a tenant name"),
            std::string::npos)
      << too_long.error().message;
}

}  // namespace
}  // namespace headroom::control
