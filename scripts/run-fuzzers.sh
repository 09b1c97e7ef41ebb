#!/usr/bin/env bash
# Runs every libFuzzer target in BUILD_DIR/bin for SECONDS each, starting from fuzz/corpus/NAME
# (the seed inputs kept in the repository). Fails when any target finds a crash, leak, timeout or
# out-of-memory input. A failing target's log tail, its input (base64, to replay with
# `base64 -d > input && BUILD_DIR/bin/NAME input`) and whether that input fails again when run
# alone are printed in a summary after the last target, where a CI log's tail shows them; the
# inputs are also kept in BUILD_DIR/fuzz-failures.
set -euo pipefail
build_dir=${1:?build dir}
seconds=${2:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
kept="$build_dir/fuzz-failures"
failures=()
summary=$(mktemp)
trap 'rm -f "$summary"' EXIT
for fuzzer in "$build_dir"/bin/*_fuzz; do
  [[ -x $fuzzer ]] || continue
  name=$(basename "$fuzzer")
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
  echo "fuzz: $name for ${seconds}s"
  if "$fuzzer" -max_total_time="$seconds" "${limits[@]}" -artifact_prefix="$work/found/" \
      "${extra[@]}" "$work/corpus" >"$work/log" 2>&1; then
    grep -E '^(Done|#[0-9]+.*DONE)' "$work/log" | tail -1 || true
  else
    echo "fuzz: $name FAILED (details after the last target)"
    failures+=("$name")
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
done
if ((${#failures[@]} > 0)); then
  cat "$summary"
  echo "fuzz: ${#failures[@]} target(s) failed: ${failures[*]}"
  exit 1
fi
