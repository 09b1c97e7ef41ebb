#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR/bin for SECONDS each, starting from fuzz/corpus/NAME
# (the seed inputs kept in the repository), JOBS targets at a time (default: one per core).
# Fails when any target finds a crash, leak, timeout or out-of-memory input. A failing target's
# log tail, its input (base64, to replay with `base64 -d > input && BUILD_DIR/bin/NAME input`)
# and whether that input fails again when run alone are printed in a summary after the last
# target, where a CI log's tail shows them; the inputs are also kept in BUILD_DIR/fuzz-failures.
set -euo pipefail
build_dir=${1:?build dir}
seconds=${2:-20}
jobs=${JOBS:-$(nproc)}
root=$(cd "$(dirname "$0")/.." && pwd)
kept="$build_dir/fuzz-failures"
results=$(mktemp -d)
trap 'rm -rf "$results"' EXIT

# One target: its line of progress in $results/NAME.out, and where it fails, the summary's part
# in $results/NAME.failed.
fuzz_one() {
  local fuzzer=$1
  local name
  name=$(basename "$fuzzer")
  local summary="$results/$name.failed"
  local seeds work extra limits input
  seeds="$root/fuzz/corpus/${name%_fuzz}"
  work=$(mktemp -d)
  mkdir -p "$work/corpus" "$work/found"
  [[ -d $seeds ]] && cp -r "$seeds"/. "$work/corpus"/
  # Extra libFuzzer flags of one target: fuzz/NAME.flags, '#' lines are comments.
  extra=()
  if [[ -f $root/fuzz/$name.flags ]]; then
    read -ra extra <<<"$(grep -v '^#' "$root/fuzz/$name.flags" | tr '\n' ' ')"
  fi
  limits=(-timeout=5 -rss_limit_mb=2048 -max_len=4096)
  if "$fuzzer" -max_total_time="$seconds" "${limits[@]}" -artifact_prefix="$work/found/" \
      "${extra[@]}" "$work/corpus" >"$work/log" 2>&1; then
    echo "fuzz: $name for ${seconds}s: $(grep -E '^(Done|#[0-9]+.*DONE)' "$work/log" | tail -1)"
  else
    echo "fuzz: $name for ${seconds}s: FAILED (details after the last target)"
    {
      echo "=== $name failed; the last 40 lines of its log:"
      tail -40 "$work/log"
      for input in "$work"/found/*; do
        [[ -f $input ]] || continue
        mkdir -p "$kept"
        cp "$input" "$kept/$name-$(basename "$input")"
        echo "--- input $(basename "$input") ($(stat -c %s "$input") bytes), base64:"
        base64 -w 100 "$input"
        if "$fuzzer" "${limits[@]}" "${extra[@]}" "$input" >"$work/replay" 2>&1; then
          echo "--- run alone, it passes: the failure depends on the state earlier inputs left"
        else
          echo "--- run alone, it fails again:"
          grep -E 'ERROR|SUMMARY|Check failed|CHECK|==[0-9]+==' "$work/replay" | head -10 || true
        fi
      done
    } >>"$summary"
  fi
  rm -rf "$work"
}

running=0
for fuzzer in "$build_dir"/bin/*_fuzz; do
  [[ -x $fuzzer ]] || continue
  if ((running >= jobs)); then
    wait -n || true
    running=$((running - 1))
  fi
  fuzz_one "$fuzzer" >"$results/$(basename "$fuzzer").out" 2>&1 &
  running=$((running + 1))
done
wait
failures=()
for out in "$results"/*.out; do
  [[ -f $out ]] || continue
  cat "$out"
  name=$(basename "$out" .out)
  [[ -f $results/$name.failed ]] && failures+=("$name")
done
if ((${#failures[@]} > 0)); then
  for name in "${failures[@]}"; do cat "$results/$name.failed"; done
  echo "fuzz: ${#failures[@]} target(s) failed: ${failures[*]}"
  exit 1
fi
