// WriteHtmlReport: one self-contained HTML page comparing the policies of a simulation run —
// what was simulated (cluster, workload, offered load, seed), a side-by-side metrics table,
// and four plots: allocation over time, the CDF of queue wait, fragmentation over time and
// pending jobs over time.
//
// Promises:
//   1. Self-contained: inline CSS and inline SVG only; no JavaScript, no external URL (the
//      only "http" in the page is the SVG namespace), so it opens offline and from email.
//   2. Deterministic: a pure function of the RunReport; no timestamp, no locale.
//   3. Every string from the report is escaped (&, <, >, ", '), so names and paths cannot
//      inject markup.
//   4. Policy i has the same colour in the table and in every plot (svg::PaletteColor(i)).
//   5. Plots stay small: time series are averaged into at most 600 buckets per policy and
//      the wait CDF is sampled at no more than 500 points per policy.
// Threading: a stateless function, safe to call from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/report/svg_plot.h"
#include "sim/run_result.h"

namespace headroom::sim {

std::string WriteHtmlReport(const RunReport& report);

// The pieces below are what the plots draw, exposed so tests can check them directly.

// The empirical CDF of queue wait as plotted: points (max(wait, 1 s), fraction of started
// jobs that waited at most that long), starting at (first wait, 0) and ending at
// (last wait, 1), with at most `max_points` points (>= 2) taken at evenly spaced ranks.
// `sorted_wait_s` should be ascending; an unsorted input is sorted first and NaN dropped.
std::vector<svg::Point> WaitCdfPoints(const std::vector<double>& sorted_wait_s, size_t max_points);

// Averages consecutive points into at most `max_buckets` buckets of (nearly) equal count,
// keeping order; returns `points` unchanged when it is already short enough.
std::vector<svg::Point> BucketMeans(const std::vector<svg::Point>& points, size_t max_buckets);

}  // namespace headroom::sim
