#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR/bin for SECONDS each, starting from fuzz/corpus/NAME
# (the seed inputs kept in the repository). Fails on the first crash, leak or timeout found.
set -euo pipefail
build_dir=${1:?build dir}
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
for fuzzer in "$build_dir"/bin/*_fuzz; do
  [[ -x $fuzzer ]] || continue
  name=$(basename "$fuzzer")
  seeds="$root/fuzz/corpus/${name%_fuzz}"
  work=$(mktemp -d)
  [[ -d $seeds ]] && cp -r "$seeds"/. "$work"/
  # Extra libFuzzer flags of one target: fuzz/NAME.flags, '#' lines are comments.
  extra=()
  if [[ -f $root/fuzz/$name.flags ]]; then
    read -ra extra <<<"$(grep -v '^#' "$root/fuzz/$name.flags" | tr '\n' ' ')"
  fi
  echo "fuzz: $name for ${seconds}s"
  if ! "$fuzzer" -max_total_time="$seconds" -timeout=5 -rss_limit_mb=2048 -max_len=4096 \
      -artifact_prefix="$work/" "${extra[@]}" "$work" >"$work/log" 2>&1; then
    echo "fuzz: $name FAILED"; tail -40 "$work/log"; status=1
  else
    grep -E '^(Done|#[0-9]+.*DONE)' "$work/log" | tail -1 || true
  fi
  rm -rf "$work"
done
exit $status
