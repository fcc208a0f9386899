#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Benchmarks of the Python bindings and blockbloom.dask; writes a Markdown report.

    PYTHONPATH=build/python/python /usr/bin/python3 python/bench/bench_python.py [--dask-keys 1e8] [-o FILE]

1. Python batch calls against the C++ batch call, per key, at 1M and 10M uint64 keys, in one process:
   the Python number is `f.insert(keys)` / `f.may_contain(keys)` (a new answer array each call) /
   `f.may_contain(keys, out=answers)` (a reused one) timed around the Python call (argument parsing,
   allocation, the GIL release included); the C++ number is the same
   Filter::InsertBatch / MayContainBatch on the same filter and keys, timed inside C++ by the module's
   `_bench_cpp` entry (a preallocated answer buffer, no Python in the loop). Interleaved rounds (--reps): the best of each and the median of the per-round ratios,
   plus the fixed cost of one call measured on a 1-key batch.
2. Dask: a filter of --dask-keys keys (1% rate, blocked512) built with blockbloom.dask.build on a
   LocalCluster of --workers worker processes (1 thread each), keys generated inside the tasks
   (da.arange), and probed back with blockbloom.dask.may_contain; against one process inserting and
   probing the same keys chunk by chunk with the same batch calls.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import statistics
import time

import numpy as np

import blockbloom
from blockbloom import Filter


