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
# The tests run the dispatched target only (the best this CPU has), so this
# build compiles that one and the fallback: the other x86 targets go to
# Highway's HWY_DISABLED_TARGETS (tools/ci/hwy-targets.sh). The target comes
# from the g++ stage's CLI (`blockbloom targets`, the row marked in use);
# without it, or on a target not listed there, every target is compiled as
# before.
# shellcheck source=tools/ci/hwy-targets.sh
source tools/ci/hwy-targets.sh
best=$(cli_targets | awk '$3 == "*" { print $1 }')
if [[ -n $best && ( -n ${hwy_bit[$best]:-} || $best == scalar || $best == emu128 ) ]]; then
  others=()
  for t in "${hwy_x86_targets[@]}"; do
    if [[ $t != "$best" ]]; then others+=("$t"); fi
  done
  flags+=" -DHWY_DISABLED_TARGETS=$(hwy_disabled "${others[@]}")"
  echo "-- tsan: kernels compiled for $best (the target the tests run here) and the fallback"
else
  echo "-- tsan: the g++ stage's CLI did not name the target in use, so every target is compiled"
fi
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
