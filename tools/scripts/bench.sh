#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The one benchmark command: installs what it needs, builds blockbloom_bench,
# runs it, and turns its JSON into a Markdown report and PNG plots.
#
#   tools/scripts/bench.sh [--quick|--full] [--out DIR] [--build DIR] [-- BENCHMARK_FLAGS...]
#
#   (default)  the issue's matrix at 10 bits/key from 32 KiB to 1 GiB, 8 and 16 bits/key
#              up to 256 MiB, URL keys up to 10M keys: ~10-15 min, peak memory ~2 GiB
#   --quick    the speed-target points (1M, 10M, 100M keys): a few minutes
#   --full     every layout x size x bits/key x key type x op x mode x target x threads: hours
#   --prefetch each layout's batches with prefetch forced on and off, side by side, 128 KiB to
#              4 MiB (sizes: -- --bb_sizes=256KiB,1.5MiB,...; target: -- --bb_target=avx2):
#              ~3 min with -- --benchmark_repetitions=5; report.md tabulates on / off
#   --out DIR  where results.json, run.json, bench.log, report.md and the PNGs go (default
#              bench/local, not tracked by git; the figures of docs/benchmarks.md are a named run
#              published with --out bench/results)
#   --build D  build directory (default build/bench)
# Anything after -- goes to the benchmark binary, e.g. -- --benchmark_filter=blocked512
# Benchmarks are not part of tools/test.sh; they need a quiet machine to mean much.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
preset=default out="$root/bench/local" build="$root/build/bench"
command="tools/scripts/bench.sh${*:+ $*}"
extra=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) preset=quick ;;
    --full) preset=full ;;
    --prefetch) preset=prefetch ;;
    --out) out=$2; shift ;;
    --build) build=$2; shift ;;
    --) shift; extra=("$@"); break ;;
    *) echo "bench.sh: unknown option '$1' (expected --quick, --full, --prefetch, --out DIR, --build DIR, -- FLAGS)" >&2; exit 2 ;;
  esac
  shift
done

"$root/tools/scripts/install-deps.sh" build report
cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" -j"$(nproc)" --target blockbloom_bench
mkdir -p "$out"
echo "bench.sh: preset $preset -> $out (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
# The run's own record beside its results: the command, the commit, and the
# caches as lscpu reads them from sysfs on this machine (the report marks them).
/usr/bin/python3 - "$out/run.json" "$command" "$(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)" <<'PY'
import json, subprocess, sys
caches = []
try:
    for c in json.loads(subprocess.run(["lscpu", "-J", "-C", "-B"], capture_output=True, text=True).stdout)["caches"]:
        if c.get("type") != "Instruction":
            caches.append([c["name"], int(c["one-size"])])
except Exception:  # lscpu without -C: the report falls back to Google Benchmark's own cache list
    pass
json.dump({"command": sys.argv[2], "commit": sys.argv[3], "caches": caches}, open(sys.argv[1], "w"), indent=1)
PY
"$build/bench/blockbloom_bench" --bb_preset="$preset" \
  --benchmark_out="$out/results.json" --benchmark_out_format=json "${extra[@]}" 2>&1 | tee "$out/bench.log"
# The load average as the run ended, beside the start's in results.json: the report flags either above the
# CPU count (a loaded machine).
/usr/bin/python3 - "$out/run.json" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))
run["loadavg_at_end"] = open("/proc/loadavg").read().strip()
json.dump(run, open(sys.argv[1], "w"), indent=1)
PY
# Debian's python3 (with python3-matplotlib), whatever python3 comes first on PATH.
/usr/bin/python3 "$root/tools/scripts/report.py" "$out/results.json" "$out"
