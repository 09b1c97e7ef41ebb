#include "base/utf8.h"

namespace headroom {

std::optional<size_t> FirstInvalidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    const auto byte = static_cast<unsigned char>(text[i]);
    if (byte < 0x80) {
      ++i;
      continue;
    }
    size_t extra = 0;
    unsigned char low = 0x80;   // Bounds of the second byte, which rule out overlong forms,
    unsigned char high = 0xbf;  // surrogates and code points past U+10FFFF.
    if (byte >= 0xc2 && byte <= 0xdf) {
      extra = 1;
    } else if (byte >= 0xe0 && byte <= 0xef) {
      extra = 2;
      if (byte == 0xe0) low = 0xa0;
      if (byte == 0xed) high = 0x9f;
    } else if (byte >= 0xf0 && byte <= 0xf4) {
      extra = 3;
      if (byte == 0xf0) low = 0x90;
      if (byte == 0xf4) high = 0x8f;
    } else {
      return i;
    }
    if (i + extra >= text.size()) return i;
    const auto second = static_cast<unsigned char>(text[i + 1]);
    if (second < low || second > high) return i;
    for (size_t k = 2; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return i;
    }
    i += extra + 1;
  }
  return std::nullopt;
}

}  // namespace headroom
