# The two commands: `make run` (the main job) and `make test` (every test). Both install their
# Debian dependencies first (scripts/install-deps.sh, idempotent).
JOBS ?= $(shell nproc)
BUILD ?= build
HEADROOM_TRACES ?= ../shared/traces
RUN_OUT ?= out/run

RUN_SECONDS ?=

.PHONY: deps configure configure-sanitize build run test test-sanitize fuzz bench format clean

deps:
	@bash scripts/install-deps.sh

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null

# Everything: binaries, tests and benchmarks.
build: configure
	@cmake --build $(BUILD) -j $(JOBS)

# What each command runs, and nothing more: `make run` does not wait for the tests and
# benchmarks to compile, `make test` not for the benchmarks (CI builds those too, `make build`).
RUN_TARGETS := headroom headroomd
TEST_TARGETS := headroom headroomd headroom-agent headroom_tests
BENCH_TARGETS := headroom_bench headroom_http_bench headroom_fill_store headroom_submit_bench

# The main job: every policy side by side on a generated building and a synthetic workload
# (report.json, report.html), then the live control plane: headroomd with simulated nodes,
# the demo workload submitted through the CLI, the dashboard on 127.0.0.1:$(RUN_PORT) until
# Ctrl-C (RUN_SECONDS=N: stop after N seconds and check that work ran, as CI does).
RUN_PORT ?= 8470
run: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(RUN_TARGETS)
	@mkdir -p $(RUN_OUT)
	./$(BUILD)/bin/headroom gen-cluster --devices 1024 --devices-per-node 8 --nvlink-domain 32 \
	  > $(RUN_OUT)/cluster.yaml
	./$(BUILD)/bin/headroom sim --cluster $(RUN_OUT)/cluster.yaml --workload synthetic:default \
	  --load 0.95 --policy all --seed 1 --out $(RUN_OUT)
	@RUN_SECONDS=$(RUN_SECONDS) bash scripts/run-demo.sh $(BUILD) $(RUN_OUT)/live $(RUN_PORT)

test: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(TEST_TARGETS)
	@cd $(BUILD) && HEADROOM_TRACES=$(abspath $(HEADROOM_TRACES)) ctest --output-on-failure -j $(JOBS)

# The whole suite under AddressSanitizer + UndefinedBehaviorSanitizer (CI runs this too), in the
# fuzzing build: Clang with every library instrumented for both sanitizers and for coverage. The
# libFuzzer targets then link against the same objects, so the libraries compile once for both.
configure-sanitize: deps
	@CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=Debug -DHEADROOM_FUZZ=ON \
	  -DHEADROOM_BENCH=OFF >/dev/null

test-sanitize: configure-sanitize
	@cmake --build build-fuzz -j $(JOBS) --target $(TEST_TARGETS)
	@cd build-fuzz && HEADROOM_TRACES=$(abspath $(HEADROOM_TRACES)) ctest --output-on-failure -j $(JOBS)

# libFuzzer targets, each run briefly over its seed corpus (FUZZ_SECONDS each).
FUZZ_SECONDS ?= 20
fuzz: configure-sanitize
	@cmake --build build-fuzz -j $(JOBS) --target fuzzers
	@bash scripts/run-fuzzers.sh build-fuzz $(FUZZ_SECONDS)

bench: configure
	@cmake --build $(BUILD) -j $(JOBS) --target $(BENCH_TARGETS)
	HEADROOM_TRACES=$(abspath $(HEADROOM_TRACES)) ./$(BUILD)/bin/headroom_bench

format:
	@git ls-files '*.h' '*.cc' | xargs clang-format -i

clean:
	rm -rf build build-sanitize build-fuzz out
