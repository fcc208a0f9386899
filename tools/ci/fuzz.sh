#!/usr/bin/env bash
# The loader fuzz stage of tools/test.sh: builds tests/fuzz/load_fuzzer with
# clang, libFuzzer, ASan and UBSan (library included), then fuzzes the filter
# loader and the Parquet header parser for BLOCKBLOOM_FUZZ_SECONDS (default 60)
# starting from the committed seed corpus. Exits non-zero on any crash, leak,
# sanitizer report or broken invariant; the offending input is kept in
# build/fuzz/ (crash-*, leak-*) to reproduce with: build/fuzz/tests/fuzz/load_fuzzer FILE
set -euo pipefail
cd "$(dirname "$0")/../.."
build=build/fuzz
seconds=${BLOCKBLOOM_FUZZ_SECONDS:-60}

tools/install-deps.sh fuzz
# Only the library and the fuzzer; one SIMD target set (the baseline) keeps the
# instrumented build small.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DBLOCKBLOOM_FUZZ=ON -DBLOCKBLOOM_WERROR=ON -DBLOCKBLOOM_ALL_TARGETS=OFF \
  -DBLOCKBLOOM_BUILD_TESTS=OFF -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_BUILD_TOOLS=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=address,undefined -fsanitize=fuzzer-no-link -fno-sanitize-recover=all -fno-omit-frame-pointer" \
  >/dev/null
cmake --build "$build" -j "$(nproc)" --target load_fuzzer

# libFuzzer writes new inputs into its first corpus directory: fuzz a copy so
# the committed seeds stay as they are.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp tests/fuzz/corpus/* "$work"/
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# -max_len: the seeds are at most a few hundred bytes; 4 KiB leaves room for
# multi-block payloads without slowing the run.
"$build/tests/fuzz/load_fuzzer" -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$build/" -print_final_stats=1 "$work"
