#include "model/selector.h"

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

namespace headroom::model {
namespace {

Attributes H100() {
  Attributes attributes;
  attributes.Set("model", "H100");
  attributes.Set("memory_gib", 80.0);
  attributes.Set("interconnect", "nvlink");
  attributes.Set("nvidia.com/mig", "1g.10gb");
  return attributes;
}

Attributes V100() {
  Attributes attributes;
  attributes.Set("model", "V100M16");
  attributes.Set("memory_gib", 16.0);
  attributes.Set("interconnect", "pcie");
  return attributes;
}

// Parses `text`, failing the test (and returning the match-all selector) if it does not parse.
Selector MustParse(std::string_view text) {
  auto selector = Selector::Parse(text);
  EXPECT_TRUE(selector.has_value()) << text << ": " << selector.error().message;
  return selector.value_or(Selector());
}

bool MatchesH100(std::string_view text) { return MustParse(text).Matches(H100()); }

std::string ErrorOf(std::string_view text) {
  auto selector = Selector::Parse(text);
  if (selector) return "parsed";
  EXPECT_EQ(selector.error().code, ErrorCode::kInvalidArgument);
  return selector.error().message;
}

TEST(SelectorTest, EmptyAndWhitespaceMatchEverything) {
  EXPECT_TRUE(Selector().MatchesAll());
  EXPECT_TRUE(Selector().Matches(Attributes()));
  for (std::string_view text : {"", " ", " \t\n\r "}) {
    Selector selector = MustParse(text);
    EXPECT_TRUE(selector.MatchesAll());
    EXPECT_EQ(selector.text(), "");
    EXPECT_TRUE(selector.Matches(H100()));
  }
}

TEST(SelectorTest, TextIsTrimmed) {
  Selector selector = MustParse("  \tmodel == \"H100\"\n ");
  EXPECT_FALSE(selector.MatchesAll());
  EXPECT_EQ(selector.text(), "model == \"H100\"");
}

TEST(SelectorTest, EqualityAndInequality) {
  EXPECT_TRUE(MatchesH100(R"(model == "H100")"));
  EXPECT_FALSE(MatchesH100(R"(model == "V100M16")"));
  EXPECT_FALSE(MatchesH100(R"(model != "H100")"));
  EXPECT_TRUE(MatchesH100(R"(model != "V100M16")"));
  EXPECT_TRUE(MatchesH100("memory_gib == 80"));
  EXPECT_TRUE(MatchesH100("memory_gib == 80.0"));
  EXPECT_TRUE(MatchesH100("memory_gib != 40"));
  EXPECT_FALSE(MatchesH100("memory_gib != 80"));
}

TEST(SelectorTest, OrderingOnNumbers) {
  EXPECT_TRUE(MatchesH100("memory_gib < 81"));
  EXPECT_FALSE(MatchesH100("memory_gib < 80"));
  EXPECT_TRUE(MatchesH100("memory_gib <= 80"));
  EXPECT_FALSE(MatchesH100("memory_gib <= 79.5"));
  EXPECT_TRUE(MatchesH100("memory_gib > 79.99"));
  EXPECT_FALSE(MatchesH100("memory_gib > 80"));
  EXPECT_TRUE(MatchesH100("memory_gib >= 80"));
  EXPECT_FALSE(MatchesH100("memory_gib >= 80.5"));
  EXPECT_TRUE(MatchesH100("memory_gib > -1"));
  EXPECT_TRUE(MatchesH100("memory_gib>=-0.5"));
}

TEST(SelectorTest, OrderingOnStringsIsBytewise) {
  EXPECT_TRUE(MatchesH100(R"(model < "V100")"));
  EXPECT_TRUE(MatchesH100(R"(model > "A100")"));
  EXPECT_TRUE(MatchesH100(R"(model >= "H100")"));
  EXPECT_TRUE(MatchesH100(R"(model <= "H100")"));
  EXPECT_FALSE(MatchesH100(R"(model < "H100")"));
  // Bytewise: uppercase sorts before lowercase, and bytes above 0x7F after all ASCII.
  EXPECT_TRUE(MatchesH100(R"(model < "h100")"));
  Attributes high;
  high.Set("name", "\xC3\xA9");
  EXPECT_TRUE(MustParse(R"(name > "z")").Matches(high));
}

TEST(SelectorTest, StringEscapes) {
  Attributes attributes;
  attributes.Set("label", "say \"hi\" \\o/");
  EXPECT_TRUE(MustParse(R"(label == "say \"hi\" \\o/")").Matches(attributes));
  EXPECT_TRUE(MustParse(R"(label != "say \"hi\"")").Matches(attributes));
}

TEST(SelectorTest, IdentifiersWithDotsDashesAndSlashes) {
  EXPECT_TRUE(MatchesH100(R"(nvidia.com/mig == "1g.10gb")"));
  Attributes attributes;
  attributes.Set("rack-id", 7.0);
  attributes.Set("_private", "x");
  EXPECT_TRUE(MustParse("rack-id == 7 && _private == \"x\"").Matches(attributes));
}

TEST(SelectorTest, TrueAndFalse) {
  EXPECT_TRUE(MustParse("true").Matches(Attributes()));
  EXPECT_FALSE(MustParse("false").Matches(H100()));
  EXPECT_FALSE(MustParse("true").MatchesAll());  // Matches all, but is not the empty selector.
  EXPECT_TRUE(MustParse("false || true").Matches(H100()));
}

TEST(SelectorTest, AndOrNot) {
  EXPECT_TRUE(MatchesH100(R"(model == "H100" && memory_gib >= 80)"));
  EXPECT_FALSE(MatchesH100(R"(model == "H100" && memory_gib > 80)"));
  EXPECT_TRUE(MatchesH100(R"(model == "V100" || memory_gib >= 80)"));
  EXPECT_FALSE(MatchesH100(R"(model == "V100" || memory_gib < 80)"));
  EXPECT_TRUE(MatchesH100(R"(!(interconnect == "pcie"))"));
  EXPECT_FALSE(MatchesH100(R"(!model == "H100")"));  // `!` binds to the comparison.
  EXPECT_TRUE(MatchesH100(R"(!!(model == "H100"))"));
  EXPECT_TRUE(MatchesH100("true && true && true && true"));
  EXPECT_FALSE(MatchesH100("false || false || false"));
}

TEST(SelectorTest, AndBindsTighterThanOr) {
  // Read as `true || (false && false)`; the other grouping would be false.
  EXPECT_TRUE(MatchesH100("true || false && false"));
  EXPECT_FALSE(MatchesH100("(true || false) && false"));
  // Read as `(false && false) || true`.
  EXPECT_TRUE(MatchesH100("false && false || true"));
  EXPECT_FALSE(MatchesH100("false && (false || true)"));
}

TEST(SelectorTest, ParenthesesGroup) {
  const std::string_view text = R"(!(interconnect == "pcie") || memory_gib > 40)";
  EXPECT_TRUE(MustParse(text).Matches(H100()));
  EXPECT_FALSE(MustParse(text).Matches(V100()));
  EXPECT_TRUE(MatchesH100("((((model == \"H100\"))))"));
  EXPECT_FALSE(MatchesH100("(model == \"H100\") && ((memory_gib < 80) || false)"));
}

TEST(SelectorTest, InListsOfStringsAndNumbers) {
  const Selector models = MustParse(R"(model in ["V100M16", "V100M32"])");
  EXPECT_FALSE(models.Matches(H100()));
  EXPECT_TRUE(models.Matches(V100()));
  EXPECT_TRUE(MatchesH100("memory_gib in [40, 80]"));
  EXPECT_FALSE(MatchesH100("memory_gib in [40,16]"));
  EXPECT_TRUE(MatchesH100(R"(model in ["H100"])"));
  // A mixed list: each element compares only with values of its own type.
  EXPECT_TRUE(MatchesH100(R"(memory_gib in ["80", 80])"));
  EXPECT_FALSE(MatchesH100(R"(memory_gib in ["80"])"));
}

TEST(SelectorTest, NotInLists) {
  const Selector not_v100 = MustParse(R"(model not in ["V100M16", "V100M32"])");
  EXPECT_TRUE(not_v100.Matches(H100()));
  EXPECT_FALSE(not_v100.Matches(V100()));
  EXPECT_TRUE(MatchesH100("memory_gib not in [16, 32]"));
  EXPECT_FALSE(MatchesH100("memory_gib not in [16, 80]"));
  // Literals of the other type are ignored; with none of the attribute's type, it is a type
  // mismatch and false, like `!=`.
  EXPECT_TRUE(MatchesH100(R"(model not in ["V100M16", 3])"));
  EXPECT_FALSE(MatchesH100("model not in [1, 2]"));
}

TEST(SelectorTest, Has) {
  EXPECT_TRUE(MatchesH100("has(model)"));
  EXPECT_TRUE(MatchesH100("has( nvidia.com/mig )"));
  EXPECT_FALSE(MustParse("has(nvidia.com/mig)").Matches(V100()));
  EXPECT_TRUE(MustParse("!has(nvidia.com/mig)").Matches(V100()));
  EXPECT_FALSE(MatchesH100("has(rack)"));
}

TEST(SelectorTest, MissingAttributeMakesEveryComparisonFalse) {
  for (std::string_view text :
       {R"(rack == "r1")", R"(rack != "r1")", "rack < 1", "rack <= 1", "rack > 1", "rack >= 1",
        "rack != 1", R"(rack in ["r1", 1])", R"(rack not in ["r1", 1])"}) {
    EXPECT_FALSE(MatchesH100(text)) << text;
  }
  // Negating a false comparison is true.
  EXPECT_TRUE(MatchesH100(R"(!(rack == "r1"))"));
  EXPECT_TRUE(MatchesH100(R"(!(rack != "r1"))"));
}

TEST(SelectorTest, TypeMismatchIsFalse) {
  for (std::string_view text :
       {"model == 100", "model != 100", "model < 1", "model >= 1", R"(memory_gib == "80")",
        R"(memory_gib != "80")", R"(memory_gib > "1")", R"(memory_gib <= "1")"}) {
    EXPECT_FALSE(MatchesH100(text)) << text;
  }
}

TEST(SelectorTest, NumberForms) {
  Attributes attributes;
  attributes.Set("x", -0.25);
  EXPECT_TRUE(MustParse("x == -0.25").Matches(attributes));
  EXPECT_TRUE(MustParse("x == -00.250").Matches(attributes));
  EXPECT_TRUE(MustParse("x < 0").Matches(attributes));
  // Huge but finite is fine; too small to represent rounds to zero.
  const std::string big = "x < 1" + std::string(300, '0');
  EXPECT_TRUE(MustParse(big).Matches(attributes));
  attributes.Set("x", 0.0);
  EXPECT_TRUE(MustParse("x == 0." + std::string(400, '0') + "1").Matches(attributes));
  EXPECT_TRUE(MustParse("x == -0").Matches(attributes));
}

TEST(SelectorTest, ErrorMessagesNameColumnAndExpectation) {
  EXPECT_EQ(ErrorOf("model in [ ]"), "column 12: expected a literal, got ']'");
  EXPECT_EQ(ErrorOf("model in [1, ]"), "column 14: expected a literal, got ']'");
  EXPECT_EQ(ErrorOf("model == \"H100\" &&"),
            "column 19: expected an attribute name, got end of input");
  EXPECT_EQ(ErrorOf("!"), "column 2: expected an attribute name, got end of input");
  EXPECT_EQ(ErrorOf("&& a == 1"), "column 1: expected an attribute name, got '&&'");
  EXPECT_EQ(ErrorOf("model = \"H100\""),
            "column 7: expected an operator (==, !=, <, <=, >, >=, in or not in), got '='");
  EXPECT_EQ(ErrorOf("model"),
            "column 6: expected an operator (==, !=, <, <=, >, >=, in or not in), got end of "
            "input");
  EXPECT_EQ(ErrorOf("model == H100"), "column 10: expected a literal, got 'H100'");
  EXPECT_EQ(ErrorOf("a == 1 b == 2"), "column 8: expected '&&', '||' or end of input, got 'b'");
  EXPECT_EQ(ErrorOf("a == 1 & b == 2"), "column 8: expected '&&', '||' or end of input, got '&'");
  EXPECT_EQ(ErrorOf("(a == 1"), "column 8: expected '&&', '||' or ')', got end of input");
  EXPECT_EQ(ErrorOf("a == 1)"), "column 7: expected '&&', '||' or end of input, got ')'");
  EXPECT_EQ(ErrorOf("a in 1"), "column 6: expected '[', got '1'");
  EXPECT_EQ(ErrorOf("a in [1 2]"), "column 9: expected ',' or ']', got '2'");
  EXPECT_EQ(ErrorOf("a not [1]"), "column 7: expected 'in' after 'not', got '['");
  EXPECT_EQ(ErrorOf("has model"), "column 5: expected '(' after 'has', got 'model'");
  EXPECT_EQ(ErrorOf("has()"), "column 5: expected an attribute name, got ')'");
  EXPECT_EQ(ErrorOf("has(a b)"), "column 7: expected ')', got 'b'");
  EXPECT_EQ(ErrorOf("in == 1"), "column 1: expected an attribute name, got 'in'");
  EXPECT_EQ(ErrorOf("a == \"x\" \"y\""),
            "column 10: expected '&&', '||' or end of input, got \"y\"");
}

TEST(SelectorTest, ErrorMessagesForBadLiterals) {
  EXPECT_EQ(ErrorOf("a == \"H100"),
            "column 11: expected '\"' closing the string opened at column 6, got end of input");
  EXPECT_EQ(ErrorOf("a == \"x\\"),
            "column 9: expected '\"' closing the string opened at column 6, got end of input");
  EXPECT_EQ(ErrorOf(R"(a == "x\n")"), "column 9: expected '\"' or '\\' after a backslash, got 'n'");
  EXPECT_EQ(ErrorOf("a == 1e5"), "column 6: expected a number, got '1e5'");
  EXPECT_EQ(ErrorOf("a == 1."), "column 6: expected a number, got '1.'");
  EXPECT_EQ(ErrorOf("a == 1.2.3"), "column 6: expected a number, got '1.2.3'");
  EXPECT_EQ(ErrorOf("a == -"), "column 6: expected a number, got '-'");
  EXPECT_EQ(ErrorOf("a == 5gpu"), "column 6: expected a number, got '5gpu'");
  EXPECT_EQ(ErrorOf("a == 1" + std::string(400, '0')),
            "column 6: expected a finite number, got '100000000000000000000000...'");
  // The first problem from the left wins, even if a later string would not lex.
  EXPECT_EQ(ErrorOf("a == ] \"unterminated"), "column 6: expected a literal, got ']'");
}

TEST(SelectorTest, ErrorMessagesEscapeOddBytes) {
  EXPECT_EQ(ErrorOf(std::string_view("a ==\0 1", 7)), "column 5: expected a literal, got '\\x00'");
  EXPECT_EQ(ErrorOf("a == \xC3\xA9"), "column 6: expected a literal, got '\\xC3'");
  EXPECT_EQ(ErrorOf("@"), "column 1: expected an attribute name, got '@'");
}

TEST(SelectorTest, ColumnsCountLeadingWhitespace) {
  EXPECT_EQ(ErrorOf("   a =="), "column 8: expected a literal, got end of input");
}

TEST(SelectorTest, NestingIsBoundedAt64Levels) {
  const auto nested = [](int levels) {
    return std::string(levels, '(') + "a == 1" + std::string(levels, ')');
  };
  Attributes attributes;
  attributes.Set("a", 1.0);
  EXPECT_TRUE(MustParse(nested(64)).Matches(attributes));
  EXPECT_EQ(ErrorOf(nested(65)), "column 65: expected at most 64 levels of nesting, got 65");
  EXPECT_TRUE(MustParse(std::string(64, '!') + "true").Matches(attributes));
  EXPECT_EQ(ErrorOf(std::string(65, '!') + "true"),
            "column 65: expected at most 64 levels of nesting, got 65");
  EXPECT_EQ(ErrorOf(std::string(32, '!') + std::string(33, '(') + "true"),
            "column 65: expected at most 64 levels of nesting, got 65");
  // Far deeper input fails the same way instead of exhausting the stack.
  EXPECT_EQ(ErrorOf(std::string(100000, '(')),
            "column 65: expected at most 64 levels of nesting, got 65");
}

TEST(SelectorTest, LongFlatChainsAreNotNesting) {
  std::string text = "a == 1";
  for (int i = 0; i < 20000; ++i) text += i % 2 == 0 ? " && a == 1" : " || a == 2";
  Attributes attributes;
  attributes.Set("a", 1.0);
  EXPECT_TRUE(MustParse(text).Matches(attributes));
}

TEST(SelectorTest, CopiesShareTheParsedExpression) {
  const Selector original = MustParse("memory_gib >= 80");
  const Selector copy = original;  // NOLINT(performance-unnecessary-copy-initialization)
  EXPECT_EQ(copy.text(), original.text());
  EXPECT_TRUE(copy.Matches(H100()));
  EXPECT_FALSE(copy.Matches(V100()));
}

// --- Properties -------------------------------------------------------------------------------

// A generated expression: its text, and what it should evaluate to by a reference evaluator
// written independently of the parser (plain C++ over the generated structure).
struct Sample {
  std::string text;
  std::function<bool(const Attributes&)> matches;
};

std::ostream& operator<<(std::ostream& os, const Sample& sample) { return os << sample.text; }

struct LiteralSample {
  std::string text;
  AttributeValue value;
};

const std::vector<std::string>& AttributeNames() {
  static const auto* names =
      new std::vector<std::string>{"model", "memory_gib", "nvidia.com/mig", "rack-id", "absent"};
  return *names;
}

const std::vector<LiteralSample>& Literals() {
  static const auto* literals = new std::vector<LiteralSample>{
      {R"("H100")", std::string("H100")},
      {R"("V100")", std::string("V100")},
      {R"("80")", std::string("80")},
      {R"("a\"b\\c")", std::string("a\"b\\c")},
      {R"("")", std::string()},
      {"80", 80.0},
      {"16", 16.0},
      {"-0.5", -0.5},
      {"0", 0.0},
      {"3.25", 3.25},
  };
  return *literals;
}

// Attribute sets the properties evaluate against: empty, typical, types swapped, odd values.
const std::vector<Attributes>& AttributeSets() {
  static const auto* sets = [] {
    auto* out = new std::vector<Attributes>(4);
    (*out)[1] = H100();
    (*out)[1].Set("rack-id", 16.0);
    (*out)[2].Set("model", 80.0);
    (*out)[2].Set("memory_gib", "80");
    (*out)[2].Set("nvidia.com/mig", "");
    (*out)[3].Set("model", "a\"b\\c");
    (*out)[3].Set("memory_gib", -0.5);
    (*out)[3].Set("rack-id", "V100");
    return out;
  }();
  return *sets;
}

// Reference semantics, written out longhand from the header comment.
bool ReferenceCompare(std::string_view op, const AttributeValue& lhs, const AttributeValue& rhs) {
  if (lhs.index() != rhs.index()) return false;
  int order = 0;
  if (lhs.index() == 0) {
    order = std::get<std::string>(lhs).compare(std::get<std::string>(rhs));
  } else {
    const double a = std::get<double>(lhs);
    const double b = std::get<double>(rhs);
    order = a < b ? -1 : (a > b ? 1 : 0);
  }
  if (op == "==") return order == 0;
  if (op == "!=") return order != 0;
  if (op == "<") return order < 0;
  if (op == "<=") return order <= 0;
  if (op == ">") return order > 0;
  return order >= 0;
}

rc::Gen<Sample> GenCompare() {
  return rc::gen::apply(
      [](const std::string& name, const std::string& op, const LiteralSample& literal) {
        return Sample{name + " " + op + " " + literal.text, [=](const Attributes& attributes) {
                        const AttributeValue* value = attributes.Find(name);
                        return value != nullptr && ReferenceCompare(op, *value, literal.value);
                      }};
      },
      rc::gen::elementOf(AttributeNames()),
      rc::gen::element<std::string>("==", "!=", "<", "<=", ">", ">="),
      rc::gen::elementOf(Literals()));
}

rc::Gen<Sample> GenList() {
  return rc::gen::apply(
      [](const std::string& name, bool negated, const std::vector<LiteralSample>& literals) {
        std::string text = name + (negated ? " not in [" : " in [");
        for (std::size_t i = 0; i < literals.size(); ++i) {
          text += (i == 0 ? "" : ", ") + literals[i].text;
        }
        text += "]";
        return Sample{text, [=](const Attributes& attributes) {
                        const AttributeValue* value = attributes.Find(name);
                        if (value == nullptr) return false;
                        bool any_equal = false;
                        bool any_same_type = false;
                        for (const auto& literal : literals) {
                          any_same_type |= literal.value.index() == value->index();
                          any_equal |= ReferenceCompare("==", *value, literal.value);
                        }
                        return negated ? any_same_type && !any_equal : any_equal;
                      }};
      },
      rc::gen::elementOf(AttributeNames()), rc::gen::arbitrary<bool>(),
      rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, 4), [](std::size_t count) {
        return rc::gen::container<std::vector<LiteralSample>>(count,
                                                              rc::gen::elementOf(Literals()));
      }));
}

