#include "model/yaml_field.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <sstream>
#include <unordered_set>

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>
#include <nlohmann/json.hpp>

#include "base/utf8.h"

namespace headroom::model {
namespace {

constexpr size_t kMaxQuoted = 60;
// A field path is made of the document's own keys, so a message shows at most this much of it.
constexpr size_t kMaxPathBytes = 96;

// `path` escaped, cut at a UTF-8 boundary after kMaxPathBytes ("..." marks the cut).
std::string PathForMessage(std::string_view path) {
  if (path.size() <= kMaxPathBytes) return PrintableLine(path);
  size_t cut = kMaxPathBytes;
  while (cut > 0 && (static_cast<unsigned char>(path[cut]) & 0xc0) == 0x80) --cut;
  return PrintableLine(path.substr(0, cut)) + "...";
}

int LineOf(const YAML::Node& node, int fallback) {
  const YAML::Mark mark = node.Mark();
  return mark.is_null() || mark.line < 0 ? fallback : mark.line + 1;
}

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

int LineOfMark(const YAML::Mark& mark, std::string_view text) {
  if (!mark.is_null() && mark.line >= 0) return mark.line + 1;
  return 1 + static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

// Notes where documents start and ignores everything else: the first pass that finds syntax
// errors and extra documents without building nodes (it scans the text as fully as the load).
class DocumentStarts : public YAML::EventHandler {
 public:
  void OnDocumentStart(const YAML::Mark& mark) override {
    if (first_start.is_null()) first_start = mark;
    last_start = mark;
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                       YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}

  YAML::Mark first_start = YAML::Mark::null_mark();
  YAML::Mark last_start = YAML::Mark::null_mark();
};

}  // namespace

std::string QuoteForMessage(std::string_view text) {
  std::string out = "\"";
  size_t shown = 0;
  for (const char c : text) {
    if (shown++ == kMaxQuoted) {
      out += "...";
      break;
    }
    AppendEscapedChar(out, c);
  }
  out += '"';
  return out;
}

std::string PrintableLine(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      AppendEscapedChar(out, c);
    } else if (byte == 0xc2 && i + 1 < text.size() &&
               static_cast<unsigned char>(text[i + 1]) < 0xa0 &&
               static_cast<unsigned char>(text[i + 1]) >= 0x80) {
      // A C1 control (U+0080..U+009F, such as CSI U+009B), which some terminals obey.
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(text[++i]));
    } else {
      out += c;
    }
  }
  return out;
}

void AppendEscapedChar(std::string& out, char c) {
  const auto byte = static_cast<unsigned char>(c);
  if (c == '"' || c == '\\') {
    out += '\\';
    out += c;
  } else if (c == '\n') {
    out += "\\n";
  } else if (c == '\t') {
    out += "\\t";
  } else if (byte < 0x20 || byte == 0x7f) {
    out += fmt::format("\\x{:02x}", byte);
  } else {
    out += c;
  }
}

