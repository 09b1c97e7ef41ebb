#include "control/names.h"

#include "base/utf8.h"
#include "model/yaml_field.h"

namespace headroom::control {
namespace {

bool IsAsciiAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

// Valid UTF-8 whose control characters are at most tabs (`allow_tab`); C1 controls are code
// points U+0080..U+009F, the bytes C2 80..C2 9F.
bool IsText(std::string_view text, bool allow_tab, bool allow_c1) {
  if (!IsValidUtf8(text)) return false;
  for (size_t i = 0; i < text.size(); ++i) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte == '\t' && allow_tab) continue;
    if (byte < 0x20 || byte == 0x7f) return false;
    if (!allow_c1 && byte == 0xc2 && i + 1 < text.size() &&
        static_cast<unsigned char>(text[i + 1]) < 0xa0) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool IsValidName(std::string_view text, NameKind kind) {
  switch (kind) {
    case NameKind::kLabel:
      return !text.empty() && text.size() <= kMaxLabelBytes &&
             IsText(text, /*allow_tab=*/true, /*allow_c1=*/true);
    case NameKind::kNode:
      if (text.empty() || text.size() > kMaxLabelBytes) return false;
      for (const char c : text) {
        if (!IsAsciiAlnum(c) && c != '.' && c != '-' && c != '_') return false;
      }
      return true;
    case NameKind::kAddress:
      if (text.size() > kMaxLabelBytes) return false;
      for (const char c : text) {
        if (!IsAsciiAlnum(c) && std::string_view(".:-_%[]").find(c) == std::string_view::npos) {
          return false;
        }
      }
      return true;
    case NameKind::kReason:
      return text.size() <= kMaxReasonBytes &&
             IsText(text, /*allow_tab=*/false, /*allow_c1=*/false);
  }
  return false;
}

std::string_view NameExpectation(NameKind kind) {
  switch (kind) {
    case NameKind::kLabel:
      return "1 to 253 bytes of UTF-8 text without control characters other than tab";
    case NameKind::kNode:
      return "a node name of 1 to 253 letters, digits, '.', '-' or '_'";
    case NameKind::kAddress:
      return "an address of at most 253 letters, digits, '.', ':', '-', '_', '%', '[' or ']'";
    case NameKind::kReason:
      return "at most 256 bytes of UTF-8 text without control characters";
  }
  return "a name";
}

std::string QuoteExcerpt(std::string_view text) {
  size_t cut = text.size();
  if (cut > kMaxExcerptBytes) {
    cut = kMaxExcerptBytes;
    // Back up to the start of a UTF-8 sequence, so the excerpt stays valid text.
    while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  }
  std::string out = "\"";
  for (const char c : text.substr(0, cut)) model::AppendEscapedChar(out, c);
  if (cut < text.size()) out += "...";
  out += '"';
  return out;
}

}  // namespace headroom::control
