#include "cli/client/chunked_body.h"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

namespace headroom::cli {
namespace {

constexpr size_t kMaxLineBytes = 4096;

}  // namespace

ChunkedBody::State ChunkedBody::Feed(std::string_view bytes) {
  if (part_ == Part::kDone) return State::kComplete;
  if (!error_.empty()) return State::kMalformed;
  pending_.append(bytes);
  return Step();
}

// Decodes what `pending_` holds, leaving in it only a part not complete yet.
ChunkedBody::State ChunkedBody::Step() {
  size_t at = 0;
  const auto incomplete = [&] {
    pending_.erase(0, at);
    return State::kIncomplete;
  };
  for (;;) {
    switch (part_) {
      case Part::kSizeLine:
      case Part::kTrailer: {
        const size_t end = pending_.find("\r\n", at);
        if (end == std::string::npos) {
          if (pending_.size() - at > kMaxLineBytes) {
            return Malformed(part_ == Part::kSizeLine ? "a chunk size line over 4 KiB"
                                                      : "a trailer line over 4 KiB");
          }
          return incomplete();
        }
        const std::string_view line(pending_.data() + at, end - at);
        at = end + 2;
        if (part_ == Part::kTrailer) {
          if (line.empty()) {
            part_ = Part::kDone;
            pending_.clear();
            return State::kComplete;
          }
          break;
        }
        std::string_view digits = line.substr(0, line.find(';'));
        while (!digits.empty() && (digits.back() == ' ' || digits.back() == '\t')) {
          digits.remove_suffix(1);
        }
        size_t size = 0;
        const auto parsed = std::from_chars(digits.data(), digits.data() + digits.size(), size, 16);
        if (digits.empty() || parsed.ec != std::errc() ||
            parsed.ptr != digits.data() + digits.size()) {
          return Malformed("a chunk size that is not hexadecimal");
        }
        if (size > max_body_bytes_ - body_.size()) {
          return Malformed(fmt::format("a body over {} bytes", max_body_bytes_));
        }
        chunk_left_ = size;
        part_ = size == 0 ? Part::kTrailer : Part::kData;
        break;
      }
      case Part::kData: {
        const size_t take = std::min(chunk_left_, pending_.size() - at);
        body_.append(pending_, at, take);
        at += take;
        chunk_left_ -= take;
        if (chunk_left_ > 0) return incomplete();
        part_ = Part::kDataEnd;
        break;
      }
      case Part::kDataEnd:
        if (pending_.size() - at < 2) return incomplete();
        if (pending_.compare(at, 2, "\r\n") != 0) return Malformed("a chunk not ended by CRLF");
        at += 2;
        part_ = Part::kSizeLine;
        break;
      case Part::kDone:
        return State::kComplete;
    }
  }
}

ChunkedBody::State ChunkedBody::Malformed(std::string error) {
  error_ = std::move(error);
  pending_.clear();
  return State::kMalformed;
}

}  // namespace headroom::cli
