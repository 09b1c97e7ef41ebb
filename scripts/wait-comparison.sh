#!/usr/bin/env bash
# The queue-wait comparison of docs/engine.md ("A queue that wins on wait"): each scenario
# replayed under the built-in policies, tiresias and the policy files given, mean and p99 wait
# per policy.
# Usage: scripts/wait-comparison.sh [BUILD_DIR] [POLICY.yaml ...]
# Needs the traces under HEADROOM_TRACES (default ../shared/traces). ELASTIC=SHARE declares
# that share of every workload's multi-task jobs elastic (headroom sim --elastic). UNNAMED=1
# runs instead the ITP clusters the issue's goals do not name (01, 05, 06, 09, 10 at 0.9).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$root/build}
shift || true
headroom=$build/bin/headroom
traces=${HEADROOM_TRACES:-$root/../shared/traces}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

policies=fifo,slurm-like,spread,tiresias,headroom
for file in "$@"; do policies+=",$file"; done
"$headroom" gen-cluster --devices 512 > "$work/c512.yaml"
"$headroom" gen-cluster --devices 1024 > "$work/c1024.yaml"
itp=$traces/microsoft-itp-elasticflow

scenario() {
  local name=$1
  shift
  "$headroom" sim "$@" ${ELASTIC:+--elastic "$ELASTIC"} --policy "$policies" \
    --out "$work/$name" > /dev/null
  python3 - "$work/$name/report.json" "$name" <<'PY'
import json, sys
report = json.load(open(sys.argv[1]))
cells = []
for policy in report["policies"]:
    wait = policy["metrics"]["wait_s"]
    cells.append(f"{policy['name']} {wait['mean'] / 60:.1f} min / {wait['p99'] / 3600:.1f} h")
print(f"{sys.argv[2]}: " + " | ".join(cells))
PY
}

if [[ ${UNNAMED:-0} == 1 ]]; then
  for cluster in 01 05 06 09 10; do
    scenario "itp$cluster-0.9" --cluster "$work/c512.yaml" --workload "itp:$itp/cluster$cluster.csv" \
      --load 0.9 --seed 7
  done
  exit 0
fi
scenario itp04 --cluster "$work/c512.yaml" --workload "itp:$itp/cluster04.csv"
scenario itp04-0.9 --cluster "$work/c512.yaml" --workload "itp:$itp/cluster04.csv" --load 0.9 --seed 7
scenario itp02-0.9 --cluster "$work/c512.yaml" --workload "itp:$itp/cluster02.csv" --load 0.9 --seed 7
scenario itp08-0.9 --cluster "$work/c512.yaml" --workload "itp:$itp/cluster08.csv" --load 0.9 --seed 7
scenario philly --cluster "philly:$traces/microsoft-philly/cluster_machine_list" \
  --workload "philly:$traces/microsoft-philly/philly_data_training.csv"
scenario philly-0.9 --cluster "philly:$traces/microsoft-philly/cluster_machine_list" \
  --workload "philly:$traces/microsoft-philly/philly_data_training.csv" --load 0.9 --seed 7
scenario helios --cluster "$work/c1024.yaml" \
  --workload "helios:$traces/sensetime-helios/helios_data_training.csv"
scenario helios-0.9 --cluster "$work/c1024.yaml" \
  --workload "helios:$traces/sensetime-helios/helios_data_training.csv" --load 0.9 --seed 7
scenario synthetic-0.95 --cluster "$work/c1024.yaml" --workload synthetic:default --load 0.95 --seed 1
