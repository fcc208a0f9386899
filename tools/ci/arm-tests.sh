#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# ARM stage of the test command (tools/test.sh runs it when present): cross-
# compile the library and the kernel tests for aarch64 with g++-aarch64-linux-gnu
# against Debian's arm64 libhwy-dev, then run them under qemu-aarch64 on a set of
# emulated CPUs, so that every ARM target Highway compiles (NEON, SVE, SVE2 and
# the fixed-width SVE_256 / SVE2_128) is checked against the scalar reference.
#
#   tools/ci/arm-tests.sh   # build/arm64; 6-8 min from clean on 2 cores (docs/arm.md)
#
# kernels_test skips the targets a CPU cannot run, so a green run proves
# nothing by itself: for every CPU below the script also checks which targets
# actually RAN (every case passed, none skipped) and which were skipped, and
# fails when a target that CPU must run was skipped or one it must not run ran.
#
# Environment: BLOCKBLOOM_ARM_BUILD_DIR (default build/arm64),
# BLOCKBLOOM_ARM_TIMEOUT (seconds per emulated run, default 600: kernels_test
# under an emulated SVE CPU takes 22-57 s on a 2-core machine, two at a time,
# so only a hang reaches it).
set -euo pipefail
cd "$(dirname "$0")/../.."
start=$SECONDS
build=${BLOCKBLOOM_ARM_BUILD_DIR:-build/arm64}
run_timeout=${BLOCKBLOOM_ARM_TIMEOUT:-600}
# qemu's -L prefix: "/" runs the binaries on Debian's arm64 multiarch runtime
# (libc6:arm64, libstdc++6:arm64; libhwy1:arm64 pulls them in): its loader
# /lib/ld-linux-aarch64.so.1 and its libc come from the same package. Not the
# cross sysroot /usr/aarch64-linux-gnu: its loader (libc6-arm64-cross
# 2.36-8cross1) searches /lib/aarch64-linux-gnu first and so pairs itself with
# libc6:arm64's libc.so.6 (2.36-9+deb12u14); the two disagree on glibc's private
# loader state and pthread_create spins forever walking the stack cache list.
qemu_prefix=/
step() { printf -- '-- arm64: %s (at %ss)\n' "$*" "$((SECONDS - start))"; }

step "dependencies"
tools/scripts/install-deps.sh arm

# Tools and benchmarks stay off: the stage is about the kernels (and whatever
# else must behave the same on ARM), and every extra file costs CI time.
step "configure $build"
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/aarch64-linux-gnu.cmake" \
  -DCMAKE_BUILD_TYPE=Release -DBLOCKBLOOM_WERROR=ON \
  -DBLOCKBLOOM_BUILD_TESTS=ON -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_BUILD_TOOLS=OFF >/dev/null

# kernels_test is the point of the stage. The others, when present, check what
# must not change across machines: filter_test pins every layout's bytes (golden
# schema) and runs concurrent atomic inserts (LSE under "max", LL/SC under the
# A72), format_test loads files written on x86, model_test and stats_test the
# floating-point model and statistics (aarch64 g++ fuses multiply-adds by
# default), typed_test the inline NEON probes of blockbloom/typed.h (typed_simd.cc, built +crypto) and the
# dispatched fallback of a plain armv8-a file. Each runs in seconds under qemu; fpr_test is left out: 90 s
# of emulated SVE for statistics x86 covers.
tests=(kernels_test)
# By source file (a library's suites are in its folder under tests/); the target is the file's name.
optional_tests=(tests/layout_test.cc tests/filter_test.cc tests/format_test.cc tests/model_test.cc
                tests/verify/stats_test.cc tests/garden/garden_counting_kernels_test.cc tests/typed_test.cc)
