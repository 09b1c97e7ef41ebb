#!/usr/bin/env bash
# Times headroomd's start on a data dir that holds many pending jobs (issue 10): writes a fresh
# data dir with headroom_fill_store (bench/fill_store.cc), then starts headroomd on it RUNS
# times and reports, for each start, the seconds from exec until GET /healthz answers 200.
#
# Usage: scripts/restart-time.sh [--build DIR] [--jobs N] [--runs R] [-- fill flags...]
#   e.g. scripts/restart-time.sh --build build --jobs 200000 -- --distinct-names
# Needs the build's bin/headroomd and bin/headroom_fill_store (-DHEADROOM_BENCH=ON), and curl.
set -euo pipefail
build=build
jobs=200000
runs=3
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --jobs) jobs=$2; shift 2 ;;
    --runs) runs=$2; shift 2 ;;
    --) shift; break ;;
    *) echo "restart-time.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/headroom-restart-XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -TERM "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
"$build/bin/headroom_fill_store" --data-dir "$work/data" --jobs "$jobs" "$@"
for run in $(seq 1 "$runs"); do
  rm -f "$work/port"
  start_ns=$(date +%s%N)
  "$build/bin/headroomd" --data-dir "$work/data" --listen 127.0.0.1:0 --port-file "$work/port" \
    --cluster "$root/configs/small.yaml" >"$work/log-$run" 2>&1 &
  pid=$!
  # The port file appears once the server listens; /healthz then answers.
  until [ -s "$work/port" ] && curl -sf "http://127.0.0.1:$(cat "$work/port")/healthz" >/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "headroomd exited:" >&2; cat "$work/log-$run" >&2; pid=; exit 1
    fi
    sleep 0.01
  done
  end_ns=$(date +%s%N)
  # CPU time (user + system, in clock ticks) the daemon used until then: on a busy machine the
  # wall time mostly measures the other processes.
  read -r -a stat <"/proc/$pid/stat"
  ticks=$(getconf CLK_TCK)
  printf 'run %d: /healthz answered %.2f s after the start (%.2f CPU-s, RSS %d MiB, load %s)\n' \
    "$run" "$(echo "($end_ns - $start_ns) / 1000000000" | bc -l)" \
    "$(echo "(${stat[13]} + ${stat[14]}) / $ticks" | bc -l)" \
    "$(( $(ps -o rss= -p "$pid") / 1024 ))" "$(cut -d' ' -f1 /proc/loadavg)"
  # Once the engine is rebuilt (it logs so), how long one /metrics scrape takes.
  until grep -q "engine rebuilt" "$work/log-$run"; do sleep 0.05; done
  printf '    GET /metrics: %s s\n' "$(curl -s -o /dev/null -w '%{time_total}' \
    "http://127.0.0.1:$(cat "$work/port")/metrics")"
  grep -E "recovered|engine rebuilt|serving" "$work/log-$run" | sed 's/^/    /' || true
  kill -TERM "$pid"; wait "$pid" || true; pid=
done