bool LooksNumeric(std::string_view text) {
  size_t i = 0;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
  size_t digits = 0;
  while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  if (i < text.size() && text[i] == '.') {
    ++i;
    while (i < text.size() && IsDigit(text[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    size_t exponent_digits = 0;
    while (i < text.size() && IsDigit(text[i])) ++i, ++exponent_digits;
    if (exponent_digits == 0) return false;
  }
  return i == text.size();
}

YamlNesting YamlNestingBound(std::string_view text, size_t limit) {
  std::set<size_t> block_columns;
  size_t flow = 0;
  size_t deepest_flow = 0;
  char quote = 0;           // '"' or '\'' inside a quoted scalar.
  char previous = 0;        // The last character outside blanks, quotes and comments; 0: none yet.
  bool key_quoted = false;  // `previous` is a ':' right after a quoted scalar ("a":"b").
  size_t block_scalar_parent = std::string_view::npos;  // Lines deeper than this are its text.
  YamlNesting nesting;
  const auto bound = [&] { return 2 * block_columns.size() + deepest_flow; };
  for (size_t line_start = 0; line_start <= text.size() && bound() <= limit; ++nesting.line) {
    size_t line_end = text.find('\n', line_start);
    if (line_end == std::string_view::npos) line_end = text.size();
    std::string_view line = text.substr(line_start, line_end - line_start);
    line_start = line_end + 1;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    const size_t indent = line.find_first_not_of(" \t");
    if (block_scalar_parent != std::string_view::npos) {
      if (indent == std::string_view::npos || indent > block_scalar_parent) continue;
      block_scalar_parent = std::string_view::npos;
    }
    // Block structure: where this line's content starts, and where content starts after each
    // compact indicator ("- - a", "- key: value", "? key").
    size_t deepest_column = std::string_view::npos;
    if (indent != std::string_view::npos && line[indent] != '#') {
      for (size_t pos = indent; pos != std::string_view::npos && bound() <= limit;) {
        block_columns.insert(pos);
        deepest_column = pos;
        const bool indicator =
            (line[pos] == '-' || line[pos] == '?' || line[pos] == ':') &&
            (pos + 1 == line.size() || line[pos + 1] == ' ' || line[pos + 1] == '\t');
        pos = indicator ? line.find_first_not_of(" \t", pos + 1) : std::string_view::npos;
      }
    }
    // Flow structure: brackets outside quoted scalars and comments.
    size_t token_start = std::string_view::npos;  // The line's last token outside comments.
    size_t content_end = line.size();
    for (size_t i = 0; i < line.size(); ++i) {
      const char c = line[i];
      if (quote == '"') {
        if (c == '\\') {
          ++i;
        } else if (c == '"') {
          quote = 0;
          previous = c;
        }
        continue;
      }
      if (quote == '\'') {
        if (c == '\'' && i + 1 < line.size() && line[i + 1] == '\'') {
          ++i;
        } else if (c == '\'') {
          quote = 0;
          previous = c;
        }
        continue;
      }
      const bool after_blank = i == 0 || line[i - 1] == ' ' || line[i - 1] == '\t';
      if (c == ' ' || c == '\t') continue;
      if (c == '#' && after_blank) {
        content_end = i;
        break;
      }
      if (after_blank) token_start = i;
      if (c == '"' || c == '\'') {
        // A quoted scalar starts a token: after a flow indicator, after a block indicator and
        // a blank, at the start of the line's content, or as the value of a quoted key.
        const bool starts_token =
            previous == 0 || previous == '[' || previous == '{' || previous == ',' || i == indent ||
            (after_blank && (previous == ':' || previous == '-' || previous == '?')) ||
            (previous == ':' && key_quoted);
        if (starts_token) {
          quote = c;
          continue;
        }
      }
      if (c == '[' || c == '{') {
        deepest_flow = std::max(deepest_flow, ++flow);
      } else if ((c == ']' || c == '}') && flow > 0) {
        --flow;
      }
      key_quoted = c == ':' && (previous == '"' || previous == '\'');
      previous = c;
    }
    // "key: |" or "- >-": the lines indented deeper than this line's deepest content are the
    // scalar's text, not structure.
    if (quote == 0 && flow == 0 && token_start != std::string_view::npos &&
        deepest_column != std::string_view::npos) {
      std::string_view token = line.substr(token_start, content_end - token_start);
      while (!token.empty() && (token.back() == ' ' || token.back() == '\t'))
        token.remove_suffix(1);
      const bool block_scalar =
          !token.empty() && (token[0] == '|' || token[0] == '>') &&
          token.find_first_not_of("+-0123456789", 1) == std::string_view::npos;
      if (block_scalar) block_scalar_parent = deepest_column;
    }
  }
  nesting.bound = bound();
  --nesting.line;
  return nesting;
}

Result<YAML::Node> LoadYamlDocument(std::string_view text, std::string_view source) {
  // YAML is Unicode text; yaml-cpp passes other bytes through, and what is kept of them (a
  // policy's text, a name) could then not be written as JSON.
  if (const std::optional<size_t> bad = FirstInvalidUtf8(text)) {
    const std::string_view before = text.substr(0, *bad);
    const size_t newline = before.rfind('\n');
    const size_t line_start = newline == std::string_view::npos ? 0 : newline + 1;
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}:{}: expected UTF-8 text, got byte 0x{:02X} at column {}; save the file "
                     "as UTF-8",
                     source, std::count(before.begin(), before.end(), '\n') + 1,
                     static_cast<unsigned char>(text[*bad]), *bad - line_start + 1);
  }
  if (const YamlNesting nesting = YamlNestingBound(text, kMaxYamlNesting);
      nesting.bound > kMaxYamlNesting) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "{}:{}: document: expected lists and maps nested at most {} deep, got "
                     "deeper nesting; flatten the document",
                     source, nesting.line, kMaxYamlNesting);
  }
  const std::string copy(text);
  try {
    // Text that is one JSON value and nothing more (how the CLI and most clients submit) is one
    // YAML document: the pass that looks for a second one, which scans the whole text as the
    // load does again, is skipped for the JSON check, a small fraction of that.
    if (const size_t first = text.find_first_not_of(" \t\r\n");
        first != std::string_view::npos && (text[first] == '{' || text[first] == '[') &&
        nlohmann::json::accept(text)) {
      return YAML::Load(copy);
    }
    std::istringstream in(copy);
    YAML::Parser parser(in);
    DocumentStarts starts;
    if (parser.HandleNextDocument(starts) && parser.HandleNextDocument(starts)) {
      // A "document" that starts where the first did is yaml-cpp stuck on a stray token (a
      // lone ',' does it), not a second document.
      const int pos = starts.last_start.pos;
      if (pos == starts.first_start.pos && pos >= 0 && static_cast<size_t>(pos) < text.size()) {
        return MakeError(ErrorCode::kInvalidArgument, "{}:{}: YAML syntax error: unexpected {}",
                         source, LineOfMark(starts.last_start, text),
                         QuoteForMessage(text.substr(static_cast<size_t>(pos), 1)));
      }
      return MakeError(ErrorCode::kInvalidArgument,
                       "{}:{}: document: expected one YAML document, got a second one", source,
                       LineOfMark(starts.last_start, text));
    }
    return YAML::Load(copy);
  } catch (const YAML::Exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, "{}:{}: YAML syntax error: {}", source,
                     LineOfMark(e.mark, text), PrintableLine(e.msg));
  } catch (const std::exception& e) {
    return MakeError(ErrorCode::kInvalidArgument, "{}:1: cannot read YAML: {}", source,
                     PrintableLine(e.what()));
  }
}

