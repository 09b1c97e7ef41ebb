// The dashboard page as served (web::DashboardHtml) and as a browser renders it against a fake
// API: the embedded bytes are src/web/dashboard.html's, the page loads nothing from outside,
// and real headless Chromium draws the racks, the pending queue and the allocation chart from
// the API's JSON, shows a banner when the token is refused or the API is unreachable, and
// inserts API text as text (a job named like markup stays text).
#include <fstream>
#include <regex>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/client_fake_api.h"
#include "cli/client_test_support.h"
#include "web/dashboard.h"
#include "web/headless_chromium.h"

namespace headroom::testing {
namespace {

using nlohmann::json;

TEST(DashboardPage, EmbedsTheSourceFileByteForByte) {
  const std::string source =
      ReadText(std::filesystem::path(HEADROOM_SOURCE_DIR) / "src/web/dashboard.html");
  ASSERT_FALSE(source.empty());
  // Compared as a boolean: on failure gtest would print both 20 kB pages.
  EXPECT_TRUE(web::DashboardHtml() == source)
      << "embedded " << web::DashboardHtml().size() << " bytes, the file has " << source.size()
      << " (re-run cmake?)";
}

TEST(DashboardPage, IsSelfContainedWithStableIds) {
  const std::string html(web::DashboardHtml());
  for (const char* id : {"floor", "queue", "allocation-chart", "error", "token-form"}) {
    EXPECT_NE(html.find(std::string("id=\"") + id + "\""), std::string::npos) << id;
  }
  // Nothing outside can be reached where it runs: no external scripts, styles, fonts or images.
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  EXPECT_EQ(html.find("url("), std::string::npos);
  std::string without_svg_namespace = html;
  const std::string kSvgNamespace = "http://www.w3.org/2000/svg";
  for (size_t at; (at = without_svg_namespace.find(kSvgNamespace)) != std::string::npos;) {
    without_svg_namespace.erase(at, kSvgNamespace.size());
  }
  EXPECT_EQ(without_svg_namespace.find("http://"), std::string::npos);
  EXPECT_EQ(without_svg_namespace.find("https://"), std::string::npos);
  // API text goes in as text nodes only.
  EXPECT_EQ(html.find("innerHTML"), std::string::npos);
}

class DashboardBrowser : public ::testing::Test {
 protected:
  void SetUp() override {
    chromium_ = FindChromium();
    if (!chromium_) GTEST_SKIP() << "chromium not installed (apt-get install chromium)";
  }

  std::string Dom(const std::string& url, std::string* error) {
    return DumpDom(*chromium_, url, 5000, dir_.path() / "profile", error);
  }

  std::optional<std::filesystem::path> chromium_;
  TestDir dir_;
};

void AnswerFloor(FakeApi& api, const std::string& pending_name) {
  api.Answer("GET", "/v1/cluster",
             {200, R"({"devices": 32, "allocated_milli": 12500, "pending": 1, "running": 2,
                       "by_tenant": {}, "by_class": {}, "time": 1764460000.0})"});
  api.Answer("GET", "/v1/floor", {200, R"({"racks": [
      {"name": "rack-01", "path": ["dc", "rack-01"], "devices": 16, "allocated_milli": 12500,
       "power_w": 9200, "power_limit_w": 12000, "temp_c": 31.5, "unhealthy_devices": 1,
       "nodes": [{"name": "n1", "devices": 8, "allocated_milli": 8000, "state": "up", "ready": true,
                  "unhealthy_devices": 1},
                 {"name": "n2", "devices": 8, "allocated_milli": 4500, "state": "up", "ready": true}]},
      {"name": "rack-02", "path": ["dc", "rack-02"], "devices": 16, "allocated_milli": 0,
       "power_w": null, "power_limit_w": null, "temp_c": null, "unhealthy_devices": 0,
       "nodes": [{"name": "n3", "devices": 8, "allocated_milli": 0, "state": "drained", "ready": true},
                 {"name": "n4", "devices": 8, "allocated_milli": 0, "state": "down", "ready": false}]}]})"});
  api.Answer("GET", "/v1/jobs?state=pending",
             {200, json{{"jobs",
                         {{{"id", 9},
                           {"name", pending_name},
                           {"tenant", "team-b"},
                           {"state", "pending"},
                           {"tasks", 4},
                           {"devices_per_task", 8},
                           {"share_milli", 1000},
                           {"submit_time", 1764459000.0},
                           {"pending_reason", {{"code", "capacity"}, {"message", "needs 32 GPUs"}}},
                           {"expected_start", nullptr}}}}}
                       .dump()});
  api.Answer("GET", "/v1/series", {200, R"({"points": [
      {"time": 1764459000, "allocated_milli": 0, "devices": 32, "pending": 0, "running": 0},
      {"time": 1764459300, "allocated_milli": 8000, "devices": 32, "pending": 1, "running": 1},
      {"time": 1764459600, "allocated_milli": 12500, "devices": 32, "pending": 1, "running": 2}]})"});
}