for t in "${optional_tests[@]}"; do [[ -f $t ]] && { t=${t##*/}; tests+=("${t%.cc}"); }; done
step "build ${tests[*]}"
cmake --build "$build" -j "$(nproc)" --target "${tests[@]}"
build_done=$SECONDS

# CPU matrix: name, qemu -cpu value, targets that must run, targets that must
# be skipped, and which targets' kernel cases run: "all", or "sve" (the rows
# that only vary the vector length: NEON and the scalar fallback do not depend
# on it and run under max and cortex-a72; leaving them out of the other five
# saves ~28 s of emulation a row). qemu-user's "max" has NEON, SVE and SVE2 with a 512-bit vector by
# default; sve-max-vq=N caps the vector at N x 128 bits and
# sve-default-vector-length (bytes) sets it. Highway picks SVE2_128 only at
# exactly 128 bits and SVE_256 only at exactly 256, so those rows pin both;
# 384 bits (not a power of two) and 2048 (the architectural maximum) check
# kernels that must not assume a lane count.
matrix=(
  "max         max                                  sve2,sve,neon,scalar          sve_256,sve2_128            all"
  "sve128      max,sve-max-vq=1                     sve2_128,sve2,sve             sve_256                     sve"
  "sve256      max,sve-max-vq=2                     sve_256,sve2,sve              sve2_128                    sve"
  "sve384      max,sve-max-vq=3                     sve2,sve                      sve_256,sve2_128            sve"
  "sve2048     max,sve-default-vector-length=256    sve2,sve                      sve_256,sve2_128            sve"
  "a64fx       a64fx                                sve                           sve2,sve2_128               sve"
  "cortex-a72  cortex-a72                           neon,scalar                   sve,sve2,sve_256,sve2_128   all"
)

# The CPUs each of the other tests runs on: max (SVE2) and cortex-a72 (NEON
# only), as the kernels they call differ; model_test calls none (the model's
# floating point and scalar index math: the same instructions on either, ~45 s
# of emulated long double each), so max alone.
cpus_of() { if [[ $1 == model_test ]]; then echo max; else echo max cortex-a72; fi; }

logdir="$build/arm-logs"
mkdir -p "$logdir"
rm -f "$logdir"/*  # no status left from an earlier run
failed=0
summary=()

# run NAME CPU BINARY [GTEST_FILTER]: runs one test binary under qemu, logs to
# $logdir/NAME.BINARY.log, its exit status to .rc and its seconds to .secs.
run() {
  local log t0=$SECONDS rc=0
  log="$logdir/$1.$(basename "$3").log"
  timeout "$run_timeout" qemu-aarch64 -L "$qemu_prefix" -cpu "$2" "$3" --gtest_color=no ${4:+"--gtest_filter=$4"} \
    >"$log" 2>&1 || rc=$?
  echo "$rc" >"$log.rc"
  echo "$((SECONDS - t0))" >"$log.secs"
}
export -f run
export logdir run_timeout qemu_prefix
# Each emulated run is one thread: they run nproc at a time (xargs -P), all
# before any is checked; lines of "NAME CPU BINARY".
run_all() {
  xargs -P "$(nproc)" -L 1 bash -c 'run "$@"' _
}
# checked NAME CPU BINARY: sets secs from the run's files, and failed=1 (with
# the log's failures) if the run failed.
checked() {
  local log rc
  log="$logdir/$1.$(basename "$3").log"
  rc=$(cat "$log.rc" 2>/dev/null || echo missing)
  secs=$(cat "$log.secs" 2>/dev/null || echo 0)
  if [[ $rc != 0 ]]; then
    echo "arm64: FAILED: $(basename "$3") under -cpu $2 (exit $rc$([[ $rc == 124 ]] && echo ", timed out after ${run_timeout}s")); log $log:" >&2
    grep -E '^\[  FAILED  \]|Failure|Expected|Which is|Value of|error' "$log" | head -40 >&2 || tail -20 "$log" >&2
    failed=1
  fi
}

# From a gtest log: the targets with a case in state STATE (OK, SKIPPED,
# FAILED) among the per-target cases AllTargets/Kernels.Case/<target>.
targets_with() {
  sed -n "s|^\\[ *$2 *\\] AllTargets/Kernels\\.[^/]*/\\([a-z0-9_]*\\)[ ,].*|\\1|p" "$1" | sort -u
}
# Targets that ran: every case passed (none skipped, none failed).
ran_targets() {
  comm -23 <(targets_with "$1" OK) <(sort -u <(targets_with "$1" SKIPPED) <(targets_with "$1" FAILED)) |
    paste -sd, -
}

# kernels_test on every CPU of the matrix; the other tests go through the
# dispatcher (best target of the CPU): once on the richest CPU (SVE2) and once
# on a NEON-only one. All run first, nproc at a time (xargs -P); then each is checked.
# model_test (~60 s, the longest after kernels_test) goes first, so that it
# does not run alone at the end.
{
  if [[ " ${tests[*]} " == *" model_test "* ]]; then
    for cpu in $(cpus_of model_test); do echo "$cpu $cpu $build/tests/model_test"; done
  fi
  for row in "${matrix[@]}"; do
    read -r name cpu _ _ cases <<<"$row"
    filter=""
    [[ $cases == sve ]] && filter="-AllTargets/Kernels.*/neon:AllTargets/Kernels.*/scalar"
    echo "$name $cpu $build/tests/kernels_test${filter:+ $filter}"  # (a trailing blank would join lines in xargs -L)
  done
  for bin in "${tests[@]:1}"; do
    [[ $bin == model_test ]] && continue  # (first, above)
    for cpu in $(cpus_of "$bin"); do echo "$cpu $cpu $build/tests/$bin"; done
  done
} | run_all

for row in "${matrix[@]}"; do
  read -r name cpu must mustnot _ <<<"$row"
  checked "$name" "$cpu" "$build/tests/kernels_test"
  log="$logdir/$name.kernels_test.log"
  ran=$(ran_targets "$log")
  skipped=$(targets_with "$log" SKIPPED | paste -sd, -)
  for t in ${must//,/ }; do
    if [[ ",$ran," != *",$t,"* ]]; then
      echo "arm64: FAILED: under -cpu $cpu target '$t' must run but did not (ran: ${ran:-none}; skipped: ${skipped:-none})" >&2
      failed=1
    fi
  done
  for t in ${mustnot//,/ }; do
    if [[ ",$ran," == *",$t,"* ]]; then
      echo "arm64: FAILED: under -cpu $cpu target '$t' ran but this CPU cannot run it: CPU detection is wrong" >&2
      failed=1
    fi
  done
  summary+=("$(printf '%-11s %-36s %4ss  ran: %-34s skipped: %s' "$name" "$cpu" "$secs" "${ran:-none}" "${skipped:-none}")")
done

for bin in "${tests[@]:1}"; do
  for cpu in $(cpus_of "$bin"); do
    checked "$cpu" "$cpu" "$build/tests/$bin"
    summary+=("$(printf '%-11s %-36s %4ss  %s: %s' "$cpu" "$cpu" "$secs" "$bin" \
      "$(grep -E '^\[  (PASSED|FAILED) ' "$logdir/$cpu.$bin.log" | paste -sd' ' -)")")
  done
done

echo "arm64: targets that ran per emulated CPU (logs in $logdir):"
printf '  %s\n' "${summary[@]}"
echo "arm64: build $((build_done - start))s, emulated runs $((SECONDS - build_done))s, stage $((SECONDS - start))s"
if [[ $failed -ne 0 ]]; then
  echo "arm64: FAILED (see above)" >&2
  exit 1
fi
echo "arm64: all passed"
