#include "model/selector.h"

#include <charconv>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "base/check.h"

namespace headroom::model {

// The parsed expression. `&&` and `||` chains are n-ary (one node, many children) rather than
// left-deep binary trees, so a long flat chain costs no recursion in evaluation or destruction;
// only `!` and `(` nest, and the parser bounds them.
struct Selector::Node {
  enum class Kind { kTrue, kFalse, kNot, kAnd, kOr, kCompare, kIn, kNotIn, kHas };
  enum class Op { kEq, kNe, kLt, kLe, kGt, kGe };

  Kind kind = Kind::kTrue;
  Op op = Op::kEq;                                    // kCompare only.
  std::string attribute;                              // kCompare, kIn, kNotIn, kHas.
  std::vector<AttributeValue> literals;               // kCompare (one), kIn, kNotIn (one or more).
  std::vector<std::unique_ptr<const Node>> children;  // kNot (one), kAnd, kOr (two or more).
};

namespace {

using Node = Selector::Node;
using NodePtr = std::unique_ptr<const Node>;

constexpr int kMaxNesting = 64;
// Error messages quote at most this many bytes of a token, so a huge token stays readable.
constexpr std::size_t kMaxQuotedBytes = 24;
constexpr std::string_view kWhitespace = " \t\n\r\f\v";

bool IsSpace(char c) { return kWhitespace.find(c) != std::string_view::npos; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsAlpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
bool IsIdentStart(char c) { return IsAlpha(c) || c == '_'; }
bool IsIdentChar(char c) {
  return IsAlpha(c) || IsDigit(c) || c == '_' || c == '.' || c == '-' || c == '/';
}
// A number token runs over these so that `5gpu` or `1.2.3` is one bad number, not two tokens.
bool IsNumberChar(char c) { return IsAlpha(c) || IsDigit(c) || c == '_' || c == '.'; }

std::string_view Trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(kWhitespace);
  if (first == std::string_view::npos) return {};
  const std::size_t last = text.find_last_not_of(kWhitespace);
  return text.substr(first, last - first + 1);
}

// Printable ASCII as is, every other byte (NUL, control, non-ASCII) as \xNN; long text is cut.
std::string Escape(std::string_view bytes) {
  std::string out;
  for (std::size_t i = 0; i < bytes.size() && i < kMaxQuotedBytes; ++i) {
    const auto byte = static_cast<unsigned char>(bytes[i]);
    if (byte >= 0x20 && byte < 0x7f) {
      out += static_cast<char>(byte);
    } else {
      out += fmt::format("\\x{:02X}", byte);
    }
  }
  if (bytes.size() > kMaxQuotedBytes) out += "...";
  return out;
}

enum class TokenKind {
  kEnd,
  kIdent,
  kString,
  kNumber,  // Not yet validated: any run that starts with a digit or '-'.
  kLParen,
  kRParen,
  kLBracket,
  kRBracket,
  kComma,
  kBang,
  kAnd,
  kOr,
  kEq,
  kNe,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kNot,
  kHas,
  kTrue,
  kFalse,
  kInvalid,  // A byte that starts no token, such as a lone '=' or '&'.
  kError,    // A malformed string literal; `value` holds the whole message.
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::size_t offset = 0;   // Byte offset into the text; the column is offset + 1.
  std::string_view source;  // The bytes as written.
  std::string value;        // kString: the unescaped contents. kError: the message.
};

// What a message says was found: "end of input", "'&&'", "\"abc\"".
std::string Describe(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of input";
  if (token.kind == TokenKind::kString) return Escape(token.source);
  return fmt::format("'{}'", Escape(token.source));
}

// Produces one token at a time, so the parser reports the first problem from the left even when
// a later part of the text would not lex.
class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  Token Next() {
    while (pos_ < text_.size() && IsSpace(text_[pos_])) ++pos_;
    if (pos_ >= text_.size())
      return Token{.kind = TokenKind::kEnd, .offset = text_.size(), .source = {}, .value = {}};
    const char c = text_[pos_];
    const char next = pos_ + 1 < text_.size() ? text_[pos_ + 1] : '\0';
    switch (c) {
      case '(':
        return Take(TokenKind::kLParen, 1);
      case ')':
        return Take(TokenKind::kRParen, 1);
      case '[':
        return Take(TokenKind::kLBracket, 1);
      case ']':
        return Take(TokenKind::kRBracket, 1);
      case ',':
        return Take(TokenKind::kComma, 1);
      case '!':
        return next == '=' ? Take(TokenKind::kNe, 2) : Take(TokenKind::kBang, 1);
      case '=':
        return next == '=' ? Take(TokenKind::kEq, 2) : Take(TokenKind::kInvalid, 1);
      case '<':
        return next == '=' ? Take(TokenKind::kLe, 2) : Take(TokenKind::kLt, 1);
      case '>':
        return next == '=' ? Take(TokenKind::kGe, 2) : Take(TokenKind::kGt, 1);
      case '&':
        return next == '&' ? Take(TokenKind::kAnd, 2) : Take(TokenKind::kInvalid, 1);
      case '|':
        return next == '|' ? Take(TokenKind::kOr, 2) : Take(TokenKind::kInvalid, 1);
      case '"':
        return LexString();
      default:
        break;
    }
    if (c == '-' || IsDigit(c)) {
      std::size_t end = pos_ + 1;
      while (end < text_.size() && IsNumberChar(text_[end])) ++end;
      return Take(TokenKind::kNumber, end - pos_);
    }
    if (IsIdentStart(c)) {
      std::size_t end = pos_ + 1;
      while (end < text_.size() && IsIdentChar(text_[end])) ++end;
      const std::string_view word = text_.substr(pos_, end - pos_);
      TokenKind kind = TokenKind::kIdent;
      if (word == "in") kind = TokenKind::kIn;
      if (word == "not") kind = TokenKind::kNot;
      if (word == "has") kind = TokenKind::kHas;
      if (word == "true") kind = TokenKind::kTrue;
      if (word == "false") kind = TokenKind::kFalse;
      return Take(kind, end - pos_);
    }
    return Take(TokenKind::kInvalid, 1);
  }

