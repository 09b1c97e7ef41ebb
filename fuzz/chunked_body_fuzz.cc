// libFuzzer target for the CLI's chunked-body decoder: any bytes, fed whole or split where the
// input's first byte says, must give the same verdict, the same body and the same error (the
// decoder may not depend on how the network cut the stream), and a complete body never exceeds
// the limit.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "cli/client/chunked_body.h"

using headroom::cli::ChunkedBody;

namespace {

constexpr size_t kLimit = 4096;

struct Outcome {
  ChunkedBody::State state;
  std::string body;
  std::string error;
};

Outcome Decode(std::string_view text, size_t piece) {
  ChunkedBody decoder(kLimit);
  ChunkedBody::State state = ChunkedBody::State::kIncomplete;
  for (size_t at = 0; at < text.size() && state == ChunkedBody::State::kIncomplete; at += piece) {
    state = decoder.Feed(text.substr(at, piece));
  }
  return {state, decoder.TakeBody(), decoder.error()};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const size_t piece = 1 + data[0] % 16;
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = Decode(text, text.size() + 1);
  const Outcome split = Decode(text, piece);
  HR_CHECK(whole.state == split.state);
  HR_CHECK(whole.error == split.error);
  if (whole.state == ChunkedBody::State::kComplete) {
    HR_CHECK(whole.body == split.body);
    HR_CHECK(whole.body.size() <= kLimit);
  }
  if (whole.state == ChunkedBody::State::kMalformed) HR_CHECK(!whole.error.empty());
  return 0;
}
