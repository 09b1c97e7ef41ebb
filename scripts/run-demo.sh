#!/usr/bin/env bash
# The main job's live half: headroomd with the simulated-nodes backend (a digital twin that
# runs jobs by the simulator's models) on a generated building of 1,024 GPUs, fed a steady
# stream through the CLI, with the dashboard on 127.0.0.1: the shipped demo workload
# (configs/demo-workload.csv, 240 jobs drawn from the synthetic workload) over and over, each
# pass opened by two large gangs (8 and 16 nodes of 8 GPUs, rack preferred), paced to offer
# about 90% of the building, so that the floor, the queue and its reasons stay busy for as long
# as it runs. Ctrl-C stops it cleanly. RUN_SECONDS=N stops it after N seconds and exits
# non-zero unless jobs were admitted and ran (CI uses this).
# Usage: scripts/run-demo.sh BUILD_DIR OUT_DIR [PORT]
set -euo pipefail
build=${1:?build dir}
out=${2:?output dir}
port=${3:-8470}
bin=$build/bin
mkdir -p "$out"
rm -rf "$out/data"

"$bin/headroom" gen-cluster --devices 1024 --devices-per-node 8 --nvlink-domain 32 > "$out/cluster.yaml"
"$bin/headroomd" --listen "127.0.0.1:$port" --data-dir "$out/data" --backend simulated \
  --cluster "$out/cluster.yaml" --time-scale 60 > "$out/headroomd.log" 2>&1 &
daemon=$!
stop() {
  trap - INT TERM EXIT
  if [[ -n ${submitter:-} ]]; then kill "$submitter" 2>/dev/null || true; fi
  kill -TERM "$daemon" 2>/dev/null || true
  wait "$daemon" 2>/dev/null || true
}
trap 'stop; exit 130' INT TERM
trap stop EXIT

for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/healthz" > /dev/null 2>&1 && break
  kill -0 "$daemon" 2>/dev/null || { echo "headroomd exited; see $out/headroomd.log" >&2; exit 1; }
  sleep 0.1
done
export HEADROOM_SERVER="http://127.0.0.1:$port"
HEADROOM_TOKEN=$(cat "$out/data/admin.token")
export HEADROOM_TOKEN

cat <<MSG
headroomd is running (simulated building of 1,024 GPUs, 1 s = 1 simulated minute).
  dashboard:  http://127.0.0.1:$port/#token=$HEADROOM_TOKEN
  queue:      HEADROOM_SERVER=$HEADROOM_SERVER HEADROOM_TOKEN=\$(cat $out/data/admin.token) $bin/headroom queue
  metrics:    curl -s http://127.0.0.1:$port/metrics
  log:        $out/headroomd.log
Submitting configs/demo-workload.csv over and over (240 jobs and 2 large gangs a pass, about
5 a second, ~90% of the building). Stop with Ctrl-C.
MSG

# The loop reads from a process substitution, not a pipe, so it runs in this function's own
# process and killing $submitter ends it (a piped loop would run on in a subshell of its own).
submit_all() {
  local pass=1
  while true; do
    for nodes in 8 16; do
      "$bin/headroom" submit --name "gang-${nodes}x8-p$pass" --tenant research -N "$nodes" \
        --gpus-per-node 8 --topology-preferred rack --time 90m --runtime 60m -- sleep 1 > /dev/null
    done
    while IFS=, read -r name tenant tasks gpus share time runtime priority; do
      args=(--name "$name-p$pass" --tenant "$tenant" --ntasks "$tasks" --time "$time"
            --runtime "$runtime" --priority "$priority")
      if [[ $share -gt 0 ]]; then args+=(--share "$share"); else args+=(--gpus-per-task "$gpus"); fi
      "$bin/headroom" submit "${args[@]}" -- sleep 1 > /dev/null
      # A pass offers ~51,800 GPU-minutes; 0.2 s a job (with the CLI's own time) makes it
      # ~55 s, 90% of the 1,024 GPUs at 1 simulated minute a second.
      sleep 0.2
    done < <(tail -n +2 configs/demo-workload.csv)
    pass=$((pass + 1))
  done
}
submit_all &
submitter=$!

if [[ -n ${RUN_SECONDS:-} ]]; then
  sleep "$RUN_SECONDS"
  kill "$submitter" 2>/dev/null || true
  "$bin/headroom" queue > "$out/queue.txt"
  "$bin/headroom" nodes > "$out/nodes.txt"
  curl -sf "http://127.0.0.1:$port/metrics" > "$out/metrics.txt"
  jobs=$("$bin/headroom" queue --json | grep -o '"id"' | wc -l)
  started=$(grep -E '^headroom_placements_total ' "$out/metrics.txt" | awk '{print $2}')
  echo "after ${RUN_SECONDS}s: $jobs jobs known, placements ${started:-0}; see $out/queue.txt"
  [[ $jobs -gt 0 && ${started%.*} -gt 0 ]]
else
  wait "$submitter" || true
  echo "all demo jobs submitted; headroomd keeps serving until Ctrl-C"
  wait "$daemon"
fi
