#!/usr/bin/env bash
# Side by side: two builds (e.g. a base commit's and main's) measured in one run, interleaved
# round by round so that drift in the machine's speed falls on both. Per round and build:
#   - headroom_submit_bench --clients 64 --seconds 10 --devices 1024 --start-jobs 0: durable
#     submissions/s of an in-process headroomd (simulated backend);
#   - headroom_bench on FILTER (default: one engine step with 10,000 pending on 100,000 devices,
#     one placement at 100,000 devices, the ITP replay and the OpenB fill, headroom's policy),
#     each benchmark's real time.
# Prints each round's figures and, at the end, per measurement the median of each build and the
# median over rounds of the ratio after/before within a round (for times, below 1 is faster; for
# submissions/s, above 1 is faster): on a VM whose speed drifts by tens of percent between
# rounds, the ratio within a round is the steadier figure.
#
# Usage: scripts/bench-ab.sh --before BUILD_DIR --after BUILD_DIR [--rounds R] [--filter RE]
# Both builds need bin/headroom_submit_bench and bin/headroom_bench (-DHEADROOM_BENCH=ON); jq.
# The ITP replay and OpenB fill read $HEADROOM_TRACES (default ../shared/traces).
set -euo pipefail
before=
after=
rounds=3
filter='BM_EngineStep/headroom/big_head:[01]|BM_PlaceOneDevice/headroom/100000|BM_ReplayItp/headroom|BM_FillOpenb/headroom'
while [ $# -gt 0 ]; do
  case "$1" in
    --before) before=$2; shift 2 ;;
    --after) after=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --filter) filter=$2; shift 2 ;;
    *) echo "bench-ab.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$before" ] && [ -n "$after" ] || { echo "bench-ab.sh: --before and --after are required" >&2; exit 2; }
export HEADROOM_TRACES=${HEADROOM_TRACES:-$(cd "$(dirname "$0")/.." && pwd)/../shared/traces}
results=$(mktemp)
trap 'rm -f "$results"' EXIT

measure() {  # $1: label, $2: build dir, $3: round; appends "label name value unit round" lines
  local out
  out=$("$2/bin/headroom_submit_bench" --clients 64 --seconds 10 --devices 1024 --start-jobs 0 2>/dev/null |
        grep -oE '[0-9]+/s' | head -n 1 | tr -d '/s')
  echo "$1 submissions_per_s $out /s $3" | tee -a "$results"
  "$2/bin/headroom_bench" --benchmark_filter="$filter" --benchmark_format=json 2>/dev/null |
    jq -r --arg which "$1" --arg round "$3" '.benchmarks[] | select(.run_type == "iteration") |
      "\($which) \(.name) \(.real_time) \(.time_unit) \($round)"' | tee -a "$results"
}

for round in $(seq 1 "$rounds"); do
  echo "round $round of $rounds"
  if [ $((round % 2)) -eq 1 ]; then
    measure before "$before" "$round"; measure after "$after" "$round"
  else
    measure after "$after" "$round"; measure before "$before" "$round"
  fi
done
echo "medians over $rounds rounds (before | after | median of the rounds' after/before):"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for name in $(awk '{ print $2 }' "$results" | sort -u); do
  b=$(awk -v n="$name" '$1 == "before" && $2 == n { print $3 }' "$results" | median)
  a=$(awk -v n="$name" '$1 == "after" && $2 == n { print $3 }' "$results" | median)
  ratio=$(awk -v n="$name" '$2 == n { v[$1, $5] = $3; r[$5] = 1 }
    END { for (k in r) if (v["before", k] > 0) print v["after", k] / v["before", k] }' "$results" | median)
  unit=$(awk -v n="$name" '$2 == n { print $4; exit }' "$results")
  printf '  %-55s %12.3f | %12.3f %s | %.3f\n' "$name" "$b" "$a" "$unit" "$ratio"
done
