#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""ns/key of Filter.insert and Filter.may_contain per kind of key input, at --keys URL-like keys (30-80 ASCII
bytes) or their uint64 ids: a numpy 'U' array, an 'S' array, a list of str, an object array of str, uint64.

    build/venv/bin/python python/bench/bench_keys.py [--keys 2e6] [--rounds 9] [--non-ascii] [--clock cpu]

Interleaved rounds (one call per kind per round, so a load that drifts hits every kind alike); the median
and the spread of the rounds per kind. The filter is sized for the keys at 1% (blocked512, xxh3) and
re-inserting the same keys costs what the first insert did (the same bits are set). --non-ascii puts an
'é' in every key (the 'U' array then takes the UTF-8 encoder instead of the ASCII path). --clock cpu times
the calling thread's CPU time instead of the wall clock: on a machine shared with other work it leaves
out the time the thread waited for a core (every call runs on the calling thread).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

import blockbloom


def url_keys(n: int, non_ascii: bool) -> list[str]:
    rng = np.random.default_rng(1)
    hosts = [f"https://www.site{i}.example.com/" for i in range(1000)]
    pad = "abcdefghijklmnopqrstuvwxyz0123456789-_/" * 2
    tail = "é" if non_ascii else ""
    lengths = rng.integers(0, 40, size=n)
    which = rng.integers(0, len(hosts), size=n)
    return [f"{hosts[w]}{i}/{pad[:ln]}{tail}" for i, (w, ln) in enumerate(zip(which, lengths))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keys", type=float, default=2e6)
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--non-ascii", action="store_true")
    ap.add_argument("--clock", choices=["wall", "cpu"], default="wall")
    args = ap.parse_args()
    n = int(args.keys)
    strs = url_keys(n, args.non_ascii)
    inputs = {
        "'U' array": np.array(strs),
        "'S' array": np.array([s.encode() for s in strs]),
        "list of str": strs,
        "object array": np.array(strs, dtype=object),
        "uint64": np.arange(n, dtype=np.uint64),
    }
    lens = [len(s.encode()) for s in strs]
    width = inputs["'U' array"].itemsize
    print(f"{n:,} keys, UTF-8 {min(lens)}-{max(lens)} bytes (mean {statistics.mean(lens):.1f}); 'U' itemsize {width}; "
          f"target {blockbloom.active_target()}; load {os.getloadavg()[0]:.1f}", flush=True)
    f = blockbloom.Filter.for_keys(n, 0.01)
    clock = time.perf_counter if args.clock == "wall" else time.thread_time
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for kind, keys in inputs.items():
            for op, call in (("insert", f.insert), ("may_contain", f.may_contain)):
                t = clock()
                call(keys)
                times.setdefault((kind, op), []).append((clock() - t) * 1e9 / n)
    print(f"| input ({args.clock} clock) | insert ns/key, median (min..max) | may_contain ns/key, median (min..max) |")
    print("| --- | --- | --- |")
    for kind in inputs:
        cells = []
        for op in ("insert", "may_contain"):
            v = times[(kind, op)]
            cells.append(f"{statistics.median(v):.1f} ({min(v):.1f}..{max(v):.1f})")
        print(f"| {kind} | {cells[0]} | {cells[1]} |")
    print(f"load at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
