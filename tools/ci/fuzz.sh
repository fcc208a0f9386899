#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The fuzz stage of tools/test.sh: builds the six libFuzzer targets of
# tests/fuzz/ with clang, libFuzzer, ASan and UBSan (library included, every
# SIMD target compiled in, as the shipped library is) and fuzzes each for a
# share of BLOCKBLOOM_FUZZ_SECONDS (default 60 in all, one fuzzer per core at a
# time) from its committed seed corpus:
#   load_fuzzer  the filter loader and the Parquet header parser (buffers)
#   view_fuzzer  the file paths: mmap view, pread loader and buffer must agree,
#                on every SIMD target this CPU runs
#   keys_fuzzer  the CLI's key-file reader, lines and fixed-width records
#   garden_load_fuzzer  the garden-file loader, every variant (seeds: the golden files)
#   garden_sizing_fuzzer  the garden's sizing at any n and its stats at any header
#                counts, each input within a time bound (seeds: none, inputs are numbers)
#   rocksdb_fuzzer  RocksDB filter blocks and SST files (seed: the golden SST)
# Exits non-zero on any crash, leak, sanitizer report or broken invariant; the
# offending input is kept in build/asan/ (<target>-crash-*, ...) to reproduce
# with: build/asan/tests/fuzz/<target> FILE
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${BLOCKBLOOM_ASAN_BUILD_DIR:-build/asan}  # shared with the sanitizer stage
seconds=${BLOCKBLOOM_FUZZ_SECONDS:-60}
targets=(load_fuzzer view_fuzzer keys_fuzzer garden_load_fuzzer garden_sizing_fuzzer rocksdb_fuzzer)
share=$(( seconds / ${#targets[@]} ))
(( share >= 1 )) || share=1

# The sanitized build the sanitizer stage made (tools/ci/asan-build.sh: every SIMD
# target this CPU runs compiled in, coverage hooks throughout); only the fuzzers
# are left to link.
BLOCKBLOOM_ASAN_BUILD_DIR=$build tools/ci/asan-build.sh "${targets[@]}"

# libFuzzer writes new inputs into its first corpus directory: fuzz copies so
# the committed seeds stay as they are.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# One fuzzer per core at a time (tools/ci/lanes.sh), each for its share.
lane_job() {
  local t=$1 seeds=tests/fuzz/corpus
  mkdir -p "$work/$t"
  case $t in
    keys_fuzzer) cp tests/fuzz/corpus-keys/* "$work/$t"/; seeds=tests/fuzz/corpus-keys ;;
    garden_load_fuzzer) cp tests/golden/garden_*.bbg "$work/$t"/; seeds='tests/golden/garden_*.bbg' ;;
    garden_sizing_fuzzer) seeds="no seeds" ;;
    rocksdb_fuzzer) cp tests/golden/rocksdb_100keys.sst "$work/$t"/; seeds=tests/golden/rocksdb_100keys.sst ;;
    *) cp "$seeds"/* "$work/$t"/ ;;
  esac
  echo "== $t: ${share} s from $seeds"
  # -max_len: the seeds are at most a few hundred bytes; 4 KiB leaves room for
  # multi-block payloads and many keys without slowing the run.
  "$build/tests/fuzz/$t" -max_total_time="$share" -max_len=4096 -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$build/$t-" -print_final_stats=1 "$work/$t"
}
export -f lane_job
export build work share
# shellcheck source=tools/ci/lanes.sh
source tools/ci/lanes.sh
run_lanes "$work/logs" "${targets[@]}"
