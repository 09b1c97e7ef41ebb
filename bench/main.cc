// The one entry point of build/bin/headroom_bench. The benchmarks live beside it, one file per
// subject: placement_bench.cc (Placer on a bare ClusterState), engine_step_bench.cc (one
// Engine::Step with a deep queue) and replay_bench.cc (whole simulator replays). What each
// measures, its goal and the results on the reference machine are in docs/benchmarks.md.
#include <benchmark/benchmark.h>

BENCHMARK_MAIN();
