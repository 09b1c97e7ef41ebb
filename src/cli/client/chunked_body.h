// ChunkedBody: decodes an HTTP/1.1 chunked body (RFC 9112 §7.1) as its bytes arrive, in pieces
// of any size. Promises: Feed reports kComplete once the last chunk and the trailer section
// have arrived (bytes after them are ignored), kMalformed with error() naming what was wrong
// (a size that is not hex, a chunk without its CRLF, a size line or trailer over 4 KiB, a body
// over the limit), else kIncomplete. Chunk extensions and trailers are read and dropped. Pure.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace headroom::cli {

class ChunkedBody {
 public:
  enum class State { kIncomplete, kComplete, kMalformed };

  explicit ChunkedBody(size_t max_body_bytes) : max_body_bytes_(max_body_bytes) {}

  State Feed(std::string_view bytes);
  const std::string& error() const { return error_; }
  std::string TakeBody() { return std::move(body_); }

 private:
  enum class Part { kSizeLine, kData, kDataEnd, kTrailer, kDone };

  State Step();
  State Malformed(std::string error);

  size_t max_body_bytes_;
  Part part_ = Part::kSizeLine;
  std::string pending_;  // Bytes not yet decoded.
  size_t chunk_left_ = 0;
  std::string body_;
  std::string error_;
};

}  // namespace headroom::cli