def cpu_name() -> str:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def best(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def python_vs_cpp(sizes, reps: int) -> list[str]:
    rows = ["| keys | op | Python ns/key (best) | C++ ns/key (best) | best / best | median of round ratios (quartiles) |",
            "| --- | --- | --- | --- | --- | --- |"]
    for n in sizes:
        keys = np.random.default_rng(1).integers(0, 2**64, size=n, dtype=np.uint64)
        f = Filter.for_keys(n, 0.01)
        f.insert(keys)  # warm: pages touched, same state for both timings
        answers = np.empty(n, dtype=bool)
        calls = {
            "insert": lambda: f.insert(keys),
            "query": lambda: f.may_contain(keys),
            "query, out=": lambda: f.may_contain(keys, out=answers),
        }
        for op, call in calls.items():
            # Interleaved, one call each per round, best of the rounds: the machine's load drifts
            # (other builds share the cores), and this way both see the same drift.
            pys, cpps = [], []
            for _ in range(reps):
                pys.append(best(call, 1))
                cpps.append(blockbloom._core._bench_cpp(f, keys, op.split(",")[0], 1))
            ratios = sorted(p / c for p, c in zip(pys, cpps))
            py, cpp = min(pys) * 1e9 / n, min(cpps) * 1e9 / n
            rows.append(f"| {n:,} | {op} | {py:.2f} | {cpp:.2f} | {py / cpp:.3f} | {statistics.median(ratios):.3f} "
                        f"({ratios[len(ratios) // 4]:.2f}..{ratios[(3 * len(ratios)) // 4]:.2f}) |")
            print(rows[-1], flush=True)
    # The fixed cost of a call, what the ratio tends to at large n: a one-key batch.
    f = Filter.for_keys(1000, 0.01)
    one = np.zeros(1, dtype=np.uint64)
    answers = np.empty(1, dtype=bool)
    per_call = [min(best(lambda: f.may_contain(one), 1) for _ in range(2000)),
                min(best(lambda: f.may_contain(one, out=answers), 1) for _ in range(2000)),
                min(best(lambda: f.insert(one), 1) for _ in range(2000))]
    rows += ["", f"Fixed cost of a Python batch call (a 1-key batch, best of 2000, Python timer included): "
             f"may_contain {per_call[0] * 1e6:.2f} us, with out= {per_call[1] * 1e6:.2f} us, insert "
             f"{per_call[2] * 1e6:.2f} us; at 1M keys that is {per_call[0] * 1e9 / 1e6:.4f} ns/key."]
    return rows


def dask_run(total: int, chunk: int, workers: int) -> list[str]:
    import dask.array as da
    from distributed import Client, LocalCluster

    import blockbloom.dask as bbd

    # One process: the same keys, chunk by chunk (generation included, as in the Dask tasks).
    f1 = Filter.for_keys(total, 0.01)
    t = time.perf_counter()
    for start in range(0, total, chunk):
        f1.insert(np.arange(start, min(start + chunk, total), dtype=np.uint64))
    one_build = time.perf_counter() - t
    t = time.perf_counter()
    hits1 = 0
    for start in range(0, total, chunk):
        hits1 += f1.count(np.arange(start, min(start + chunk, total), dtype=np.uint64))
    one_probe = time.perf_counter() - t

    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None,
                      silence_logs=50) as cluster, Client(cluster) as client:
        client.wait_for_workers(workers)
        keys = da.arange(total, dtype=np.uint64, chunks=chunk)
        t = time.perf_counter()
        f = bbd.build(keys, total, 0.01)
        dask_build = time.perf_counter() - t
        per_worker = -(-(total // chunk) // workers)  # one filter per worker
        t = time.perf_counter()
        fg = bbd.build(keys, total, 0.01, partitions_per_filter=per_worker)
        dask_grouped = time.perf_counter() - t
        t = time.perf_counter()
        hits = int(bbd.may_contain(keys, f).sum().compute())
        dask_probe = time.perf_counter() - t
    assert f == f1 and fg == f1 and hits == hits1 == total
    rate = lambda s: f"{total / s / 1e6:.1f} M keys/s"  # noqa: E731
    return [
        f"| what | one process | Dask, {workers} worker processes | Dask / one process |",
        "| --- | --- | --- | --- |",
        f"| build {total:,} keys ({total // chunk} partitions, tree union) | {rate(one_build)} ({one_build:.1f} s) "
        f"| {rate(dask_build)} ({dask_build:.1f} s) | {one_build / dask_build:.2f}x |",
        f"| build, partitions_per_filter={per_worker} ({-(-(total // chunk) // per_worker)} filters) | "
        f"| {rate(dask_grouped)} ({dask_grouped:.1f} s) | {one_build / dask_grouped:.2f}x |",
        f"| probe {total:,} keys (bools summed on the workers) | {rate(one_probe)} ({one_probe:.1f} s) "
        f"| {rate(dask_probe)} ({dask_probe:.1f} s) | {one_probe / dask_probe:.2f}x |",
        "",
        f"Dask filter equals the one-process filter byte for byte: {f.to_bytes() == f1.to_bytes()} "
        f"({f.nbytes / 2**20:.0f} MiB, k = {f.k}).",
    ]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1e6,1e7", help="key counts for the Python vs C++ rows")
    ap.add_argument("--reps", type=int, default=21)
    ap.add_argument("--dask-keys", type=float, default=1e8, help="0 skips the Dask run")
    ap.add_argument("--chunk", type=float, default=1e7)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("-o", "--output", default=os.path.join(os.path.dirname(__file__), "results.md"))
    args = ap.parse_args()

    load = os.getloadavg()
    lines = [
        "# blockbloom Python benchmarks",
        "",
        f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; CPU: {cpu_name()}, "
        f"{os.cpu_count()} cores; target {blockbloom.active_target()}; Python {platform.python_version()}, "
        f"numpy {np.__version__}; load average at start {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}.",
        "",
        "## Python batch calls against the C++ batch calls (same process, same filter and keys, interleaved, best of the rounds)",
        "",
    ]
    lines += python_vs_cpp([int(float(s)) for s in args.sizes.split(",")], args.reps)
    if args.dask_keys > 0:
        lines += ["", "## Dask (LocalCluster on this machine) against one process", ""]
        lines += dask_run(int(args.dask_keys), int(args.chunk), args.workers)
    load = os.getloadavg()
    lines += ["", f"Load average at the end: {load[0]:.1f} / {load[1]:.1f} / {load[2]:.1f}."]
    with open(args.output, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
