// Selector: a small, safe expression language that says which devices a request accepts, by
// their attributes. Examples:
//   model == "H100" && memory_gib >= 80
//   model in ["V100M16", "V100M32"]
//   !(interconnect == "pcie") || memory_gib > 40
// Grammar (precedence low to high):
//   expr    := or
//   or      := and ("||" and)*
//   and     := unary ("&&" unary)*
//   unary   := "!" unary | "(" expr ")" | compare | "true" | "false"
//   compare := IDENT ("==" | "!=" | "<" | "<=" | ">" | ">=") literal
//            | IDENT ("in" | "not in") "[" literal ("," literal)* "]"
//            | "has" "(" IDENT ")"
//   literal := STRING (double-quoted, \" and \\ escapes) | NUMBER
// IDENT is [A-Za-z_][A-Za-z0-9_.\-/]* (so `nvidia.com/mig` is one name), except the reserved
// words in, not, has, true, false. NUMBER is -?[0-9]+(\.[0-9]+)? and must be finite.
// Semantics: a comparison on an attribute the device lacks is false (so is `!=`); comparing a
// string attribute with a number (or the reverse) is false; `<`, `<=`, `>`, `>=` on strings
// compare bytewise. `x in [...]` is true when x equals some literal; `x not in [...]` is true
// when x has the type of some literal and equals none (so `x not in [a]` is `x != a`). The
// empty (or all-whitespace) selector matches every device.
// Promises: parsing never crashes, recursion depth is bounded (64 nested levels), and every
// error names the 1-based column: "column 12: expected a literal, got ']'".
// Threading: immutable after parsing; safe to share.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "model/attributes.h"

namespace headroom::model {

class Selector {
 public:
  // The empty selector: matches everything.
  Selector();

  static Result<Selector> Parse(std::string_view text);

  bool Matches(const Attributes& attributes) const;
  bool MatchesAll() const { return root_ == nullptr; }
  // The source text, normalised by trimming.
  const std::string& text() const { return text_; }

  struct Node;  // The parsed expression; defined in selector.cc.

 private:
  std::string text_;
  std::shared_ptr<const Node> root_;
};

}  // namespace headroom::model