YamlField::YamlField(YAML::Node node, std::string path, std::string_view source, int line)
    : node_(std::move(node)), path_(std::move(path)), source_(source), line_(line) {}

YamlField YamlField::Document(const YAML::Node& node, std::string_view source) {
  return YamlField(node, "", source, LineOf(node, 1));
}

std::string YamlField::Where() const {
  if (path_.empty()) return fmt::format("{}:{}: document", source_, line_);
  return fmt::format("{}:{}: field '{}'", source_, line_, PathForMessage(path_));
}

Error YamlField::Invalid(std::string_view expected) const { return Invalid(expected, Describe()); }

Error YamlField::Invalid(std::string_view expected, std::string_view got) const {
  return Error{ErrorCode::kInvalidArgument,
               fmt::format("{}: expected {}, got {}", Where(), expected, got)};
}

std::string YamlField::Describe() const {
  switch (node_.Type()) {
    case YAML::NodeType::Scalar:
      return QuoteForMessage(node_.Scalar());
    case YAML::NodeType::Sequence:
      return "a list";
    case YAML::NodeType::Map:
      return "a map";
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      break;
  }
  return "nothing";
}

Result<std::string> YamlField::Text() const {
  if (!node_.IsScalar()) return tl::unexpected(Invalid("text"));
  return node_.Scalar();
}

Result<std::string> YamlField::Name() const {
  if (!node_.IsScalar() || node_.Scalar().empty()) return tl::unexpected(Invalid("a name"));
  for (const char c : node_.Scalar()) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      return tl::unexpected(Invalid("a name without control characters"));
    }
  }
  return node_.Scalar();
}