 private:
  Token Take(TokenKind kind, std::size_t length) {
    Token token{.kind = kind, .offset = pos_, .source = text_.substr(pos_, length), .value = {}};
    pos_ += length;
    return token;
  }

  // A double-quoted string with \" and \\ escapes; any other byte stands for itself.
  Token LexString() {
    const std::size_t start = pos_;
    std::string value;
    std::size_t pos = start + 1;
    while (pos < text_.size()) {
      const char c = text_[pos];
      if (c == '"') {
        pos_ = pos + 1;
        return Token{.kind = TokenKind::kString,
                     .offset = start,
                     .source = text_.substr(start, pos_ - start),
                     .value = std::move(value)};
      }
      if (c == '\\') {
        if (pos + 1 >= text_.size()) break;  // Unterminated; reported below.
        const char escaped = text_[pos + 1];
        if (escaped != '"' && escaped != '\\') {
          return Fail(fmt::format("column {}: expected '\"' or '\\' after a backslash, got '{}'",
                                  pos + 2, Escape(text_.substr(pos + 1, 1))));
        }
        value += escaped;
        pos += 2;
        continue;
      }
      value += c;
      ++pos;
    }
    return Fail(
        fmt::format("column {}: expected '\"' closing the string opened at column {}, got "
                    "end of input",
                    text_.size() + 1, start + 1));
  }

