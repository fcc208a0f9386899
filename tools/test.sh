#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's second command (and all that CI runs): install what is missing,
# build everything warning-free with g++ and run every test (each SIMD target
# its own case); then the stages below, clang's among them: the sanitizer
# stage builds everything warning-free with clang (under ASan + UBSan) and runs
# the engine, kernel and typed tests there (clang's fallback target is EMU128,
# g++'s SCALAR).
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc)
# Each stage's header also says how long the one before it took ($SECONDS: the
# script's elapsed seconds), so a CI log shows where the time goes.
stage_name="" stage_start=0
stage() {
  [[ -z $stage_name ]] || printf -- '-- %s: %d s\n' "$stage_name" $((SECONDS - stage_start))
  stage_name=$* stage_start=$SECONDS
  printf '\n== %s ==\n' "$*"
}

stage "dependencies"
tools/scripts/install-deps.sh test report  # report: matplotlib for the report test

stage "g++: build (warnings are errors)"
cmake -S . -B build/gcc -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DBLOCKBLOOM_WERROR=ON >/dev/null
cmake --build build/gcc -j "$jobs"

stage "g++: tests"
ctest --test-dir build/gcc --output-on-failure -j "$jobs" | tee build/gcc/ctest.log
tools/ci/targets-ran.sh build/gcc/ctest.log

# Compile-matrix stage: the Highway-including sources and a typed.h consumer
# under every -march a user may pass (g++, clang, aarch64 g++), compile only.
# BLOCKBLOOM_SKIP_MATRIX=1 leaves it out.
if [[ "${BLOCKBLOOM_SKIP_MATRIX:-0}" != 1 ]]; then
  stage "compile matrix: typed.h and the kernels under every -march (x86-64 .. sapphirerapids, Zen 4, native; ARM)"
  tools/scripts/install-deps.sh arm
  tools/ci/compile-matrix.sh
fi

# Package stage: install to a temporary prefix, build and run examples/ through
# find_package, pkg-config and add_subdirectory. BLOCKBLOOM_SKIP_PACKAGE=1 leaves it out.
if [[ -x tools/ci/package.sh && "${BLOCKBLOOM_SKIP_PACKAGE:-0}" != 1 ]]; then
  stage "package: install, then the example via find_package, pkg-config, add_subdirectory"
  tools/ci/package.sh
fi

# Further stages, each a script of its own: ARM (NEON/SVE under qemu), clang
# under the sanitizers and the loader fuzzer (those two share one sanitized
# build, tools/ci/asan-build.sh). BLOCKBLOOM_SKIP_ARM=1, BLOCKBLOOM_SKIP_SANITIZE=1
# and BLOCKBLOOM_SKIP_FUZZ=1 leave them out locally.
if [[ -x tools/ci/arm-tests.sh && "${BLOCKBLOOM_SKIP_ARM:-0}" != 1 ]]; then
  stage "arm64: cross-build, kernel tests under qemu"
  tools/ci/arm-tests.sh
fi
if [[ -x tools/ci/sanitize.sh && "${BLOCKBLOOM_SKIP_SANITIZE:-0}" != 1 ]]; then
  stage "clang: build (warnings are errors) under ASan + UBSan, engine, kernel and typed tests"
  tools/ci/sanitize.sh
fi
if [[ -x tools/ci/tsan.sh && "${BLOCKBLOOM_SKIP_TSAN:-0}" != 1 ]]; then
  stage "ThreadSanitizer: concurrent writers beside readers (clang)"
  tools/ci/tsan.sh
fi
if [[ -x tools/ci/fuzz.sh && "${BLOCKBLOOM_SKIP_FUZZ:-0}" != 1 ]]; then
  stage "fuzz: filter loader under libFuzzer + ASan/UBSan"
  tools/ci/fuzz.sh
fi
# ---- Python stage: the bindings and blockbloom.dask under pytest (BLOCKBLOOM_SKIP_PYTHON=1 leaves it out) ----
if [[ -x tools/ci/python.sh && "${BLOCKBLOOM_SKIP_PYTHON:-0}" != 1 ]]; then
  stage "python: bindings (pybind11, /usr/bin/python3) and Dask tests under pytest"
  BLOCKBLOOM_PYTHON_BUILD_DIR=build/gcc tools/ci/python.sh  # the extension added to the g++ build
fi
# ---- end of the Python stage ----
stage "all tests passed"
# One closing line for CI: the CTest cases of the g++ build (the clang, ARM and
# fuzz stages above print their own and fail the script if anything fails).
total() { sed -n 's/.*tests passed, 0 tests failed out of \([0-9]*\).*/\1/p' "$1" | tail -n 1; }
tools/ci/targets-ran.sh build/gcc/ctest.log
echo "ctest: $(total build/gcc/ctest.log) passed, 0 failed"
echo "total: $((SECONDS / 60)) min $((SECONDS % 60)) s"
