#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The one clang build with AddressSanitizer + UndefinedBehaviorSanitizer that the
# sanitizer stage (tools/ci/sanitize.sh: the tests) and the fuzz stage
# (tools/ci/fuzz.sh: the libFuzzer targets) share, so CI compiles the sanitized
# library, every SIMD target of kernels.cc included, once instead of twice.
# The whole build carries -fsanitize=fuzzer-no-link (coverage hooks for libFuzzer;
# in a plain test binary the sanitizer runtime's no-op hooks answer them), and only
# the fuzz targets link libFuzzer's main (tests/fuzz/CMakeLists.txt).
#   tools/ci/asan-build.sh TARGET...   configures (once) and builds the targets in
#                                      ${BLOCKBLOOM_ASAN_BUILD_DIR:-build/asan}
set -euo pipefail
cd "$(dirname "$0")/../.."
tools/scripts/install-deps.sh fuzz  # clang and its sanitizer runtimes
build=${BLOCKBLOOM_ASAN_BUILD_DIR:-build/asan}
flags="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DBLOCKBLOOM_WERROR=ON \
  -DBLOCKBLOOM_FUZZ=ON -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_INSTALL=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "$@"
