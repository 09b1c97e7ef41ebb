#include "model/prometheus_text.h"

#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <utility>

#include "model/yaml_field.h"

namespace headroom::model {
namespace {

bool IsMetricStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':';
}
bool IsMetricChar(char c) { return IsMetricStart(c) || (c >= '0' && c <= '9'); }
bool IsLabelStart(char c) { return IsMetricStart(c) && c != ':'; }
bool IsLabelChar(char c) { return IsMetricChar(c) && c != ':'; }
bool IsBlank(char c) { return c == ' ' || c == '\t'; }

// Lower-cases ASCII letters, for the case-insensitive special values Go's ParseFloat accepts.
std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// A float as Go's strconv.ParseFloat reads it in the exposition: an optional sign, then a
// decimal number, "Inf"/"Infinity" or "NaN" (any case). Hexadecimal floats are not accepted.
std::optional<double> ParseFloat(std::string_view text) {
  if (text.empty()) return std::nullopt;
  bool negative = false;
  std::string_view body = text;
  if (body.front() == '+' || body.front() == '-') {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (body.empty()) return std::nullopt;
  const std::string lower = Lower(body);
  if (lower == "inf" || lower == "infinity") {
    const double inf = std::numeric_limits<double>::infinity();
    return negative ? -inf : inf;
  }
  if (lower == "nan") return std::numeric_limits<double>::quiet_NaN();
  // from_chars would accept "nan(...)" and "inf" forms already handled; demand a digit or dot.
  const char first = body.front();
  if (!(first == '.' || (first >= '0' && first <= '9'))) return std::nullopt;
  double value = 0.0;
  const auto [end, error] =
      std::from_chars(body.data(), body.data() + body.size(), value, std::chars_format::general);
  if (end != body.data() + body.size()) return std::nullopt;
  if (error == std::errc::result_out_of_range) {
    // Go returns ±Inf (overflow) or 0 (underflow) with an error that exporters never emit; a
    // strict reader refuses both.
    return std::nullopt;
  }
  if (error != std::errc()) return std::nullopt;
  return negative ? -value : value;
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  if (text.empty()) return std::nullopt;
  std::string_view digits = text;
  if (digits.front() == '-') digits.remove_prefix(1);
  if (digits.empty() || digits.front() < '0' || digits.front() > '9') return std::nullopt;
  int64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Parses one line at a time; `pos_` walks the line.
class LineParser {
 public:
  LineParser(std::string_view line, int number) : line_(line), number_(number) {}

  Error Fail(std::string_view expected) const {
    const std::string_view rest = line_.substr(pos_);
    const std::string got = rest.empty() ? "the end of the line" : QuoteForMessage(rest);
    return Error{ErrorCode::kInvalidArgument,
                 fmt::format("line {}: expected {}, got {}", number_, expected, got)};
  }

  void SkipBlanks() {
    while (pos_ < line_.size() && IsBlank(line_[pos_])) ++pos_;
  }
  bool AtEnd() const { return pos_ >= line_.size(); }
  char Peek() const { return line_[pos_]; }

  std::string_view ReadMetricName() {
    const size_t start = pos_;
    if (pos_ < line_.size() && IsMetricStart(line_[pos_])) {
      ++pos_;
      while (pos_ < line_.size() && IsMetricChar(line_[pos_])) ++pos_;
    }
    return line_.substr(start, pos_ - start);
  }

  std::string_view ReadLabelName() {
    const size_t start = pos_;
    if (pos_ < line_.size() && IsLabelStart(line_[pos_])) {
      ++pos_;
      while (pos_ < line_.size() && IsLabelChar(line_[pos_])) ++pos_;
    }
    return line_.substr(start, pos_ - start);
  }

  // A token up to the next blank or the end of the line.
  std::string_view ReadToken() {
    const size_t start = pos_;
    while (pos_ < line_.size() && !IsBlank(line_[pos_])) ++pos_;
    return line_.substr(start, pos_ - start);
  }

  std::string_view Rest() const { return line_.substr(pos_); }

  Result<std::string> ReadQuotedValue() {
    if (AtEnd() || Peek() != '"') return tl::unexpected(Fail("'\"' opening a label value"));
    ++pos_;
    std::string value;
    while (pos_ < line_.size()) {
      const char c = line_[pos_++];
      if (c == '"') return value;
      if (c != '\\') {
        value += c;
        continue;
      }
      if (pos_ >= line_.size()) break;
      const char escaped = line_[pos_++];
      if (escaped == '\\' || escaped == '"') {
        value += escaped;
      } else if (escaped == 'n') {
        value += '\n';
      } else {
        pos_ -= 2;
        return tl::unexpected(Fail("an escape \\\\, \\\" or \\n in a label value"));
      }
    }
    return tl::unexpected(Fail("'\"' closing the label value"));
  }

  Result<PrometheusSample> Sample() {
    PrometheusSample sample;
    sample.line = number_;
    const std::string_view name = ReadMetricName();
    if (name.empty()) return tl::unexpected(Fail("a metric name"));
    sample.name = std::string(name);
    SkipBlanks();
    if (!AtEnd() && Peek() == '{') {
      ++pos_;
      if (auto labels = Labels(); !labels)
        return tl::unexpected(std::move(labels).error());
      else
        sample.labels = std::move(*labels);
      SkipBlanks();
    }
    const size_t value_start = pos_;
    const std::string_view value_text = ReadToken();
    const std::optional<double> value = ParseFloat(value_text);
    if (!value) {
      pos_ = value_start;
      return tl::unexpected(Fail(fmt::format("a sample value for {}", sample.name)));
    }
    sample.value = *value;
    SkipBlanks();
    if (!AtEnd()) {
      const size_t timestamp_start = pos_;
      const std::optional<int64_t> timestamp = ParseInteger(ReadToken());
      if (!timestamp) {
        pos_ = timestamp_start;
        return tl::unexpected(Fail("an integer timestamp in milliseconds or the end of the line"));
      }
      sample.timestamp_ms = *timestamp;
      SkipBlanks();
      if (!AtEnd()) return tl::unexpected(Fail("the end of the line after the timestamp"));
    }
    return sample;
  }

 private:
  // After '{': label pairs up to the closing '}'.
  Result<std::vector<PrometheusLabel>> Labels() {
    std::vector<PrometheusLabel> labels;
    std::set<std::string, std::less<>> seen;
    while (true) {
      SkipBlanks();
      if (!AtEnd() && Peek() == '}') {
        ++pos_;
        return labels;
      }
      const size_t name_start = pos_;
      const std::string_view label_name = ReadLabelName();
      if (label_name.empty()) return tl::unexpected(Fail("a label name or '}'"));
      if (!seen.insert(std::string(label_name)).second) {
        pos_ = name_start;
        return tl::unexpected(
            Fail(fmt::format("a label name not already given, not '{}' again", label_name)));
      }
      SkipBlanks();
      if (AtEnd() || Peek() != '=') return tl::unexpected(Fail("'=' after the label name"));
      ++pos_;
      SkipBlanks();
      auto value = ReadQuotedValue();
      if (!value) return tl::unexpected(std::move(value).error());
      labels.push_back({std::string(label_name), std::move(*value)});
      SkipBlanks();
      if (!AtEnd() && Peek() == ',') {
        ++pos_;
        continue;
      }
      if (!AtEnd() && Peek() == '}') {
        ++pos_;
        return labels;
      }
      return tl::unexpected(Fail("',' or '}' after a label value"));
    }
  }

  std::string_view line_;
  size_t pos_ = 0;
  int number_ = 0;
};

// `# HELP name text`, `# TYPE name type` or any other comment.
tl::expected<void, Error> ParseComment(std::string_view line, int number,
                                       std::set<std::string, std::less<>>& typed) {
  const size_t hash = line.find('#');
  std::string_view rest = line.substr(hash + 1);
  const size_t keyword_start = rest.find_first_not_of(" \t");
  if (keyword_start == std::string_view::npos) return {};
  rest.remove_prefix(keyword_start);
  const bool help = rest.starts_with("HELP") && (rest.size() == 4 || IsBlank(rest[4]));
  const bool type = rest.starts_with("TYPE") && (rest.size() == 4 || IsBlank(rest[4]));
  if (!help && !type) return {};
  LineParser fields(rest.substr(4), number);
  fields.SkipBlanks();
  const std::string_view name = fields.ReadMetricName();
  if (name.empty()) return tl::unexpected(fields.Fail("a metric name after HELP or TYPE"));
  if (!fields.AtEnd() && !IsBlank(fields.Peek())) {
    return tl::unexpected(fields.Fail("a blank after the metric name"));
  }
  if (help) return {};  // The docstring is free text (escapes are not checked: it is unused).
  fields.SkipBlanks();
  const std::string_view kind = fields.ReadToken();
  if (kind != "counter" && kind != "gauge" && kind != "histogram" && kind != "summary" &&
      kind != "untyped") {
    return tl::unexpected(
        Error{ErrorCode::kInvalidArgument,
              fmt::format("line {}: expected a metric type (counter, gauge, histogram, summary or "
                          "untyped), got {}",
                          number, QuoteForMessage(kind))});
  }
  fields.SkipBlanks();
  if (!fields.AtEnd()) return tl::unexpected(fields.Fail("the end of the line after the type"));
  if (!typed.insert(std::string(name)).second) {
    return tl::unexpected(Error{
        ErrorCode::kInvalidArgument,
        fmt::format("line {}: expected one TYPE line for {}, got a second one", number, name)});
  }
  return {};
}

}  // namespace

const std::string* PrometheusSample::Label(std::string_view label_name) const {
  for (const PrometheusLabel& label : labels) {
    if (label.name == label_name) return &label.value;
  }
  return nullptr;
}

Result<std::vector<PrometheusSample>> ParsePrometheusText(std::string_view text) {
  std::vector<PrometheusSample> samples;
  std::set<std::string, std::less<>> typed;
  int number = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (const size_t cr = line.find('\r'); cr != std::string_view::npos) {
      return MakeError(ErrorCode::kInvalidArgument,
                       "line {}: expected lines ended by \\n alone, got a carriage return at "
                       "column {}",
                       number, cr + 1);
    }
    const size_t first = line.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;  // Blank line.
    if (line[first] == '#') {
      if (auto comment = ParseComment(line, number, typed); !comment) {
        return tl::unexpected(std::move(comment).error());
      }
      continue;
    }
    LineParser parser(line.substr(first), number);
    auto sample = parser.Sample();
    if (!sample) return tl::unexpected(std::move(sample).error());
    samples.push_back(std::move(*sample));
  }
  return samples;
}

}  // namespace headroom::model
