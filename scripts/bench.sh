#!/usr/bin/env bash
# Builds headroom_bench and runs the benchmarks (bench/, described in docs/benchmarks.md):
# console output as it runs, the full results as JSON in $OUT/bench.json, then a short summary
# of each benchmark's headline number against its goal.
#
#   scripts/bench.sh                         # everything (tens of minutes on two cores)
#   scripts/bench.sh --benchmark_filter=Place  # any Google Benchmark flags pass through
#
# Environment: BUILD (build directory, default "build"; configured RelWithDebInfo, the project
# default, when not configured yet), OUT (default "out/bench"), HEADROOM_TRACES (public traces,
# default ../shared/traces beside the repository), JOBS (build parallelism, default nproc).
set -euo pipefail

cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
OUT=${OUT:-out/bench}
JOBS=${JOBS:-$(nproc)}
export HEADROOM_TRACES=${HEADROOM_TRACES:-$(cd .. && pwd)/shared/traces}

if [[ ! -f "$BUILD/CMakeCache.txt" ]]; then
  cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$BUILD" -j "$JOBS" --target headroom_bench

mkdir -p "$OUT"
json="$OUT/bench.json"
echo "bench: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); results also in $json"
"./$BUILD/bin/headroom_bench" --benchmark_format=console --benchmark_out="$json" \
  --benchmark_out_format=json "$@"

# Summary from the JSON (one "key": value per line, as Google Benchmark writes it). Goals are
# those of docs/benchmarks.md, judged on the CPU-time rates, which other processes sharing the
# machine do not disturb; the wall-clock numbers are printed beside them.
awk '
  function verdict(ok) { return ok ? "met" : "NOT met" }
  function flush() {
    if (name == "") return
    shown = name
    sub(/\/(manual|real)_time$/, "", shown)
    sub(/\/iterations:[0-9]+/, "", shown)
    if (error != "") {
      printf "  %-38s skipped: %s\n", shown, error
    } else if (name ~ /^BM_PlaceOneDevice/) {
      goal = ""
      if (name ~ /\/40000\//) goal = "  goal >= 20000/s: " verdict(v["per_cpu_s"] >= 20000)
      printf "  %-38s %8.0f/s cpu %8.0f/s wall  p50 %6.1f us  p99 %7.1f us%s\n", shown,
             v["per_cpu_s"], v["items_per_second"], v["p50_us"], v["p99_us"], goal
    } else if (name ~ /^BM_PlaceGang/) {
      printf "  %-38s p50 %7.1f us  p99 %8.1f us  placed %.2f\n", shown, v["p50_us"],
             v["p99_us"], v["placed"]
    } else if (name ~ /^BM_EngineStep/) {
      printf "  %-38s mean %6.1f ms cpu %6.1f wall  max %6.1f cpu %6.1f wall  goal <= 50 ms: %s\n",
             shown, v["cpu_ms"], v["real_time"], v["max_cpu_ms"], v["max_ms"],
             verdict(v["cpu_ms"] <= 50) (v["max_cpu_ms"] <= 50 ? "" : " (mean; max NOT)")
    } else if (name ~ /^BM_Replay/) {
      rss = ""
      if (name ~ /Million/) {
        rss = sprintf("  peak %.0f MB (goal <= 2048: %s)", v["peak_rss_mb"],
                      verdict(v["peak_rss_mb"] <= 2048))
      }
      printf "  %-38s %9.0f events/s cpu %9.0f wall (goal >= 5e6: %s)%s\n", shown,
             v["events_per_cpu_s"], v["events_per_s"], verdict(v["events_per_cpu_s"] >= 5e6), rss
    }
    name = ""
    error = ""
    split("", v)
  }
  BEGIN { print "summary:" }
  /"name":/ { flush(); name = $0; sub(/.*"name": "/, "", name); sub(/",.*/, "", name) }
  /"error_message":/ { error = $0; sub(/.*"error_message": "/, "", error); sub(/",?$/, "", error) }
  /^ *"[a-z_0-9]+": -?[0-9.eE+-]+,?$/ {
    key = $1; gsub(/[":]/, "", key); val = $2; sub(/,$/, "", val); v[key] = val + 0
  }
  END { flush() }
' "$json"
