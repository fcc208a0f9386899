#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Stage of tools/test.sh: the engine and kernel tests built with clang under
# AddressSanitizer + UndefinedBehaviorSanitizer (every x86 target the CPU runs,
# plus EMU128), so an out-of-bounds read in a kernel tail or a bad shift fails CI.
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/install-deps.sh fuzz  # clang and its sanitizer runtimes
build=${BLOCKBLOOM_SANITIZE_BUILD_DIR:-build/sanitize}
tests=(kernels_test layout_test filter_test format_test parquet_test fold_test garden_test garden_format_test
       garden_blocked_counting_test garden_counting_kernels_test model_test)
flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DBLOCKBLOOM_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${tests[@]}" blockbloom_cli
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
for t in "${tests[@]}"; do
  echo "-- sanitize: $t"
  "$build/tests/$t" --gtest_brief=1
done
echo "sanitize: all passed"