rc::Gen<Sample> GenAtom() {
  return rc::gen::oneOf(
      GenCompare(), GenList(),
      rc::gen::map(rc::gen::elementOf(AttributeNames()),
                   [](const std::string& name) {
                     return Sample{"has(" + name + ")", [=](const Attributes& attributes) {
                                     return attributes.Find(name) != nullptr;
                                   }};
                   }),
      rc::gen::map(rc::gen::arbitrary<bool>(), [](bool value) {
        return Sample{value ? "true" : "false", [=](const Attributes&) { return value; }};
      }));
}

rc::Gen<Sample> GenOr(int depth);

// unary := "!" unary | "(" or ")" | atom
rc::Gen<Sample> GenUnary(int depth) {
  if (depth <= 0) return GenAtom();
  return rc::gen::weightedOneOf<Sample>({
      {4, GenAtom()},
      {1, rc::gen::map(rc::gen::lazy([depth] { return GenUnary(depth - 1); }),
                       [](const Sample& inner) {
                         return Sample{"!" + inner.text,
                                       [f = inner.matches](const Attributes& a) { return !f(a); }};
                       })},
      {2, rc::gen::map(rc::gen::lazy([depth] { return GenOr(depth - 1); }),
                       [](const Sample& inner) {
                         return Sample{"(" + inner.text + ")", inner.matches};
                       })},
  });
}