Result<int64_t> YamlField::Integer(int64_t min, int64_t max, std::string_view expected) const {
  if (!node_.IsScalar()) return tl::unexpected(Invalid(expected));
  const std::string& text = node_.Scalar();
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size() || value < min ||
      value > max) {
    return tl::unexpected(Invalid(expected));
  }
  return value;
}

Result<double> YamlField::Number(double min, bool min_inclusive, double max,
                                 std::string_view expected) const {
  if (!node_.IsScalar() || !LooksNumeric(node_.Scalar())) {
    return tl::unexpected(Invalid(expected));
  }
  std::string_view text = node_.Scalar();
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  const bool above_min = min_inclusive ? value >= min : value > min;
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      !above_min || value > max) {
    return tl::unexpected(Invalid(expected));
  }
  return value;
}

Result<std::vector<YamlField>> YamlField::Items() const {
  if (!node_.IsSequence()) return tl::unexpected(Invalid("a list"));
  std::vector<YamlField> items;
  items.reserve(node_.size());
  size_t index = 0;
  for (auto it = node_.begin(); it != node_.end(); ++it, ++index) {
    YAML::Node item = *it;
    const int line = LineOf(item, line_);
    items.emplace_back(item, fmt::format("{}[{}]", path_, index), source_, line);
  }
  return items;
}

YamlField YamlField::Child(YAML::Node node, std::string_view key, int key_line) const {
  // A value left empty (`key:`) carries the mark of whatever follows it; the key's line is
  // where the reader looks.
  const int line = node.IsNull() ? key_line : LineOf(node, key_line);
  std::string path = path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  return YamlField(std::move(node), std::move(path), source_, line);
}

Result<YamlMap> YamlField::Map(std::initializer_list<std::string_view> allowed) const {
  return MapImpl(&allowed);
}

Result<YamlMap> YamlField::FreeMap() const { return MapImpl(nullptr); }

Result<YamlMap> YamlField::MapImpl(const std::initializer_list<std::string_view>* allowed) const {
  if (!node_.IsMap()) {
    return tl::unexpected(Invalid(path_.empty() ? "a map of top-level keys" : "a map"));
  }
  std::vector<std::pair<std::string, YamlField>> entries;
  std::unordered_set<std::string> seen;
  for (auto it = node_.begin(); it != node_.end(); ++it) {
    const YAML::Node key_node = it->first;
    const int key_line = LineOf(key_node, line_);
    if (!key_node.IsScalar() || key_node.Scalar().empty()) {
      YamlField key_field(key_node, path_, source_, key_line);
      return tl::unexpected(key_field.Invalid("a text key", key_field.Describe()));
    }
    std::string key = key_node.Scalar();
    YamlField value = Child(it->second, key, key_line);
    if (allowed != nullptr) {
      bool known = false;
      for (std::string_view name : *allowed) known = known || name == key;
      if (!known) {
        return tl::unexpected(
            value.Invalid(fmt::format("one of the keys {}", fmt::join(*allowed, ", ")),
                          fmt::format("unknown key {}", QuoteForMessage(key))));
      }
    } else if (auto name = YamlField(key_node, value.path(), source_, key_line).Name(); !name) {
      return tl::unexpected(name.error());
    }
    if (!seen.insert(key).second) {
      return tl::unexpected(value.Invalid("each key once", "a second " + QuoteForMessage(key)));
    }
    entries.emplace_back(std::move(key), std::move(value));
  }
  return YamlMap(*this, std::move(entries));
}

const YamlField* YamlMap::Find(std::string_view key) const {
  for (const auto& [name, field] : entries_) {
    if (name == key) return &field;
  }
  return nullptr;
}

Error YamlMap::Missing(std::string_view key, std::string_view expected) const {
  return self_.Child(YAML::Node(), key, self_.line()).Invalid(expected, "nothing");
}

Result<YamlField> YamlMap::Require(std::string_view key, std::string_view expected) const {
  if (const YamlField* field = Find(key)) return *field;
  return tl::unexpected(Missing(key, expected));
}

}  // namespace headroom::model
