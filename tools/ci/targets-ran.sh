#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tools/ci/targets-ran.sh CTEST_LOG: one line saying which SIMD targets' cases
# ran (passed) and which were skipped (the CPU lacks them) in a ctest log of the
# kernel suites (AllTargets/<Suite>.<Case>/<target>), for the test summary.
set -euo pipefail
log=$1
sed -nE 's@.*AllTargets/[A-Za-z]+\.[A-Za-z0-9_]+/([a-z0-9_]+) .*[.] +(\*\*\*)?([A-Za-z]+) +[0-9.]+ sec.*@\1 \3@p' "$log" |
  awk '
    { if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 } st[$1, $2]++ }
    END {
      ran = ""; skipped = ""; other = ""
      for (i = 1; i <= n; i++) {
        t = order[i]
        if (st[t, "Passed"] > 0) ran = ran " " t
        if (st[t, "Skipped"] > 0 && st[t, "Passed"] == 0) skipped = skipped " " t
      }
      if (n == 0) { print "SIMD targets: no per-target kernel case in the log"; exit 1 }
      printf "SIMD targets run:%s; skipped (this CPU lacks them):%s\n", ran, (skipped == "" ? " none" : skipped)
    }'
