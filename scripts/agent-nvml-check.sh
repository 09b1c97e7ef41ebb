#!/usr/bin/env bash
# Builds only headroom-agent and prints what NVML discovers on this machine: the inventory the
# agent would register (devices, memory, NVLink clique ids), one telemetry sample, and each
# device's power limits (now, default, and the range a cap may set), as JSON.
# Meant for a real GPU node. Exit 0 with JSON on stdout, or 2 with one line saying why NVML
# could not be used. Usage: scripts/agent-nvml-check.sh [BUILD_DIR] (default build-nvml-check).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build_dir=${1:-$root/build-nvml-check}
cmake -S "$root" -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHEADROOM_BENCH=OFF >/dev/null
cmake --build "$build_dir" -j"$(nproc)" --target headroom-agent >/dev/null
if command -v nvidia-smi >/dev/null; then
  echo "nvidia-smi -L (for comparison):" >&2
  nvidia-smi -L >&2 || true
fi
exec "$build_dir/bin/headroom-agent" --node "$(hostname)" --discovery nvml --print-inventory
