#!/usr/bin/env bash
# Submissions beside N emulated agents (issue 10's goal: 12,500 agents, 100,000 GPUs, heartbeat
# every 10 s, submissions at >= 0.8x of the rate without them). Each round runs two fresh
# daemons on the agents backend, one after the other:
#   1. without agents: headroom_http_bench --clients 64 --seconds S (the baseline);
#   2. with `headroom-agent --emulate N`: once every node has registered, the same bench.
# Rounds interleave the two, so that drift in the machine's speed (a VM's neighbours) falls on
# both; each round prints both bench lines, its ratio, the emulator's summary (registrations,
# heartbeats failed, heartbeat p99) and the nodes by state after the bench; the last line is the
# median ratio over the rounds.
#
# Usage: scripts/bench-agents.sh [--build DIR] [--nodes N] [--seconds S] [--rounds R]
# Needs the build's headroomd, headroom-agent and headroom_http_bench (-DHEADROOM_BENCH=ON), curl
# and jq.
set -euo pipefail
build=build
nodes=12500
seconds=10
rounds=3
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --nodes) nodes=$2; shift 2 ;;
    --seconds) seconds=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    *) echo "bench-agents.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
work=$(mktemp -d /tmp/headroom-bench-agents-XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"

start_daemon() {  # $1: name; sets port, data
  data="$work/$1"
  "$build/bin/headroomd" --backend agents --data-dir "$data" --listen 127.0.0.1:0 \
    --port-file "$work/$1.port" --heartbeat-interval-s 10 --grace-s 30 \
    --max-pending 1000000 --max-pending-per-tenant 1000000 >"$work/$1.log" 2>&1 &
  daemon_pid=$!
  pids+=("$daemon_pid")
  until [ -s "$work/$1.port" ] && curl -sf "http://127.0.0.1:$(cat "$work/$1.port")/healthz" >/dev/null; do
    kill -0 "$daemon_pid" 2>/dev/null || { cat "$work/$1.log" >&2; exit 1; }
    sleep 0.05
  done
  port=$(cat "$work/$1.port")
}

cpu_ticks() {  # $1: pid; user + system clock ticks
  sed 's/.*) //' "/proc/$1/stat" | awk '{ print $12 + $13 }'
}

thread_ticks() {  # $1: pid; a JSON object of clock ticks by thread name (control/thread_name.h)
  for stat in /proc/"$1"/task/*/stat; do
    sed -E 's/^[0-9]+ \((.*)\) (.*)$/\1 \2/' "$stat" 2>/dev/null | awk '{ print $1, $13 + $14 }'
  done | jq -Rn '[inputs | split(" ") | {(.[0]): (.[1] | tonumber)}]
    | reduce .[] as $t ({}; reduce ($t | to_entries[]) as $e (.; .[$e.key] += $e.value))'
}

# The bench's JSON line, with the daemon's CPU (its /proc ticks over the bench) per submission
# added: a figure the VM's drift moves less than the rate. Given the emulator's pid ($1), its CPU
# per submission too: on this one machine it takes CPU the daemon would otherwise have.
bench() {
  local before after emulator_before=0 emulator_after=0 out threads_before threads_after
  before=$(cpu_ticks "$daemon_pid")
  threads_before=$(thread_ticks "$daemon_pid")
  [ $# -gt 0 ] && emulator_before=$(cpu_ticks "$1")
  out=$("$build/bin/headroom_http_bench" --port "$port" --token-file "$data/admin.token" \
    --clients 64 --seconds "$seconds")
  after=$(cpu_ticks "$daemon_pid")
  threads_after=$(thread_ticks "$daemon_pid")
  [ $# -gt 0 ] && emulator_after=$(cpu_ticks "$1")
  out=$(jq -c --argjson ticks "$((after - before))" --argjson hz "$(getconf CLK_TCK)" \
    '. + {daemon_cpu_us_per_submission: ($ticks / $hz * 1e6 / .submissions | round)}' <<<"$out")
  # By thread: which part of the daemon a difference between the two runs comes from.
  out=$(jq -c --argjson a "$threads_before" --argjson b "$threads_after" \
    --argjson hz "$(getconf CLK_TCK)" '.submissions as $n | . + {daemon_cpu_us_per_submission_by_thread:
      ($b | with_entries(.value = ((.value - ($a[.key] // 0)) / $hz * 1e6 / $n | round)))}' <<<"$out")
  if [ $# -gt 0 ]; then
    out=$(jq -c --argjson ticks "$((emulator_after - emulator_before))" \
      --argjson hz "$(getconf CLK_TCK)" \
      '. + {emulator_cpu_us_per_submission: ($ticks / $hz * 1e6 / .submissions | round)}' <<<"$out")
  fi
  echo "$out"
}

stop() {  # $1: pid
  kill -TERM "$1" 2>/dev/null || true
  wait "$1" || true
}

ratios=()
for round in $(seq 1 "$rounds"); do
  echo "round $round of $rounds"
  start_daemon "alone-$round"
  alone=$(bench)
  echo "without agents: $alone"
  stop "$daemon_pid"

  start_daemon "beside-$round"
  # Stopped by SIGTERM after the bench, the emulator prints its summary.
  "$build/bin/headroom-agent" --server "http://127.0.0.1:$port" --token-file "$data/admin.token" \
    --node emu --emulate "$nodes" >"$work/emulator-$round.out" 2>"$work/emulator-$round.log" &
  emulator_pid=$!
  pids+=("$emulator_pid")
  registered=0
  for _ in $(seq 1 600); do
    registered=$(curl -sf -H "Authorization: Bearer $(cat "$data/admin.token")" \
      "http://127.0.0.1:$port/v1/nodes" | jq '[.nodes[] | select(.state == "up")] | length')
    [ "$registered" -ge "$nodes" ] && break
    sleep 0.5
  done
  echo "registered and up: $registered of $nodes"
  beside=$(bench "$emulator_pid")
  echo "beside $nodes agents: $beside"
  echo "nodes by state after the bench: $(curl -sf -H "Authorization: Bearer $(cat "$data/admin.token")" \
    "http://127.0.0.1:$port/v1/nodes" | jq -c '[.nodes[].state] | group_by(.) | map({(.[0]): length}) | add')"
  stop "$emulator_pid"
  # registrations_ok above N would mean a node was marked down and registered again.
  echo "emulator: $(tail -n 1 "$work/emulator-$round.out")"
  stop "$daemon_pid"
  ratio=$(jq -n --argjson a "$alone" --argjson b "$beside" \
    '$b.submissions_per_s / $a.submissions_per_s * 1000 | round / 1000')
  echo "ratio: $ratio"
  ratios+=("$ratio")
done
echo "median ratio over $rounds rounds: $(printf '%s\n' "${ratios[@]}" | sort -n | \
  awk '{ r[NR] = $1 } END { print (NR % 2) ? r[(NR + 1) / 2] : (r[NR / 2] + r[NR / 2 + 1]) / 2 }')"