// Joins one to three operands with `op`, leaving precedence to the parser; the reference folds
// them the way the grammar says (`||` of `&&` chains).
rc::Gen<Sample> GenChain(rc::Gen<Sample> operand, std::string op, bool is_and) {
  return rc::gen::map(rc::gen::mapcat(rc::gen::inRange<std::size_t>(1, 4),
                                      [operand](std::size_t count) {
                                        return rc::gen::container<std::vector<Sample>>(count,
                                                                                       operand);
                                      }),
                      [op, is_and](const std::vector<Sample>& operands) {
                        std::string text;
                        std::vector<std::function<bool(const Attributes&)>> parts;
                        for (const auto& operand_sample : operands) {
                          text += (text.empty() ? "" : op) + operand_sample.text;
                          parts.push_back(operand_sample.matches);
                        }
                        return Sample{text, [parts, is_and](const Attributes& attributes) {
                                        for (const auto& part : parts) {
                                          if (part(attributes) != is_and) return !is_and;
                                        }
                                        return is_and;
                                      }};
                      });
}

rc::Gen<Sample> GenOr(int depth) {
  return GenChain(GenChain(GenUnary(depth), " && ", /*is_and=*/true), " || ", /*is_and=*/false);
}

RC_GTEST_PROP(SelectorProperty, ArbitraryBytesNeverCrashParse, (const std::string& text)) {
  auto selector = Selector::Parse(text);
  if (!selector) {
    RC_ASSERT(selector.error().message.rfind("column ", 0) == 0);
  } else {
    for (const auto& attributes : AttributeSets()) selector->Matches(attributes);
  }
}

