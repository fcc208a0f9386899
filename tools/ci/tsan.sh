#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stage of tools/test.sh: concurrent writers beside concurrent readers under
# ThreadSanitizer (clang). tests/concurrency_test.cc runs 2 InsertAtomic
# writers beside 2 readers using the atomic query forms on every layout; TSan
# must report no data race (it exits non-zero if it does), and every inserted
# key must be found afterwards. The atomic-insert and filter tests run too.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/install-deps.sh fuzz  # clang and its sanitizer runtimes
build=${BLOCKBLOOM_TSAN_BUILD_DIR:-build/tsan}
flags="-fsanitize=thread -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_BUILD_TOOLS=OFF -DCMAKE_CXX_FLAGS="$flags" \
  -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$build" -j "$(nproc)" --target concurrency_test filter_test
export TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1"
echo "-- tsan: concurrency_test"
"$build/tests/concurrency_test" --gtest_brief=1
echo "-- tsan: filter_test (atomic inserts)"
"$build/tests/filter_test" --gtest_brief=1 --gtest_filter='*Atomic*'
echo "tsan: all passed"
