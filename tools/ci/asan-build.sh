#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The one clang build with AddressSanitizer + UndefinedBehaviorSanitizer that the
# sanitizer stage (tools/ci/sanitize.sh: everything, CI's clang build, and the
# tests) and the fuzz stage (tools/ci/fuzz.sh: the libFuzzer targets) share, so
# CI compiles the library with clang once (with every SIMD target of kernels.cc
# this CPU runs; below).
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
# The three files that compile every SIMD target (kernels.cc, kernels_insert.cc,
# counting.cc) were most of this stage: kernels.cc alone took 6.5-8 min to
# compile (Zen 4 guest, two compiles at a time). They keep ASan, the fuzzers'
# coverage hooks and the rest of UBSan, but not UBSan's pointer-overflow check:
# without it kernels.cc compiled in 298 s instead of 496 (the two side by side,
# 2026-11-27), and the check fires only when pointer arithmetic wraps around the
# address space (ASan still catches an access out of bounds). The other files
# keep every check. The three also carry line tables only, not full debug
# info: enough for a sanitizer's report to name file and line, and
# kernels_insert.cc compiled in 215 s instead of 292 (Emerald Rapids guest,
# one at a time, 2026-11-29).
kernel_options="-fno-sanitize=pointer-overflow;-gline-tables-only"  # a CMake list
# The tests here run the x86 targets this CPU supports (and EMU128), so this
# build compiles those: the x86 targets the CPU lacks go to Highway's
# HWY_DISABLED_TARGETS (tools/ci/hwy-targets.sh), as in tools/ci/tsan.sh. On
# an AVX2-only CPU that leaves out avx3 and avx3_dl, whose code the sanitizers
# would compile and never run. clang's warnings on their code are still
# errors in the compile matrix (tools/ci/compile-matrix.sh: -fsyntax-only
# -Werror under every -march with every attainable target). The list comes
# from the g++ stage's CLI (`blockbloom targets`); without it every target is
# compiled as before. The sanitize and fuzz stages both call this script and
# get the same flags, so the build is configured and compiled once.
# shellcheck source=tools/ci/hwy-targets.sh
source tools/ci/hwy-targets.sh
lacking=$(cli_targets | awk '$2 == "no" { print $1 }')
# shellcheck disable=SC2086  # one name a word
disabled=$(hwy_disabled $lacking)
if [[ -n $disabled ]]; then
  flags+=" -DHWY_DISABLED_TARGETS=$disabled"
  echo "-- asan: x86 targets this CPU lacks left out of the sanitized build: ${lacking//$'\n'/ }"
fi
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ -DBLOCKBLOOM_WERROR=ON \
  -DBLOCKBLOOM_FUZZ=ON -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_INSTALL=OFF \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" \
  -DBLOCKBLOOM_KERNELS_COMPILE_OPTIONS="$kernel_options" >/dev/null
cmake --build "$build" -j "$(nproc)" --target "$@"