TEST_F(DashboardBrowser, DrawsFloorQueueAndChartFromTheApi) {
  FakeApi api(FakeApi::Options{.token = "tok"});
  api.ServePage(std::string(web::DashboardHtml()));
  AnswerFloor(api, "<b>sweep</b>");
  std::string error;
  const std::string dom = Dom(api.url() + "/#token=tok", &error);
  ASSERT_FALSE(dom.empty()) << error;
  EXPECT_NE(dom.find("data-rack=\"rack-01\""), std::string::npos) << dom;
  EXPECT_NE(dom.find("data-rack=\"rack-02\""), std::string::npos);
  for (const char* node : {"n1", "n2", "n3", "n4"}) {
    EXPECT_NE(dom.find(std::string("data-node=\"") + node + "\""), std::string::npos) << node;
  }
  EXPECT_TRUE(std::regex_search(dom, std::regex("class=\"node drained\"[^>]*data-node=\"n3\"")));
  EXPECT_TRUE(
      std::regex_search(dom, std::regex("class=\"node down not-ready\"[^>]*data-node=\"n4\"")));
  EXPECT_NE(dom.find("9.2 kW of 12.0 (2.8 kW headroom)"), std::string::npos);
  EXPECT_NE(dom.find("1 unhealthy"), std::string::npos);
  // A node with a device not healthy is marked, and its title says how many.
  EXPECT_TRUE(
      std::regex_search(dom, std::regex("class=\"node up unhealthy\"[^>]*data-node=\"n1\"[^>]*"
                                        "title=\"n1: [^\"]*1 GPUs not healthy\"")))
      << dom;
  // The job's markup-like name is shown as text, escaped by the serializer.
  EXPECT_NE(dom.find("&lt;b&gt;sweep&lt;/b&gt;"), std::string::npos);
  EXPECT_NE(dom.find("capacity: needs 32 GPUs"), std::string::npos);
  EXPECT_NE(dom.find("id=\"allocation-line\""), std::string::npos);
  EXPECT_NE(dom.find("12.5"), std::string::npos);  // summary: 12.5 / 32 GPUs allocated
  EXPECT_TRUE(std::regex_search(dom, std::regex("<div id=\"error\"[^>]*class=\"\"")) ||
              std::regex_search(dom, std::regex("<div id=\"error\" role=\"alert\"></div>")))
      << "no error banner expected";
  // Every API call carried the token from the URL fragment.
  int api_calls = 0;
  for (const SeenRequest& request : api.Requests()) {
    if (request.target.rfind("/v1/", 0) != 0) continue;
    ++api_calls;
    EXPECT_EQ(request.authorization, "Bearer tok") << request.target;
  }
  EXPECT_GE(api_calls, 4);
}

TEST_F(DashboardBrowser, RefusedTokenShowsTheBannerAndTheTokenForm) {
  FakeApi api(FakeApi::Options{.token = "right"});
  api.ServePage(std::string(web::DashboardHtml()));
  AnswerFloor(api, "x");
  std::string error;
  const std::string dom = Dom(api.url() + "/#token=wrong", &error);
  ASSERT_FALSE(dom.empty()) << error;
  EXPECT_TRUE(std::regex_search(
      dom, std::regex("id=\"error\"[^>]*class=\"shown\"[^>]*>The token was refused \\(401\\): "
                      "unknown or missing token")))
      << dom;
  EXPECT_TRUE(std::regex_search(dom, std::regex("id=\"token-form\" class=\"shown\"")));
  EXPECT_EQ(dom.find("data-rack="), std::string::npos);
}

TEST_F(DashboardBrowser, UnreachableApiShowsTheBanner) {
  // Loaded from a file, the page's API calls have no headroomd to reach.
  const std::filesystem::path page = dir_.path() / "dashboard.html";
  std::ofstream(page) << web::DashboardHtml();
  std::string error;
  const std::string dom = Dom("file://" + page.string() + "#token=t", &error);
  ASSERT_FALSE(dom.empty()) << error;
  EXPECT_TRUE(std::regex_search(dom, std::regex("id=\"error\"[^>]*class=\"shown\"[^>]*>Cannot "
                                                "reach headroomd")))
      << dom;
}

}  // namespace
}  // namespace headroom::testing
