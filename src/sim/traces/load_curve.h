// LoadCurve: a service's daily tide, its request rate over a day relative to the day's peak,
// so that an hour-long request trace can be replayed across a training trace's weeks with the
// load rising by day and falling by night (RequestStream). Loaded from a trace named FORMAT:PATH:
//   alibaba-genai:PATH  qps.csv of Alibaba's cluster-trace-v2026-GenAI (github.com/alibaba/
//                       clusterdata, SoCC'25): 22 h of a text-to-image service's scaled QPS,
//                       one sample per container about every minute. Columns timestamp_anon
//                       (seconds), value (QPS; NULL, None or empty: missing), container_ip,
//                       request_type; only "Generative Requests" rows count (API Requests are
//                       the platform's own calls).
// The curve: the day in 96 bins of 15 minutes from the trace's first sample; a bin's rate is
// the sum of its samples over the seconds of it the trace covers (samples come about once a
// minute per container, so the sum over a covered span is the containers' QPS times the samples
// each sent; a trace of several days folds onto one); a bin covered for less than half its
// length is interpolated linearly between the covered bins around it, across midnight; then
// every bin is divided by the largest. Between bin centres the rate is linear; the day repeats.
// Promises: 96 bins in [0, 1], the largest exactly 1; malformed cells are errors "file:line:
// field 'x': expected ..., got "..."", a trace under 15 minutes long or with no positive rate is
// an error, a missing file kNotFound. Pure; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"
#include "base/time.h"

namespace headroom::sim {

struct LoadCurve {
  static constexpr TimeUs kPeriodUs = 24LL * 3600 * kUsPerSecond;
  static constexpr TimeUs kBinUs = 15LL * 60 * kUsPerSecond;
  static constexpr size_t kBins = kPeriodUs / kBinUs;

  std::string format;
  std::string source;
  std::vector<double> relative_rate;  // kBins values; the largest is 1.

  // The rate relative to the peak at `offset_us` from the curve's origin (any sign; the day
  // repeats).
  double RelativeRateAt(TimeUs offset_us) const;
  // Mean over the day, as a share of the peak.
  double MeanRelativeRate() const;
};

// `spec` is "FORMAT:PATH"; FORMAT is alibaba-genai.
Result<LoadCurve> LoadLoadCurve(std::string_view spec);

Result<LoadCurve> ParseAlibabaGenaiQps(std::string_view text, std::string source);

}  // namespace headroom::sim
