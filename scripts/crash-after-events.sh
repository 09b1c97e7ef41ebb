#!/usr/bin/env bash
# Kill -9 of headroomd after about a million journaled events, then the time until it serves
# again (issue 11's goal: at most 5 s, nothing acknowledged lost). A digital twin of --devices
# GPUs runs at --time-scale 3600 (the bench's one-GPU jobs of an hour end a real second after
# they start), so every job is three journaled events: submitted, started, ended. The script:
#   1. submits with headroom_http_bench (64 keep-alive clients) until jobs x 3 >= --events;
#   2. sends SIGKILL to the daemon mid-stream, while a last bench still submits;
#   3. starts headroomd again on the data dir and reports the seconds until /healthz answers,
#      the engine log's rows and the store's size, and that a new submission gets an id above
#      every acknowledged one (ids are given in order from 1; none is reused or lost).
# The daemon runs on its defaults otherwise: engine snapshots every hour of its clock (a real
# second here), finished jobs kept a day (24 real seconds) and at most 100,000. --snapshot-s S
# sets --engine-snapshot-s: 1e9 takes none after the first, so that recovery follows the whole
# engine log as its tail (the worst case of snapshot + tail).
#
# Usage: scripts/crash-after-events.sh [--build DIR] [--events N] [--devices N] [--snapshot-s S]
# Needs the build's headroom, headroomd and headroom_http_bench (-DHEADROOM_BENCH=ON), curl, jq.
set -euo pipefail
build=build
events=1000000
devices=8192
snapshot_s=3600
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --events) events=$2; shift 2 ;;
    --devices) devices=$2; shift 2 ;;
    --snapshot-s) snapshot_s=$2; shift 2 ;;
    *) echo "crash-after-events.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/headroom-crash-XXXXXX)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
"$build/bin/headroom" gen-cluster --devices "$devices" --devices-per-node 8 >"$work/cluster.yaml"

start_daemon() {  # $1: log name; sets pid, port
  rm -f "$work/port"
  "$build/bin/headroomd" --cluster "$work/cluster.yaml" --time-scale 3600 --data-dir "$work/data" \
    --engine-snapshot-s "$snapshot_s" \
    --listen 127.0.0.1:0 --port-file "$work/port" >"$work/$1.log" 2>&1 &
  pid=$!
  until [ -s "$work/port" ] && curl -sf "http://127.0.0.1:$(cat "$work/port")/healthz" >/dev/null; do
    kill -0 "$pid" 2>/dev/null || { cat "$work/$1.log" >&2; exit 1; }
    sleep 0.01
  done
  port=$(cat "$work/port")
}

bench() {  # $1: seconds; prints the number of acknowledged submissions
  "$build/bin/headroom_http_bench" --port "$port" --token-file "$work/data/admin.token" \
    --clients 64 --seconds "$1" | jq '.submissions'
}

start_daemon first
acknowledged=0
while [ $((acknowledged * 3)) -lt "$events" ]; do
  acknowledged=$((acknowledged + $(bench 10)))
  echo "acknowledged so far: $acknowledged jobs ($((acknowledged * 3)) events)"
done
# The kill lands while a bench submits: its acknowledged count is lost to us, not to the store.
bench 5 >"$work/last-bench" &
bench_pid=$!
sleep 2
kill -KILL "$pid"; wait "$pid" 2>/dev/null || true; pid=
wait "$bench_pid" || true
echo "killed with -9 mid-stream after at least $acknowledged acknowledged jobs"

start_ns=$(date +%s%N)
start_daemon restarted
end_ns=$(date +%s%N)
printf 'serving again %.2f s after the start\n' "$(echo "($end_ns - $start_ns) / 1000000000" | bc -l)"
grep -E "recovered|engine rebuilt" "$work/restarted.log" | head -n 3 | sed 's/^/    /' || true
printf 'store: %s MiB; engine log rows: %s\n' "$(( $(stat -c %s "$work/data/headroom.db") / 1048576 ))" \
  "$(sqlite3 -readonly "$work/data/headroom.db" 'SELECT count(*) FROM engine_log' 2>/dev/null || echo '?')"
new_id=$("$build/bin/headroom" --server "http://127.0.0.1:$port" --token "$(cat "$work/data/admin.token")" \
  submit --gpus 1 --time 1h -- true | grep -oE '[0-9]+' | head -n 1)
echo "a new submission got id $new_id (acknowledged before the last bench: $acknowledged)"
[ "$new_id" -gt "$acknowledged" ]
