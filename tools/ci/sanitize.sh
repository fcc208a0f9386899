#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stage of tools/test.sh, and its clang build: everything the project builds
# (but the benchmarks) compiled by clang with warnings as errors, under
# AddressSanitizer + UndefinedBehaviorSanitizer, then the engine, kernel and
# typed tests run there (every x86 target the CPU runs, plus EMU128, clang's
# fallback), so an out-of-bounds read in a kernel tail or a bad shift fails CI.
# It replaced a separate clang Release build that ran only the kernel and
# typed tests: one clang build of the kernels in CI instead of two.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BLOCKBLOOM_ASAN_BUILD_DIR:-build/asan}  # shared with the fuzz stage (tools/ci/asan-build.sh)
# The longest first (kernels_test: every target), so the two lanes end together.
tests=(kernels_test model_test garden_counting_kernels_test garden_test garden_format_test filter_test typed_test
       layout_test buffer_test format_test parquet_test rocksdb_format_test fold_test garden_blocked_counting_test
       stats_test)
BLOCKBLOOM_ASAN_BUILD_DIR=$build tools/ci/asan-build.sh all
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# One test binary per core at a time (tools/ci/lanes.sh), each log printed whole.
# shellcheck source=tools/ci/lanes.sh
source tools/ci/lanes.sh
export build
lane_job() { "$build/tests/$1" --gtest_brief=1; }
export -f lane_job
run_lanes "$build/sanitize-logs" "${tests[@]}"
echo "sanitize: all passed"