  Token Fail(std::string message) {
    Token token{
        .kind = TokenKind::kError, .offset = pos_, .source = {}, .value = std::move(message)};
    pos_ = text_.size();
    return token;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

// -?[0-9]+(\.[0-9]+)?
bool IsDecimal(std::string_view text) {
  std::size_t pos = 0;
  if (pos < text.size() && text[pos] == '-') ++pos;
  const std::size_t integer_start = pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  if (pos == integer_start) return false;
  if (pos == text.size()) return true;
  if (text[pos] != '.') return false;
  const std::size_t fraction_start = ++pos;
  while (pos < text.size() && IsDigit(text[pos])) ++pos;
  return pos > fraction_start && pos == text.size();
}

// Recursive descent over the grammar in selector.h, one token of lookahead. Every failure
// names the column of the token that did not fit and what would have.
class Parser {
 public:
  explicit Parser(std::string_view text) : lexer_(text) { Advance(); }

  Result<NodePtr> ParseExpression() {
    auto root = ParseOr(0);
    if (!root) return root;
    if (current_.kind != TokenKind::kEnd) return Fail("'&&', '||' or end of input");
    return root;
  }

 private:
  void Advance() { current_ = lexer_.Next(); }

  tl::unexpected<Error> Fail(std::string_view expected) const {
    if (current_.kind == TokenKind::kError) {
      return MakeError(ErrorCode::kInvalidArgument, "{}", current_.value);
    }
    return MakeError(ErrorCode::kInvalidArgument, "column {}: expected {}, got {}",
                     current_.offset + 1, expected, Describe(current_));
  }

  // or := and ("||" and)*
  Result<NodePtr> ParseOr(int depth) {
    return ParseChain(depth, TokenKind::kOr, Node::Kind::kOr, &Parser::ParseAnd);
  }

  // and := unary ("&&" unary)*
  Result<NodePtr> ParseAnd(int depth) {
    return ParseChain(depth, TokenKind::kAnd, Node::Kind::kAnd, &Parser::ParseUnary);
  }

  Result<NodePtr> ParseChain(int depth, TokenKind separator, Node::Kind kind,
                             Result<NodePtr> (Parser::*operand)(int)) {
    auto first = (this->*operand)(depth);
    if (!first) return first;
    if (current_.kind != separator) return first;
    auto node = std::make_unique<Node>();
    node->kind = kind;
    node->children.push_back(std::move(*first));
    while (current_.kind == separator) {
      Advance();
      auto next = (this->*operand)(depth);
      if (!next) return next;
      node->children.push_back(std::move(*next));
    }
    return node;
  }

  // unary := "!" unary | "(" expr ")" | compare | "true" | "false"
  // `depth` counts the '!' and '(' that enclose the current position.
  Result<NodePtr> ParseUnary(int depth) {
    switch (current_.kind) {
      case TokenKind::kBang: {
        if (depth >= kMaxNesting) return NestingError();
        Advance();
        auto operand = ParseUnary(depth + 1);
        if (!operand) return operand;
        auto node = std::make_unique<Node>();
        node->kind = Node::Kind::kNot;
        node->children.push_back(std::move(*operand));
        return node;
      }
      case TokenKind::kLParen: {
        if (depth >= kMaxNesting) return NestingError();
        Advance();
        auto inner = ParseOr(depth + 1);
        if (!inner) return inner;
        if (current_.kind != TokenKind::kRParen) return Fail("'&&', '||' or ')'");
        Advance();
        return inner;
      }
      case TokenKind::kTrue:
      case TokenKind::kFalse: {
        auto node = std::make_unique<Node>();
        node->kind = current_.kind == TokenKind::kTrue ? Node::Kind::kTrue : Node::Kind::kFalse;
        Advance();
        return node;
      }
      case TokenKind::kHas:
        return ParseHas();
      case TokenKind::kIdent:
        return ParseCompare();
      default:
        return Fail("an attribute name");
    }
  }

  tl::unexpected<Error> NestingError() const {
    return MakeError(ErrorCode::kInvalidArgument,
                     "column {}: expected at most {} levels of nesting, got {}",
                     current_.offset + 1, kMaxNesting, kMaxNesting + 1);
  }

  // "has" "(" IDENT ")"
  Result<NodePtr> ParseHas() {
    Advance();
    if (current_.kind != TokenKind::kLParen) return Fail("'(' after 'has'");
    Advance();
    if (current_.kind != TokenKind::kIdent) return Fail("an attribute name");
    auto node = std::make_unique<Node>();
    node->kind = Node::Kind::kHas;
    node->attribute = std::string(current_.source);
    Advance();
    if (current_.kind != TokenKind::kRParen) return Fail("')'");
    Advance();
    return node;
  }

  // IDENT op literal | IDENT ("in" | "not in") "[" literal ("," literal)* "]"
  Result<NodePtr> ParseCompare() {
    auto node = std::make_unique<Node>();
    node->attribute = std::string(current_.source);
    Advance();
    switch (current_.kind) {
      case TokenKind::kEq:
      case TokenKind::kNe:
      case TokenKind::kLt:
      case TokenKind::kLe:
      case TokenKind::kGt:
      case TokenKind::kGe: {
        node->kind = Node::Kind::kCompare;
        node->op = ToOp(current_.kind);
        Advance();
        auto literal = ParseLiteral();
        if (!literal) return tl::unexpected(std::move(literal.error()));
        node->literals.push_back(std::move(*literal));
        return node;
      }
      case TokenKind::kIn:
        node->kind = Node::Kind::kIn;
        Advance();
        break;
      case TokenKind::kNot:
        node->kind = Node::Kind::kNotIn;
        Advance();
        if (current_.kind != TokenKind::kIn) return Fail("'in' after 'not'");
        Advance();
        break;
      default:
        return Fail("an operator (==, !=, <, <=, >, >=, in or not in)");
    }
    if (current_.kind != TokenKind::kLBracket) return Fail("'['");
    Advance();
    while (true) {
      auto literal = ParseLiteral();
      if (!literal) return tl::unexpected(std::move(literal.error()));
      node->literals.push_back(std::move(*literal));
      if (current_.kind == TokenKind::kRBracket) break;
      if (current_.kind != TokenKind::kComma) return Fail("',' or ']'");
      Advance();
    }
    Advance();
    return node;
  }

  static Node::Op ToOp(TokenKind kind) {
    switch (kind) {
      case TokenKind::kEq:
        return Node::Op::kEq;
      case TokenKind::kNe:
        return Node::Op::kNe;
      case TokenKind::kLt:
        return Node::Op::kLt;
      case TokenKind::kLe:
        return Node::Op::kLe;
      case TokenKind::kGt:
        return Node::Op::kGt;
      case TokenKind::kGe:
        return Node::Op::kGe;
      default:
        break;
    }
    HR_CHECK(false && "not a comparison operator");
    return Node::Op::kEq;
  }

  // literal := STRING | NUMBER
  Result<AttributeValue> ParseLiteral() {
    if (current_.kind == TokenKind::kString) {
      AttributeValue value = std::move(current_.value);
      Advance();
      return value;
    }
    if (current_.kind != TokenKind::kNumber) return Fail("a literal");
    auto number = ToNumber(current_.source);
    if (!number) return tl::unexpected(std::move(number.error()));
    Advance();
    return AttributeValue(*number);
  }

  Result<double> ToNumber(std::string_view text) const {
    if (!IsDecimal(text)) return Fail("a number");
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error == std::errc::result_out_of_range) {
      // Too large is an error; too small to represent (0.000…0001) rounds to zero.
      const std::size_t digits = text.find_first_not_of("-0");
      if (digits != std::string_view::npos && text[digits] != '.') return Fail("a finite number");
      return text.front() == '-' ? -0.0 : 0.0;
    }
    if (error != std::errc() || end != text.data() + text.size()) return Fail("a number");
    if (!std::isfinite(value)) return Fail("a finite number");
    return value;
  }

  Lexer lexer_;
  Token current_;
};

template <typename T>
bool Apply(Node::Op op, const T& lhs, const T& rhs) {
  switch (op) {
    case Node::Op::kEq:
      return lhs == rhs;
    case Node::Op::kNe:
      return lhs != rhs;
    case Node::Op::kLt:
      return lhs < rhs;
    case Node::Op::kLe:
      return lhs <= rhs;
    case Node::Op::kGt:
      return lhs > rhs;
    case Node::Op::kGe:
      return lhs >= rhs;
  }
  return false;
}

// A string and a number never compare true, whatever the operator. std::string compares
// through char_traits<char>, which orders bytes as unsigned char: bytewise.
bool Compare(Node::Op op, const AttributeValue& attribute, const AttributeValue& literal) {
  if (attribute.index() != literal.index()) return false;
  if (const auto* text = std::get_if<std::string>(&attribute)) {
    return Apply(op, *text, std::get<std::string>(literal));
  }
  return Apply(op, std::get<double>(attribute), std::get<double>(literal));
}

bool Evaluate(const Node& node, const Attributes& attributes) {
  switch (node.kind) {
    case Node::Kind::kTrue:
      return true;
    case Node::Kind::kFalse:
      return false;
    case Node::Kind::kNot:
      return !Evaluate(*node.children.front(), attributes);
    case Node::Kind::kAnd:
      for (const auto& child : node.children) {
        if (!Evaluate(*child, attributes)) return false;
      }
      return true;
    case Node::Kind::kOr:
      for (const auto& child : node.children) {
        if (Evaluate(*child, attributes)) return true;
      }
      return false;
    case Node::Kind::kHas:
      return attributes.Find(node.attribute) != nullptr;
    case Node::Kind::kCompare: {
      const AttributeValue* value = attributes.Find(node.attribute);
      return value != nullptr && Compare(node.op, *value, node.literals.front());
    }
    case Node::Kind::kIn: {
      const AttributeValue* value = attributes.Find(node.attribute);
      if (value == nullptr) return false;
      for (const auto& literal : node.literals) {
        if (Compare(Node::Op::kEq, *value, literal)) return true;
      }
      return false;
    }
    case Node::Kind::kNotIn: {
      // True when some literal has the attribute's type and none equals it; literals of the
      // other type are ignored, so `x not in [a]` is exactly `x != a`.
      const AttributeValue* value = attributes.Find(node.attribute);
      if (value == nullptr) return false;
      bool comparable = false;
      for (const auto& literal : node.literals) {
        if (literal.index() != value->index()) continue;
        comparable = true;
        if (Compare(Node::Op::kEq, *value, literal)) return false;
      }
      return comparable;
    }
  }
  HR_CHECK(false && "unknown selector node kind");
  return false;
}

}  // namespace

Selector::Selector() = default;

Result<Selector> Selector::Parse(std::string_view text) {
  const std::string_view trimmed = Trim(text);
  Selector selector;
  if (trimmed.empty()) return selector;
  // Columns count from the start of `text` as given, not of the trimmed copy.
  auto root = Parser(text).ParseExpression();
  if (!root) return tl::unexpected(std::move(root.error()));
  selector.text_ = std::string(trimmed);
  selector.root_ = std::move(*root);
  return selector;
}

bool Selector::Matches(const Attributes& attributes) const {
  return root_ == nullptr || Evaluate(*root_, attributes);
}

}  // namespace headroom::model
