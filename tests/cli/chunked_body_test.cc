#include "cli/client/chunked_body.h"

#include <gtest/gtest.h>

#include <string>

namespace headroom::cli {
namespace {

constexpr size_t kLimit = 1 << 20;
const std::string kBody =
    "5;name=value\r\nhello\r\n1\r\n \r\n6 \r\nworld!\r\n0\r\nTrailer: x\r\n\r\nafter";

TEST(ChunkedBody, DecodesWholeAndByteByByteAlike) {
  ChunkedBody whole(kLimit);
  EXPECT_EQ(whole.Feed(kBody), ChunkedBody::State::kComplete);
  EXPECT_EQ(whole.TakeBody(), "hello world!");

  ChunkedBody bytewise(kLimit);
  ChunkedBody::State state = ChunkedBody::State::kIncomplete;
  size_t fed = 0;
  while (state == ChunkedBody::State::kIncomplete && fed < kBody.size()) {
    state = bytewise.Feed(std::string_view(kBody).substr(fed++, 1));
  }
  EXPECT_EQ(state, ChunkedBody::State::kComplete);
  // Complete exactly at the trailer section's empty line: the bytes after it are not body.
  EXPECT_EQ(fed, kBody.size() - 5);
  EXPECT_EQ(bytewise.TakeBody(), "hello world!");
}

TEST(ChunkedBody, NamesWhatIsMalformed) {
  const auto error_of = [](const std::string& text, size_t limit = kLimit) {
    ChunkedBody body(limit);
    EXPECT_EQ(body.Feed(text), ChunkedBody::State::kMalformed) << text;
    return body.error();
  };
  EXPECT_EQ(error_of("zz\r\n"), "a chunk size that is not hexadecimal");
  EXPECT_EQ(error_of("\r\n"), "a chunk size that is not hexadecimal");
  EXPECT_EQ(error_of("3\r\nabcd\r\n"), "a chunk not ended by CRLF");
  EXPECT_EQ(error_of(std::string(5000, '1')), "a chunk size line over 4 KiB");
  EXPECT_EQ(error_of("0\r\n" + std::string(5000, 'x')), "a trailer line over 4 KiB");
  EXPECT_EQ(error_of("ffffffffffffffffff\r\n"), "a chunk size that is not hexadecimal");
  EXPECT_EQ(error_of("8\r\n12345678\r\n3\r\n", 10), "a body over 10 bytes");
  // Incomplete is not malformed.
  ChunkedBody partial(kLimit);
  EXPECT_EQ(partial.Feed("4\r\nab"), ChunkedBody::State::kIncomplete);
  EXPECT_EQ(partial.Feed("cd\r\n0\r\n"), ChunkedBody::State::kIncomplete);
  EXPECT_EQ(partial.Feed("\r\n"), ChunkedBody::State::kComplete);
  EXPECT_EQ(partial.TakeBody(), "abcd");
}

}  // namespace
}  // namespace headroom::cli
