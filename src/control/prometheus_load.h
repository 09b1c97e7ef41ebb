// PrometheusLoad: autoscaling's Prometheus option. Every service whose spec.autoscaling names a
// `prometheusQuery` has that query run against headroomd's --prometheus-url (the HTTP API's
// instant query, GET /api/v1/query: prometheus.io/docs/prometheus/latest/querying/api/) once
// per autoscale interval, and the answer recorded as the service's load, as a report to
// POST /v1/services/{id}/load would be: the autoscaler (live_loop_autoscale.cc) cannot tell the
// two apart, and the newer of them counts.
//
// Promises:
//  1. An answer is a scalar or an instant vector; a vector's samples are summed, and an empty
//     vector is 0 requests/s (no series: no traffic). Anything else — no answer within 2 s, a
//     status other than success, a matrix or string, a negative, infinite or NaN value — is an
//     error kept in the service's load (GET /v1/services shows it) and logged when it changes;
//     the last good report then ages until the autoscaler holds the count.
//  2. A slow or dead Prometheus never delays the live loop: queries run on this thread.
// Threading: Start and Stop from one thread; the poller's thread reads and writes the state
// under its mutex only.
#pragma once

#include <condition_variable>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

#include "base/result.h"
#include "base/time.h"
#include "control/clock.h"
#include "control/daemon_state.h"

namespace headroom::control {

// The request rate that an instant query's reply body holds (promise 1). Pure, for tests.
Result<double> ParsePrometheusQueryReply(std::string_view body);

// "http://HOST:PORT" as --prometheus-url takes it; an error saying what is expected otherwise.
Result<void> ValidatePrometheusUrl(std::string_view url);

class PrometheusLoad {
 public:
  // Precondition: ValidatePrometheusUrl(url) holds.
  PrometheusLoad(std::string url, DaemonState& state, const Clock& clock, TimeUs interval_us);
  ~PrometheusLoad();
  PrometheusLoad(const PrometheusLoad&) = delete;
  PrometheusLoad& operator=(const PrometheusLoad&) = delete;

  void Start();
  void Stop();  // Idempotent; returns once a query in flight has ended (at most 2 s).

 private:
  void Run();
  void PollOnce();

  const std::string url_;
  DaemonState& state_;
  const Clock& clock_;
  const TimeUs interval_us_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::thread thread_;
  std::map<uint64_t, std::string> last_error_;  // By service; the poller's own.
};

}  // namespace headroom::control
