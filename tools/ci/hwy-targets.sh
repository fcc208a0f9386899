# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by the clang stages that compile fewer SIMD targets than the g++
# build, since their tests run only some (tools/ci/asan-build.sh: the x86
# targets this CPU supports; tools/ci/tsan.sh: the one in use):
#   cli_targets      the g++ stage's `blockbloom targets` table without its
#                    header (name, supported yes/no, "*" on the one in use), or
#                    nothing without that CLI (BLOCKBLOOM_CLI, default
#                    build/gcc/tools/blockbloom)
#   hwy_disabled T.. the value for Highway's HWY_DISABLED_TARGETS that leaves
#                    out the x86 targets named (a sum of distinct bits, e.g.
#                    HWY_AVX3_DL+HWY_AVX3); names it does not know are skipped,
#                    and none known prints nothing
# The x86 targets Highway 1.0.3 compiles here, by the names the CLI prints:
# shellcheck disable=SC2034  # read by the scripts that source this file
hwy_x86_targets=(avx3_dl avx3 avx2 sse4 ssse3)
declare -A hwy_bit=([avx3_dl]=HWY_AVX3_DL [avx3]=HWY_AVX3 [avx2]=HWY_AVX2 [sse4]=HWY_SSE4 [ssse3]=HWY_SSSE3)
cli_targets() {
  local cli=${BLOCKBLOOM_CLI:-build/gcc/tools/blockbloom}
  [[ -x $cli ]] || return 0
  "$cli" targets 2>/dev/null | awk 'NR > 1' || true
}
hwy_disabled() {
  local t sum=""
  for t in "$@"; do
    if [[ -n ${hwy_bit[$t]:-} ]]; then sum+="${sum:++}${hwy_bit[$t]}"; fi
  done
  echo "$sum"
}
