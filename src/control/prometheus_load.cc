#include "control/prometheus_load.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "control/logging.h"
#include "control/thread_name.h"

namespace headroom::control {
namespace {

using nlohmann::json;

constexpr auto kQueryTimeout = std::chrono::seconds(2);
// Between two rounds of queries at least this much real time, however fast the clock runs.
constexpr auto kMinPollGap = std::chrono::milliseconds(100);

Result<double> Invalid(const std::string& what) {
  return MakeError(ErrorCode::kInvalidArgument, "Prometheus answered {}", what);
}

// A sample's [time, "value"] pair: the value, finite and >= 0.
Result<double> SampleValue(const json& pair) {
  if (!pair.is_array() || pair.size() != 2 || !pair[1].is_string()) {
    return Invalid("a sample that is not [time, \"value\"]");
  }
  const std::string& text = pair[1].get_ref<const std::string&>();
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value) ||
      value < 0) {
    return Invalid(fmt::format("the value \"{}\", not a finite rate >= 0", text.substr(0, 40)));
  }
  return value;
}

}  // namespace

Result<double> ParsePrometheusQueryReply(std::string_view body) {
  const json reply = json::parse(body, nullptr, false);
  if (reply.is_discarded() || !reply.is_object()) return Invalid("something that is not JSON");
  if (reply.value("status", "") != "success") {
    const std::string error = reply.contains("error") && reply["error"].is_string()
                                  ? reply["error"].get<std::string>()
                                  : std::string("no status");
    return Invalid(fmt::format("an error: {}", error.substr(0, 200)));
  }
  const json& data = reply.contains("data") ? reply["data"] : json();
  const std::string type =
      data.is_object() && data.contains("resultType") && data["resultType"].is_string()
          ? data["resultType"].get<std::string>()
          : "";
  if (!data.is_object() || !data.contains("result")) return Invalid("no data.result");
  if (type == "scalar") return SampleValue(data["result"]);
  if (type != "vector") {
    return Invalid(fmt::format("a {} where a scalar or an instant vector was expected",
                               type.empty() ? "reply without resultType" : type));
  }
  if (!data["result"].is_array()) return Invalid("a vector that is not a list");
  double sum = 0;
  for (const json& series : data["result"]) {
    if (!series.is_object() || !series.contains("value")) return Invalid("a series without value");
    auto value = SampleValue(series["value"]);
    if (!value) return value;
    sum += *value;
  }
  return sum;
}

Result<void> ValidatePrometheusUrl(std::string_view url) {
  constexpr std::string_view kScheme = "http://";
  const std::string_view rest = url.starts_with(kScheme) ? url.substr(kScheme.size()) : "";
  if (rest.empty() || rest.find_first_of("/?# ") != std::string_view::npos) {
    return MakeError(ErrorCode::kInvalidArgument,
                     "--prometheus-url: expected http://HOST:PORT (Prometheus' address, no "
                     "path), got \"{}\"",
                     url.substr(0, 200));
  }
  return {};
}

PrometheusLoad::PrometheusLoad(std::string url, DaemonState& state, const Clock& clock,
                               TimeUs interval_us)
    : url_(std::move(url)), state_(state), clock_(clock), interval_us_(interval_us) {}

PrometheusLoad::~PrometheusLoad() { Stop(); }

void PrometheusLoad::Start() {
  thread_ = std::thread([this] { Run(); });
}

void PrometheusLoad::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PrometheusLoad::Run() {
  NameThisThread("hr-prometheus");
  std::unique_lock lock(mu_);
  while (!stopping_) {
    lock.unlock();
    PollOnce();
    lock.lock();
    const auto gap =
        std::max<std::chrono::microseconds>(clock_.WallDelay(interval_us_), kMinPollGap);
    cv_.wait_for(lock, gap, [&] { return stopping_; });
  }
}

void PrometheusLoad::PollOnce() {
  std::vector<std::pair<uint64_t, std::string>> queries;
  {
    std::lock_guard lock(state_.mu);
    for (const auto& [id, service] : state_.services) {
      if (service.spec.autoscaling && !service.spec.autoscaling->prometheus_query.empty()) {
        queries.emplace_back(id, service.spec.autoscaling->prometheus_query);
      }
    }
  }
  httplib::Client client(url_);
  client.set_connection_timeout(kQueryTimeout);
  client.set_read_timeout(kQueryTimeout);
  client.set_keep_alive(true);
  for (const auto& [service, query] : queries) {
    Result<double> rate = 0.0;
    auto answer = client.Get("/api/v1/query?query=" + httplib::detail::encode_query_param(query));
    if (!answer) {
      rate = MakeError(ErrorCode::kIo, "Prometheus at {} did not answer: {}", url_,
                       httplib::to_string(answer.error()));
    } else {
      rate = ParsePrometheusQueryReply(answer->body);
    }
    const std::string error = rate ? "" : rate.error().message;
    if (error != last_error_[service]) {
      if (error.empty()) {
        LogInfo("autoscaler: service {}: its Prometheus query answers again", service);
      } else {
        LogWarn("autoscaler: service {}: query \"{}\" failed: {}", service, query, error);
      }
      last_error_[service] = error;
    }
    std::lock_guard lock(state_.mu);
    if (!state_.services.contains(service)) continue;
    ServiceLoad& load = state_.service_loads[service];
    load.query_error = error;
    if (!rate) continue;
    load.requests_per_s = *rate;
    load.reported_us = clock_.NowUs();
  }
}

}  // namespace headroom::control
