// YamlField: one node of a parsed YAML document together with where it sits — the source name,
// its 1-based line (from yaml-cpp marks) and its field path such as
// "topology[0].children[1].nodes[3].devices.count" — so that every validation error reads
//   file:line: field 'path': expected <what was expected>, got <what was there>
// on exactly one line. Typed accessors (names, integers, numbers, lists, maps with a fixed set
// of allowed keys) return Result values and never throw; nothing here recurses into a node, so
// documents with cyclic aliases (`&a [*a]`) are safe to inspect.
//
// Threading: a YamlField refers to the yaml-cpp document and the source string it was made
// from; both must outlive it. Single-threaded.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "base/result.h"

// Evaluates a Result-returning expression into `var`, or returns its error from the caller
// (whose return type must be a Result or tl::expected<void, Error>).
#define YAML_FIELD_TRY(var, expr) \
  auto var = (expr);              \
  if (!var) return tl::unexpected(std::move(var).error())

namespace headroom::model {

class YamlMap;

class YamlField {
 public:
  // `line` is 1-based and used when the node carries no mark of its own.
  YamlField(YAML::Node node, std::string path, std::string_view source, int line);

  // The whole document: path "" (printed as "document"), line from its mark or 1.
  static YamlField Document(const YAML::Node& node, std::string_view source);

  const YAML::Node& node() const { return node_; }
  const std::string& path() const { return path_; }
  int line() const { return line_; }
  std::string_view source() const { return source_; }

  bool IsNull() const { return node_.IsNull(); }
  bool IsMap() const { return node_.IsMap(); }
  bool IsList() const { return node_.IsSequence(); }
  bool IsScalar() const { return node_.IsScalar(); }

  // "file:line: field 'path'" (or "file:line: document" for the root).
  std::string Where() const;
  // "<where>: expected <expected>, got <Describe()>".
  Error Invalid(std::string_view expected) const;
  // "<where>: expected <expected>, got <got>".
  Error Invalid(std::string_view expected, std::string_view got) const;
  // What the node holds, for "got ...": a quoted scalar, "nothing", "a list" or "a map".
  std::string Describe() const;

  // A scalar's text, as written (quoted or not).
  Result<std::string> Text() const;
  // A non-empty scalar without control characters: names of domains, nodes, levels, classes.
  Result<std::string> Name() const;
  // A decimal integer in [min, max]; `expected` phrases the range ("a positive integer").
  Result<int64_t> Integer(int64_t min, int64_t max, std::string_view expected) const;
  // A finite decimal number in (or at) the bounds; `expected` phrases the range.
  Result<double> Number(double min, bool min_inclusive, double max,
                        std::string_view expected) const;
  // The items of a list, each with path "path[i]".
  Result<std::vector<YamlField>> Items() const;
  // A map whose keys must all be in `allowed`; duplicate and non-text keys are errors too.
  Result<YamlMap> Map(std::initializer_list<std::string_view> allowed) const;
  // A map with free-form keys (each a Name()), for named templates and attributes.
  Result<YamlMap> FreeMap() const;

  // A child field of this one (used by YamlMap).
  YamlField Child(YAML::Node node, std::string_view key, int key_line) const;

 private:
  Result<YamlMap> MapImpl(const std::initializer_list<std::string_view>* allowed) const;

  YAML::Node node_;
  std::string path_;
  std::string_view source_;
  int line_ = 1;
};

// The entries of a YAML map, in document order, keyed by text.
class YamlMap {
 public:
  YamlMap(YamlField self, std::vector<std::pair<std::string, YamlField>> entries)
      : self_(std::move(self)), entries_(std::move(entries)) {}

  const YamlField& self() const { return self_; }
  const std::vector<std::pair<std::string, YamlField>>& entries() const { return entries_; }
  bool Has(std::string_view key) const { return Find(key) != nullptr; }
  const YamlField* Find(std::string_view key) const;
  // The field, or "field 'path.key': expected <expected>, got nothing" at the map's line.
  Result<YamlField> Require(std::string_view key, std::string_view expected) const;
  // An error about a key that is absent, placed at the map's line.
  Error Missing(std::string_view key, std::string_view expected) const;

 private:
  YamlField self_;
  std::vector<std::pair<std::string, YamlField>> entries_;
};

// How deep a YAML document may nest collections, as YamlNestingBound counts them.
inline constexpr size_t kMaxYamlNesting = 64;

// Parses `text` as exactly one YAML document (empty text gives a null node). Syntax errors
// read "source:line: YAML syntax error: ...", a second document "source:line: document:
// expected one YAML document, got a second one". Never throws, and never loops: yaml-cpp 0.7
// can report endless empty documents after some malformed input, so at most two are read.
// A document that YamlNestingBound finds nested deeper than kMaxYamlNesting is refused before
// yaml-cpp (whose parser recurses once per level) reads it.
Result<YAML::Node> LoadYamlDocument(std::string_view text, std::string_view source);

// A bound on how deep `text` nests collections, from one pass over its bytes that allocates
// little and stops once past `limit`. Block collections nest by indentation: a nested one
// starts at a greater column, or at the same column for a sequence under a key, so their depth
// is at most twice the number of distinct columns where a line's content, or the content after
// a compact "- "/"? "/": " indicator, starts (the lines of a block scalar excepted). Flow
// collections nest by brackets, counted outside quoted scalars and comments. The bound is the
// sum, and counts brackets inside plain scalars too (`a: b[` reads as one level more). A
// document that hides brackets from this count by quoting games still meets yaml-cpp's own
// limit (DepthGuard, 2000 levels), which throws rather than overflowing the stack.
struct YamlNesting {
  size_t bound = 0;
  int line = 1;  // Where the bound first passed the limit (else the last line read).
};
YamlNesting YamlNestingBound(std::string_view text, size_t limit);

// `text` in double quotes with backslash escapes for quotes, backslashes and control bytes,
// cut to 60 characters — safe to embed in a one-line message.
std::string QuoteForMessage(std::string_view text);

// `text` with its control bytes escaped as AppendEscapedChar does (and C1 controls, U+0080..
// U+009F, as \u0080..\u009f) and nothing else changed: user-chosen names (keys, job names) may
// hold any byte, an error message stays one line, and a terminal that prints it obeys none.
std::string PrintableLine(std::string_view text);

// Appends `c` as it stands inside a double-quoted YAML scalar: quotes and backslashes escaped,
// newline and tab as \n and \t, other control bytes as \xNN.
void AppendEscapedChar(std::string& out, char c);

// True when `text` reads as a decimal number: [+-] digits [. digits] [e [+-] digits], with at
// least one digit before the exponent. Plain YAML scalars that look like this are numbers;
// anything else is a string.
bool LooksNumeric(std::string_view text);

}  // namespace headroom::model
