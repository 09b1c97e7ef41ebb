// URLs for --server and --dcgm-url: what is accepted, split how, and the messages for mistakes.
#include "agent/http_url.h"

#include <gtest/gtest.h>

namespace headroom::agent {
namespace {

TEST(AgentHttpUrl, SplitsOriginAndPath) {
  auto url = ParseHttpUrl("http://10.0.0.1:9400/metrics");
  ASSERT_TRUE(url.has_value()) << url.error().message;
  EXPECT_EQ(url->Origin(), "http://10.0.0.1:9400");
  EXPECT_EQ(url->path, "/metrics");
  auto plain = ParseHttpUrl("https://headroomd.example");
  ASSERT_TRUE(plain.has_value());
  EXPECT_EQ(plain->Origin(), "https://headroomd.example:443");
  EXPECT_EQ(plain->path, "/");
  auto v6 = ParseHttpUrl("http://[::1]:8080/");
  ASSERT_TRUE(v6.has_value()) << v6.error().message;
  EXPECT_EQ(v6->host, "::1");
  EXPECT_EQ(v6->Origin(), "http://[::1]:8080");
}

TEST(AgentHttpUrl, RejectsMistakesWithReasons) {
  EXPECT_EQ(ParseHttpUrl("10.0.0.1:8080").error().message,
            "expected a URL starting with http:// or https://, got \"10.0.0.1:8080\"");
  EXPECT_EQ(ParseHttpUrl("http://h:99999").error().message,
            "expected a port in 1..65535, got \"99999\"");
  EXPECT_EQ(ParseHttpUrl("http://h:").error().message,
            "expected a port after ':', got \"http://h:\"");
  EXPECT_EQ(ParseHttpUrl("http:///x").error().message,
            "expected a host in the URL, got \"http:///x\"");
  EXPECT_FALSE(ParseHttpUrl("http://u@h/").has_value());
  EXPECT_FALSE(ParseHttpUrl("http://h/m?x=1").has_value());
  EXPECT_FALSE(ParseHttpUrl("http://h h/").has_value());
}

TEST(AgentHttpUrl, EncodesPathSegments) {
  EXPECT_EQ(EncodePathSegment("n1.rack-3_a~"), "n1.rack-3_a~");
  EXPECT_EQ(EncodePathSegment("a/b c"), "a%2Fb%20c");
}

}  // namespace
}  // namespace headroom::agent