RC_GTEST_PROP(SelectorProperty, TokenSoupNeverCrashesParse, ()) {
  // Random sequences of the language's own pieces reach far deeper than random bytes.
  const auto pieces = *rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "model", "a.b/c", "has", "in", "not", "true", "false", "(", ")", "[", "]", ",", "!", "&&",
      "||", "==", "!=", "<", "<=", ">", ">=", "=", "&", "\"x\"", "\"", "\\", "1", "-2.5", "1e9",
      " ", std::string(1, '\0')));
  std::string text;
  for (const auto& piece : pieces) text += piece;
  auto selector = Selector::Parse(text);
  if (!selector) {
    RC_ASSERT(selector.error().message.rfind("column ", 0) == 0);
  } else {
    for (const auto& attributes : AttributeSets()) selector->Matches(attributes);
  }
}

RC_GTEST_PROP(SelectorProperty, ValidExpressionsParseDeterministicallyAndMatchReference, ()) {
  const Sample sample = *GenOr(3);
  auto first = Selector::Parse(sample.text);
  RC_ASSERT(first.has_value());
  auto second = Selector::Parse(sample.text);
  RC_ASSERT(second.has_value());
  RC_ASSERT(first->text() == sample.text);
  RC_ASSERT(second->text() == first->text());
  for (const auto& attributes : AttributeSets()) {
    const bool expected = sample.matches(attributes);
    RC_ASSERT(first->Matches(attributes) == expected);
    RC_ASSERT(second->Matches(attributes) == expected);
  }
}

}  // namespace
}  // namespace headroom::model
