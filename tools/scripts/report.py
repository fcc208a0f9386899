#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Google Benchmark JSON from blockbloom_bench -> Markdown report + PNG plots.

    tools/scripts/report.py RESULTS.json OUTDIR

Writes OUTDIR/report.md (which layout to pick; the machine, compiler, date and
command of the run; the speed goals with the measured figures; tables by layout
x size x target with ratios to the hash-plus-one-line floor and to libbloom),
OUTDIR/summary.md (the excerpt docs/benchmarks.md links) and one PNG per question:
    query_vs_size.png   how fast is a query at each filter size (L1/L2/L3 marked)?
    insert_vs_size.png  the same for inserts
    tradeoff.png        speed against false-positive rate, layouts at equal bits/key
    fpr_vs_bits.png     how many bits/key for a rate: measured rates and the model
    targets.png         what each SIMD target buys over the scalar reference
Needs python3-matplotlib (Debian).

The machine facts come from the run itself: Google Benchmark's context (CPU
count, caches read from sysfs when the benchmark ran), the context keys the
benchmark adds (CPU model, SIMD flags, targets, the load average at the start) and,
if tools/scripts/bench.sh wrote it, run.json beside the results (command, git commit,
lscpu's caches, the load average at the end). Only the plots written are named;
a load average above the CPU count at the start or the end is flagged.

Row names (bench/bench_common.h, RowSpec):
    op/layout/<bpk>bpk/<size>/<keys>/<mode>/<target>[/iterations:N][/real_time][/threads:N]
(iterations: the insert_atomic rows, one pass over fresh keys per run)

ns/key: for 1-thread rows, on-CPU time (cpu_time * iterations / keys), which
stays honest when other processes share the cores; for 2-thread rows, the
aggregate wall-clock rate (1e9 / items_per_second), the only meaningful figure
for a parallel speed-up.
"""
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

LAYOUTS = ["blocked512", "split256", "sectorized512", "register64", "classic", "split512"]
BLOCKED = [lay for lay in LAYOUTS if lay != "classic"]  # one cache line or less per key
OPS = ["insert", "query_present", "query_absent", "query_mix"]
# The library's speed goals (checked against each run in the report).
FPR_CAP = 0.0105  # "at or below 1.05%" (Boost.Bloom's fast 64-bit multiblock at 10 bits/key)
T_1M = 0.9  # ns/key, 1M keys
T_10M = 1.2  # ns/key, 10M keys
T_FLOOR = 1.15  # x the floor at 100M keys
T_THREADS = 1.8  # 2 threads over 1 (issue 20)
T_BOUND = 1.1  # at 100M keys, batches within this of the bound of the same work (issue 20)
T_SIMD = 4.0  # SIMD over the scalar reference at 1M keys
T_AVX2 = 1.3  # AVX2 within this of AVX-512
T_URL = 1.25  # URL keys within this of hash-only
SIZE_RE = re.compile(r"^(\d+(?:\.\d+)?)(KiB|MiB|GiB|Mkeys)$")
UNIT = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size_bytes(label, bpk):
    """Filter bytes of a size label at bpk bits/key (as bench SizeSpec does)."""
    m = SIZE_RE.match(label)
    if not m:
        return float("nan")
    v, u = float(m.group(1)), m.group(2)
    return v * 1_000_000 * bpk / 8 if u == "Mkeys" else v * UNIT[u]


def human_bytes(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return f"{b / div:.3g} {unit}"
    return f"{b:.0f} B"


def parse_name(b):
    """A row's key from its name: (op, layout, bpk as an int, size, keys, mode, target, threads)."""
    parts = b.get("run_name", b["name"]).split("/")  # run_name: an aggregate's row without "_median"
    threads = 1
    core = []
    for p in parts:
        if p.startswith("threads:"):
            threads = int(p.split(":")[1])
        elif p not in ("real_time", "manual_time"):
            core.append(p)
    op, layout, bpk, size, keys, mode, target = core[:7]
    return (op, layout, int(bpk.replace("bpk", "")), size, keys, mode, target, threads)


class Row:
    def __init__(self, b):
        (self.op, self.layout, self.bpk, self.size, self.keys, self.mode, self.target, self.threads) = parse_name(b)
        self.name = b.get("run_name", b["name"])  # as Google Benchmark named it (an aggregate: without "_median")
        self.bytes = size_bytes(self.size, self.bpk)
        self.fpr = b.get("fpr")
        self.fpr_model = b.get("fpr_model")
        self.k = b.get("k")
        keys = b.get("keys", 0)
        if b.get("run_type") == "aggregate" and b.get("keys_per_iter"):  # medians of repetitions
            self.ns = b["cpu_time"] / b["keys_per_iter"] * _TO_NS[b.get("time_unit", "ns")]
        elif self.threads == 1 and keys:
            self.ns = b["cpu_time"] * b["iterations"] / keys * _TO_NS[b.get("time_unit", "ns")]
        else:
            self.ns = 1e9 / b["items_per_second"]
        self.rate = b.get("items_per_second", 0.0)  # wall clock, all threads

    def key(self):
        return (self.op, self.layout, self.bpk, self.size, self.keys, self.mode, self.target, self.threads)


_TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class Results:
    def __init__(self, data, run=None):
        self.ctx = data.get("context", {})
        self.run = run or {}  # run.json from tools/scripts/bench.sh, if any
        self.rows = {}
        # Each row's coefficient of variation over its repetitions (Google Benchmark's "cv" aggregate, a
        # fraction) of the time the report quotes: on-CPU for one thread, wall clock for two.
        self.cv = {}
        for b in data.get("benchmarks", []):
            if b.get("run_type") == "aggregate" and b.get("aggregate_name") == "cv" and "error_occurred" not in b:
                key = parse_name(b)
                self.cv[key] = b["cpu_time"] if key[-1] == 1 else b["real_time"]  # key[-1]: threads
                continue
            # Iterations, or the medians of --benchmark_repetitions (which come after and win).
            median = b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"
            if (b.get("run_type", "iteration") != "iteration" and not median) or "error_occurred" in b:
                continue
            r = Row(b)
            self.rows[r.key()] = r
        self.best_target = (self.ctx.get("targets_supported") or "auto").split()[0]

    def get(self, op, layout, bpk, size, keys="u64", mode="batch", target=None, threads=1):
        if layout == "libbloom":
            mode = "perkey"  # its only API
        if target is None:
            target = {"floor": "auto", "hash": "auto", "libbloom": "c"}.get(layout, self.best_target)
            if mode == "perkey" and layout != "libbloom":
                target = "any"
        return self.rows.get((op, layout, bpk, size, keys, mode, target, threads))

    def command(self):
        if self.run.get("command"):
            return self.run["command"]
        preset = self.ctx.get("bb_preset", "default")
        return "tools/scripts/bench.sh" + ("" if preset == "default" else f" --{preset}")

    def machine_line(self):
        """CPU, date and command of the run, for figure titles."""
        c = self.ctx
        return (f"{c.get('cpu_model', '?')}, {c.get('num_cpus', '?')} CPUs; {str(c.get('date', '?'))[:10]}; "
                f"{self.command()}")

    def sizes(self, bpk, keys="u64"):
        s = {r.size for r in self.rows.values() if r.bpk == bpk and r.keys == keys}
        return sorted(s, key=lambda x: size_bytes(x, bpk))

    def targets(self):
        order = (self.ctx.get("targets_supported") or "").split() + ["reference"]
        seen = {r.target for r in self.rows.values() if r.layout in LAYOUTS and r.mode == "batch"}
        return [t for t in order if t in seen]


def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:.{digits}g}"


def ratio(a, b):
    return a.ns / b.ns if a and b else None


def pct(x):
    return "-" if x is None else f"{100 * x:.3g}%"


# ---- Speed targets -------------------------------------------------------------------


def best_blocked(res, size, bpk=10):
    """The blocked layout with model fpr <= 1.05% and the lowest query_absent + insert ns/key."""
    best = None
    for lay in BLOCKED:
        q, i = res.get("query_absent", lay, bpk, size), res.get("insert", lay, bpk, size)
        if not q or not i or q.fpr_model is None or q.fpr_model > FPR_CAP:
            continue
        if best is None or q.ns + i.ns < best[1].ns + best[2].ns:
            best = (lay, q, i)
    return best


def verdict(ok):
    return "met" if ok else "**not met**"


def target_lines(res):
    out = []
    add = out.append
    add("| goal | measured | verdict |")
    add("| --- | --- | --- |")
    for size, cap in (("1Mkeys", T_1M), ("10Mkeys", T_10M)):
        b = best_blocked(res, size)
        if not b:
            add(f"| {size}: <= {cap} ns/key query and insert | not run | - |")
            continue
        lay, q, i = b
        p = res.get("query_present", lay, 10, size)
        worst = max(q.ns, i.ns, p.ns if p else 0)
        add(f"| {size}, 10 bits/key, best blocked layout at fpr <= 1.05%: <= {cap} ns/key | {lay} ({res.best_target}, "
            f"k={q.k:.0f}, model fpr {pct(q.fpr_model)}): query absent {fmt(q.ns)}, present {fmt(p.ns if p else None)}, "
            f"insert {fmt(i.ns)} ns/key | {verdict(worst <= cap)} |")
    b = best_blocked(res, "100Mkeys")
    if b:
        lay, q, i = b
        fr, fw = res.get("floor_read", "floor", 10, "100Mkeys"), res.get("floor_rmw", "floor", 10, "100Mkeys")
        rq, ri = ratio(q, fr), ratio(i, fw)
        ok = rq is not None and ri is not None and max(rq, ri) <= T_FLOOR
        add(f"| 100Mkeys: within {T_FLOOR}x of the hash-plus-one-line reference | {lay}: query {fmt(q.ns)} ns/key = "
            f"{fmt(rq)}x floor_read ({fmt(fr.ns if fr else None)}); insert {fmt(i.ns)} = {fmt(ri)}x floor_rmw "
            f"({fmt(fw.ns if fw else None)}) | {verdict(ok)} |")
        for op in ("query_absent", "query_present", "insert_atomic"):
            one, two = res.get(op, lay, 10, "100Mkeys"), res.get(op, lay, 10, "100Mkeys", threads=2)
            if one and two:
                sp = two.rate / one.rate
                add(f"| 100Mkeys, 2 threads >= {T_THREADS}x one thread ({op}, wall clock) | {lay}: "
                    f"{one.rate / 1e6:.1f} -> {two.rate / 1e6:.1f} Mkeys/s = {sp:.2f}x | {verdict(sp >= T_THREADS)} |")
        fr1, fr2 = res.get("floor_read", "floor", 10, "100Mkeys"), res.get("floor_read", "floor", 10, "100Mkeys", threads=2)
        if fr1 and fr2:
            add(f"| (the floor itself, 2 threads over 1) | floor_read: {fr2.rate / fr1.rate:.2f}x | context |")
    b = best_blocked(res, "1Mkeys")
    if b:
        lay = b[0]
        for op in ("query_absent", "insert"):
            simd, ref = res.get(op, lay, 10, "1Mkeys"), res.get(op, lay, 10, "1Mkeys", target="reference")
            if simd and ref:
                sp = ref.ns / simd.ns
                add(f"| 1Mkeys: SIMD >= {T_SIMD}x the scalar reference ({op}) | {lay}: {res.best_target} {fmt(simd.ns)} vs "
                    f"reference {fmt(ref.ns)} ns/key = {sp:.2f}x | {verdict(sp >= T_SIMD)} |")
        has512 = any(t.startswith("avx3") for t in res.targets())
        if has512:
            a2, a3 = res.get("query_absent", lay, 10, "1Mkeys", target="avx2"), res.get("query_absent", lay, 10, "1Mkeys", target=res.best_target)
            r = ratio(a2, a3)
            if r is None:  # a run without AVX2 rows (--bb_preset=boost: its AVX2 run is a pinned one)
                add(f"| AVX2 within {T_AVX2}x of AVX-512 | not run: no {lay} rows on avx2 at 1Mkeys | - |")
            else:
                add(f"| AVX2 within {T_AVX2}x of AVX-512 | {fmt(r)}x | {verdict(r <= T_AVX2)} |")
        else:
            add(f"| AVX2 within {T_AVX2}x of AVX-512 | not measurable: this CPU has no AVX-512 "
                f"(supported: {res.ctx.get('targets_supported', '?')}) | n/a |")
    for lay_q in [best_blocked(res, "10Mkeys")]:
        if not lay_q:
            continue
        lay = lay_q[0]
        h = res.get("hash", "hash", 10, "10Mkeys", keys="url")
        for op in ("query_absent", "insert"):
            r = res.get(op, lay, 10, "10Mkeys", keys="url")
            if r and h:
                x = r.ns / h.ns
                add(f"| URL keys, 10Mkeys: within {T_URL}x of XXH3 hash-only ({op}) | {lay}: {fmt(r.ns)} vs hash {fmt(h.ns)} "
                    f"ns/key = {x:.2f}x | {verdict(x <= T_URL)} |")
        lb, us = res.get("query_absent", "libbloom", 10, "10Mkeys"), res.get("query_absent", lay, 10, "10Mkeys")
        li, ui = res.get("insert", "libbloom", 10, "10Mkeys"), res.get("insert", lay, 10, "10Mkeys")
        if lb and us:
            up = res.get("query_absent", lay, 10, "10Mkeys", mode="perkey")
            add(f"| vs libbloom, 10Mkeys, 10 bits/key: report the ratio (expect >= 20x) | query absent: libbloom "
                f"{fmt(lb.ns)} ns/key = {lb.ns / us.ns:.1f}x {lay} batched"
                + (f", {lb.ns / up.ns:.1f}x {lay} per key" if up else "")
                + (f"; insert {li.ns / ui.ns:.1f}x" if li and ui else "")
                + f"; fpr libbloom {pct(lb.fpr)} vs {lay} {pct(us.fpr)} | reported |")
    return out


# ---- Tables --------------------------------------------------------------------------


def main_table(res, bpk, keys, title):
    sizes = res.sizes(bpk, keys)
    lines = [f"### {title}", "",
             "ns/key (1 thread). `x floor`: query_absent over floor_read, insert over floor_rmw, same size and keys. "
             "`libbloom x`: libbloom's per-key query_absent over this row's (higher = faster than libbloom).", "",
             "| layout | size | target | k | insert | query present | query absent | query mix | x floor (q / ins) "
             "| fpr measured / model | libbloom x |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    any_row = False
    for lay in LAYOUTS:
        for size in sizes:
            fr, fw = res.get("floor_read", "floor", bpk, size, keys), res.get("floor_rmw", "floor", bpk, size, keys)
            lb = res.get("query_absent", "libbloom", bpk, size, keys)
            for target in res.targets() + ["any"]:
                mode = "perkey" if target == "any" else "batch"
                cells = [res.get(op, lay, bpk, size, keys, mode, target) for op in OPS]
                if not any(cells):
                    continue
                any_row = True
                ins, qp, qa, qm = cells
                k = next(c.k for c in cells if c)
                xf = f"{fmt(ratio(qa, fr))} / {fmt(ratio(ins, fw))}" if mode == "batch" else "-"
                fpr = f"{pct(qa.fpr)} / {pct(qa.fpr_model)}" if qa and qa.fpr is not None else "-"
                lbx = f"{lb.ns / qa.ns:.1f}" if lb and qa else "-"
                label = "per key" if mode == "perkey" else target
                lines.append(f"| {lay} | {size} ({human_bytes(size_bytes(size, bpk))}) | {label} | {k:.0f} | "
                             + " | ".join(fmt(c.ns if c else None) for c in cells) + f" | {xf} | {fpr} | {lbx} |")
    if not any_row:
        return []
    floors = []
    for size in sizes:
        fr, fw, h = (res.get("floor_read", "floor", bpk, size, keys), res.get("floor_rmw", "floor", bpk, size, keys),
                     res.get("hash", "hash", bpk, size, keys))
        if fr or fw or h:
            floors.append(f"| {size} | {fmt(fr.ns if fr else None)} | {fmt(fw.ns if fw else None)} | {fmt(h.ns if h else None)} |")
    if floors:
        lines += ["", "Floor and hash-only, ns/key:", "", "| size | floor_read | floor_rmw | hash only |",
                  "| --- | --- | --- | --- |"] + floors
    peers = []
    for size in sizes:
        cells = [res.get(op, "libbloom", bpk, size, keys) for op in OPS]
        if any(cells):
            qa = cells[2]
            peers.append(f"| {size} | " + " | ".join(fmt(c.ns if c else None) for c in cells)
                         + f" | {pct(qa.fpr) if qa else '-'} / {pct(qa.fpr_model) if qa else '-'} |")
    if peers:
        lines += ["", "libbloom (per key, its only API), ns/key:", "",
                  "| size | insert | query present | query absent | query mix | fpr measured / model |",
                  "| --- | --- | --- | --- | --- | --- |"] + peers
    return lines + [""]


def threads_table(res):
    lines = ["### Threads (u64, 10 bits/key, batched, wall-clock Mkeys/s over both threads)", "",
             "| layout | size | op | 1 thread | 2 threads | speed-up |", "| --- | --- | --- | --- | --- | --- |"]
    n = 0
    for r in sorted(res.rows.values(), key=lambda r: (LAYOUTS.index(r.layout) if r.layout in LAYOUTS else 9, r.bytes, r.op)):
        if r.threads != 2:
            continue
        one = res.rows.get(r.key()[:-1] + (1,))
        if not one:
            continue
        n += 1
        lines.append(f"| {r.layout} | {r.size} | {r.op} | {one.rate / 1e6:.1f} | {r.rate / 1e6:.1f} | {r.rate / one.rate:.2f}x |")
    return lines + [""] if n else []


def prefetch_table(res):
    """--bb_preset=prefetch: each batch row's time with prefetch forced on over its time with it off."""
    pf = [r for r in res.rows.values() if r.mode == "batchpf"]
    if not pf:
        return []
    lines = ["## Prefetch or not (--bb_preset=prefetch)", "",
             "Each cell: the batch's time with prefetch forced on / with it forced off (medians, side by side in "
             "this run; below 1: prefetch is faster). The library chooses by size (kernels::PrefetchMinBytes); "
             "this table is what that choice is measured against.", ""]
    for target in sorted({r.target for r in pf}):
        rows = [r for r in pf if r.target == target]
        sizes = sorted({r.size for r in rows}, key=lambda x: size_bytes(x, 10))
        lines += [f"### {target}", "", "| layout | op | " + " | ".join(sizes) + " |",
                  "| --- | --- | " + " | ".join("---" for _ in sizes) + " |"]
        layouts = sorted({r.layout for r in rows}, key=lambda x: LAYOUTS.index(x) if x in LAYOUTS else 99)
        for lay in layouts:
            for op in ("insert", "query_absent", "query_present"):
                cells = []
                for size in sizes:
                    on = res.get(op, lay, 10, size, mode="batchpf", target=target)
                    off = res.get(op, lay, 10, size, mode="batchnopf", target=target)
                    cells.append(f"{ratio(on, off):.2f}" if on and off else "-")
                if any(c != "-" for c in cells):
                    lines.append(f"| {lay} | {op} | " + " | ".join(cells) + " |")
        lines.append("")
    return lines


def compact_table(res, bpk=10, keys="u64"):
    """The summary's table: best target, batched, every layout x size, with floor and peer ratios."""
    lines = [f"| layout | size | k | insert | query present | query absent | x floor (q / ins) | fpr measured / model "
             f"| libbloom x |", "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for lay in LAYOUTS:
        for size in res.sizes(bpk, keys):
            ins, qp, qa = (res.get(op, lay, bpk, size, keys) for op in ("insert", "query_present", "query_absent"))
            if not qa:
                continue
            fr, fw = res.get("floor_read", "floor", bpk, size, keys), res.get("floor_rmw", "floor", bpk, size, keys)
            lb = res.get("query_absent", "libbloom", bpk, size, keys)
            lines.append(f"| {lay} | {size} | {qa.k:.0f} | {fmt(ins.ns if ins else None)} | {fmt(qp.ns if qp else None)} | "
                         f"{fmt(qa.ns)} | {fmt(ratio(qa, fr))} / {fmt(ratio(ins, fw))} | {pct(qa.fpr)} / {pct(qa.fpr_model)} | "
                         f"{f'{lb.ns / qa.ns:.1f}' if lb else '-'} |")
    return lines


# ---- Plots ---------------------------------------------------------------------------
# One figure per question, 1000 x 600 pixels or more, every tick labelled in the
# unit a reader thinks in (KiB/MiB/GiB, ns, %).

COLORS = {"blocked512": "tab:blue", "split256": "tab:orange", "sectorized512": "tab:green",
          "register64": "tab:purple", "classic": "tab:brown", "split512": "tab:olive", "libbloom": "tab:red",
          "floor": "black"}
BPK_MARKERS = {8: "o", 10: "s", 16: "^"}
DPI = 100


def caches(res):
    """[(label, bytes)] of the data/unified caches, as read on the benchmarked machine."""
    out = []
    for c in res.ctx.get("caches", []):
        if c.get("type") == "Instruction":
            continue
        out.append((f"L{c['level']}{'d' if c.get('type') == 'Data' else ''} {human_bytes(c['size'])}", c["size"]))
    if not out and res.run.get("caches"):
        out = [(f"{name} {human_bytes(b)}", b) for name, b in res.run["caches"]]
    return out


def size_axis(ax, lo, hi):
    """Log2 filter-size axis with a labelled tick at every power of two."""
    ax.set_xscale("log", base=2)
    lo_e, hi_e = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    ax.xaxis.set_major_locator(ticker.FixedLocator([2.0 ** e for e in range(lo_e, hi_e + 1)]))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda x, _: human_bytes(x).replace(".0 ", " ")))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
    ax.set_xlim(2.0 ** lo_e / 1.2, 2.0 ** hi_e * 1.2)
    for lab in ax.get_xticklabels():
        lab.set_rotation(45)
        lab.set_ha("right")


def ns_axis(ax, values, label):
    """Log ns axis with readable ticks between the decades (1 2 3 5 7 10 20 ...)."""
    ax.set_yscale("log")
    lo, hi = min(values), max(values)
    ticks = [m * 10.0 ** e for e in range(-1, 4) for m in (1, 1.5, 2, 3, 5, 7)]
    ticks = [t for t in ticks if lo / 1.3 <= t <= hi * 1.3]
    ax.yaxis.set_major_locator(ticker.FixedLocator(ticks))
    ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda y, _: f"{y:g}"))
    ax.yaxis.set_minor_locator(ticker.NullLocator())
    ax.set_ylim(lo / 1.3, hi * 1.3)
    ax.set_ylabel(label)


def pct_axis(ax, values, axis="x"):
    """Log false-positive-rate axis labelled in percent at 1-2-5 steps."""
    lo, hi = min(values), max(values)
    ticks = [m * 10.0 ** e for e in range(-7, 1) for m in (1, 2, 5)]
    ticks = [t for t in ticks if lo / 1.5 <= t <= hi * 1.5]
    fmt_pct = ticker.FuncFormatter(lambda v, _: f"{100 * v:g}%")
    a = ax.xaxis if axis == "x" else ax.yaxis
    (ax.set_xscale if axis == "x" else ax.set_yscale)("log")
    a.set_major_locator(ticker.FixedLocator(ticks))
    a.set_major_formatter(fmt_pct)
    a.set_minor_locator(ticker.NullLocator())
    (ax.set_xlim if axis == "x" else ax.set_ylim)(lo / 1.5, hi * 1.5)


def mark_caches(ax, res):
    """A dotted line and a label at each cache size inside the x range (set it first); returns the labels of
    the caches outside it, which are not drawn (a marker there would lie outside the axes)."""
    lo, hi = ax.get_xlim()
    beyond = []
    for label, b in caches(res):
        if not lo <= b <= hi:
            beyond.append(label)
            continue
        ax.axvline(b, color="gray", lw=1, ls=":")
        right = b * 1.05 * 1.3 <= hi  # room for the label right of the line, else left of it
        ax.text(b * 1.05 if right else b / 1.05, 0.98, label, transform=ax.get_xaxis_transform(), va="top",
                ha="left" if right else "right", fontsize=9, color="dimgray", rotation=90)
    return beyond


def plot_vs_size(res, op, floor_op, path, bpk=10, keys="u64"):
    """op's ns/key against filter size: every layout (best target, batched), libbloom, the floor."""
    fig, ax = plt.subplots(figsize=(14, 6.5))
    sizes = res.sizes(bpk, keys)
    allv, allx = [], []
    series = [(lay, res.best_target, "batch", lay) for lay in LAYOUTS]
    series += [("libbloom", None, "perkey", "libbloom (per key, its only API)"),
               ("floor", None, "batch", f"floor: hash + one random cache line ({floor_op})")]
    for lay, target, mode, label in series:
        src_op = floor_op if lay == "floor" else op
        pts = [(size_bytes(s, bpk), res.get(src_op, lay, bpk, s, keys, mode, target)) for s in sizes]
        pts = sorted((x, r.ns) for x, r in pts if r)
        if not pts:
            continue
        allx += [x for x, _ in pts]
        allv += [y for _, y in pts]
        style = dict(color=COLORS[lay], marker="o", ms=5, lw=2)
        if lay == "floor":
            style.update(ls="--", marker=None, lw=1.5)
        elif lay == "libbloom":
            style.update(ls="-.", marker="x")
        ax.plot(*zip(*pts), label=label, **style)
    if not allv:
        plt.close(fig)
        return False
    size_axis(ax, min(allx), max(allx))
    ns_axis(ax, allv, f"{op.replace('_', ' ')}: ns per key (lower is faster)")
    beyond = mark_caches(ax, res)
    ax.set_xlabel("filter size" + (f" (not marked: {', '.join(beyond)}, outside the sizes measured)" if beyond else ""))
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=9, loc="center left", bbox_to_anchor=(1.01, 0.5))  # outside: never over the data
    ax.set_title(f"{op.replace('_', ' ')} against filter size: {bpk} bits/key, {keys} keys, batched, "
                 f"{res.best_target}, 1 thread\n{res.machine_line()}", fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def plot_tradeoff(res, path, sizes=("1MiB", "256MiB"), keys="u64"):
    """query_absent ns/key against the measured false-positive rate, one point per layout and bits/key."""
    panels = [s for s in sizes if any(res.get("query_absent", lay, bpk, s, keys) for lay in LAYOUTS for bpk in BPK_MARKERS)]
    if not panels:
        return False
    fig, axes = plt.subplots(1, len(panels), figsize=(7 * len(panels) + 2.5, 6.5), squeeze=False)
    for ax, size in zip(axes[0], panels):
        xs, ys = [], []
        for lay in LAYOUTS + ["libbloom"]:
            pts = []
            for bpk, marker in BPK_MARKERS.items():
                r = res.get("query_absent", lay, bpk, size, keys)
                if r and r.fpr:
                    pts.append((r.fpr, r.ns, bpk))
                    ax.scatter(r.fpr, r.ns, color=COLORS[lay], marker=marker, s=60, zorder=3)
            if pts:
                pts.sort()
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color=COLORS[lay], lw=1.5,
                        ls="-." if lay == "libbloom" else "-", label=lay + (" (per key)" if lay == "libbloom" else ""))
                xs += [p[0] for p in pts]
                ys += [p[1] for p in pts]
        pct_axis(ax, xs, "x")
        ns_axis(ax, ys, "query absent: ns per key (lower is faster)")
        ax.set_xlabel("measured false-positive rate (lower is better)")
        ax.grid(True, alpha=0.3)
        where = ""
        for label, b in caches(res):
            if size_bytes(size, 10) <= b:
                where = f"fits in {label.split()[0]}"
                break
        ax.set_title(f"{size} filters ({where or 'larger than every cache'})", fontsize=11)
    # Legend: colours are layouts, marker shapes bits/key.
    handles, labels = axes[0][0].get_legend_handles_labels()
    for bpk, marker in BPK_MARKERS.items():
        handles.append(plt.Line2D([], [], color="gray", marker=marker, ls="", ms=8))
        labels.append(f"{bpk} bits/key")
    fig.legend(handles, labels, fontsize=9, loc="center right")  # beside the panels: never over the data
    fig.suptitle("Speed against false-positive rate: the same bits/key (marker) across layouts (colour), "
                 f"batched, {res.best_target}, 1 thread\n{res.machine_line()}", fontsize=11)
    fig.tight_layout(rect=(0, 0, 1 - 2.3 / (7 * len(panels) + 2.5), 1))
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def plot_fpr(res, path):
    """Measured false-positive rate against bits/key, with the exact model's curve."""
    fig, ax = plt.subplots(figsize=(10, 6.5))
    vals = []
    for lay in LAYOUTS:
        curve = res.ctx.get(f"model_fpr/{lay}")
        if curve:
            pts = [tuple(map(float, p.split(":")[:2])) for p in curve.split(",")]
            ax.plot(*zip(*pts), color=COLORS[lay], lw=1.5, label=f"{lay}: model")
            vals += [p[1] for p in pts]
    for lay in LAYOUTS + ["libbloom"]:
        pts = [(r.bpk, r.fpr) for r in res.rows.values()
               if r.layout == lay and r.op == "query_absent" and r.fpr and r.threads == 1]
        if pts:
            ax.scatter(*zip(*pts), color=COLORS[lay], s=30, marker="o" if lay != "libbloom" else "x",
                       label=f"{lay}: measured", zorder=3)
            vals += [p[1] for p in pts]
    if not vals:
        plt.close(fig)
        return False
    pct_axis(ax, vals, "y")
    ax.set_xlabel("bits per key")
    ax.xaxis.set_major_locator(ticker.MultipleLocator(2))
    ax.set_ylabel("false-positive rate")
    ax.set_title("How many bits per key for a rate: measured (every size, both key types) and the exact model "
                 "(1M keys)", fontsize=11)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=9, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def plot_targets(res, path, size="1Mkeys", bpk=10, keys="u64"):
    """query_absent ns/key per SIMD target and the scalar reference, per layout."""
    targets = res.targets()
    rows = {lay: [res.get("query_absent", lay, bpk, size, keys, "batch", t) for t in targets] for lay in LAYOUTS}
    if not any(r for v in rows.values() for r in v) or len(targets) < 2:
        return False
    # Bar labels stand upright on their bars, so each bar needs the height of a line of 8-point text
    # (0.15 inch) in width: the figure widens with the number of targets (0.34 inch per bar, bars filling
    # 0.8 of each layout's slot, plus 4.5 inches of margins and legend).
    fig, ax = plt.subplots(figsize=(max(11.0, 4.5 + 0.34 * len(targets) * len(LAYOUTS) / 0.8), 6))
    width = 0.8 / len(targets)
    labels = []
    for j, t in enumerate(targets):
        xs = [i + (j - (len(targets) - 1) / 2) * width for i in range(len(LAYOUTS))]
        ys = [r.ns if r else 0 for r in (rows[lay][j] for lay in LAYOUTS)]
        label = {"reference": "reference (the plain C++ scalar reference)", "scalar": "scalar (Highway's scalar target)"}
        bars = ax.bar(xs, ys, width, label=label.get(t, t))
        labels += ax.bar_label(bars, labels=[fmt(y) if y else "" for y in ys], fontsize=8, padding=2, rotation=90)
    ax.set_xticks(range(len(LAYOUTS)))
    ax.set_xticklabels(LAYOUTS)
    ax.set_ylabel("query absent: ns per key (lower is faster)")
    ax.grid(True, axis="y", alpha=0.3)
    ax.legend(fontsize=9, loc="upper left", bbox_to_anchor=(1.01, 1))  # outside: never over a bar or label
    ax.set_title(f"What each SIMD target buys: {size} ({human_bytes(size_bytes(size, bpk))}), {bpk} bits/key, "
                 f"batched, 1 thread; targets this CPU runs\n{res.machine_line()}", fontsize=11)
    fig.tight_layout()
    fit_labels(fig, ax, labels)
    fig.savefig(path, dpi=DPI)
    plt.close(fig)
    return True


def fit_labels(fig, ax, labels):
    """Raises the y limit until every label is inside the axes."""
    for _ in range(5):
        fig.canvas.draw()
        top = ax.get_window_extent().y1 - 6  # a few pixels of room under the frame
        over = max((t.get_window_extent().y1 for t in labels if t.get_text()), default=top) - top
        if over <= 0:
            return
        lo, hi = ax.get_ylim()
        ax.set_ylim(lo, hi + (hi - lo) * (over + 2) / ax.get_window_extent().height)


# ---- Which layout to pick -------------------------------------------------------------


def floor_sentence(res, size, bpk, keys):
    """How close the blocked layouts come to one random cache line per key at `size`, if measured."""
    fr = res.get("floor_read", "floor", bpk, size, keys)
    ratios = [ratio(res.get("query_absent", lay, bpk, size, keys), fr) for lay in BLOCKED]
    ratios = [r for r in ratios if r is not None]
    if not fr or len(ratios) < len(BLOCKED):
        return ""
    hi = max(ratios)
    if hi > T_FLOOR:
        return (f"At {size} the blocked layouts take up to {hi:.2f}x the time of one random cache line per key "
                "(the floor in the plots). ")
    return (f"At {size}, far beyond the caches, every blocked layout is within {hi:.2f}x of one random cache line "
            "per key (the floor in the plots): there the choice is about the rate per bit, not speed. ")


def pick_paragraph(res, plots=(), bpk=10, keys="u64"):
    """The report's first paragraph: which layout for which need, from this run's figures; `plots` are the
    file names of the plots this report wrote (only those are named)."""
    small, large = "1Mkeys", "100Mkeys"
    q = {lay: res.get("query_absent", lay, bpk, small, keys) for lay in LAYOUTS}
    qb = {lay: res.get("query_absent", lay, bpk, large, keys) for lay in LAYOUTS}
    blocked = [lay for lay in BLOCKED if q[lay]]
    if not blocked:
        return ["Which layout to pick: this run lacks the 1M-key rows at 10 bits/key the advice is drawn from."]
    def desc(lay):
        big = f", {fmt(qb[lay].ns)} at {large}" if qb.get(lay) else ""
        return f"`{lay}` ({pct(q[lay].fpr_model)} at {bpk} bits/key; query {fmt(q[lay].ns)} ns/key at {small}{big})"
    fastest = min(blocked, key=lambda lay: q[lay].ns)
    near_1 = [lay for lay in blocked if q[lay].fpr_model <= FPR_CAP]
    default = min(near_1, key=lambda lay: q[lay].ns) if near_1 else fastest
    # Layouts of one rate (sectorized512 k=8 and split512 share their model): the faster of them.
    tightest = min(blocked, key=lambda lay: (float(f"{q[lay].fpr_model:.4g}"), q[lay].ns))
    missing = [lay for lay in LAYOUTS if not q[lay]]
    text = (f"Figures from this run ({keys} keys, {bpk} bits/key, batched, {res.best_target}, 1 thread"
            + (f"; it has no rows of {', '.join(f'`{lay}`' for lay in missing)}, so they are left out" if missing else "")
            + f"). **For most services: {desc(default)}**, the fastest layout here whose rate stays near 1% at "
            f"{bpk} bits/key. For the lowest rate a cache-line layout here gives per bit: {desc(tightest)}"
            + (" (the same layout)." if tightest == default else "."))
    if q.get("split256"):
        text += (f" For the fastest queries when a higher rate is fine, or to exchange filters with Apache Parquet "
                 f"(bit-exact split-block filters): {desc('split256')}"
                 + (" — the fastest here." if fastest == "split256" else "."))
    if q.get("register64"):
        text += (f" `register64` ({pct(q['register64'].fpr_model)}) touches one 64-bit word but needs many more bits "
                 "below 1%" + (f"; the fastest here: {desc('register64')}." if fastest == "register64" else "."))
    if q.get("classic"):
        slow = q["classic"].ns / q[default].ns
        text += (f" `classic` needs the fewest bits for a rate ({pct(q['classic'].fpr_model)}) but reads k cache "
                 f"lines per query: {slow:.1f}x slower than `{default}` at {small}; pick it only when memory is all "
                 "that matters.")
    text += (" " + floor_sentence(res, large, bpk, keys)
             + ("`tradeoff.png` shows speed against rate at 8, 10 and 16 bits/key; " if "tradeoff.png" in plots else "")
             + "`blockbloom params --n N --fpr P` sizes every layout for your N and P.")
    out = ["## Which layout to pick", "", text, ""]
    return out


# ---- Main ----------------------------------------------------------------------------


def run_lines(res):
    """The run: machine, compiler, date, command, as the benchmark read and recorded them."""
    c = res.ctx
    cache_text = ", ".join(label for label, _ in caches(res)) or "?"
    lines = [
        f"- CPU: {c.get('cpu_model', '?')}, {c.get('num_cpus', '?')} CPUs at {c.get('mhz_per_cpu', '?')} MHz, "
        f"SIMD flags: {c.get('cpu_flags_simd', '?')}; data caches (read from sysfs when it ran): {cache_text}",
        f"- Compiler: {c.get('compiler', '?')}; Google Benchmark, {c.get('library_build_type', '?')} library",
        f"- Date: {c.get('date', '?')}; command `{res.command()}` (preset `{c.get('bb_preset', '?')}`)"
        + (f", commit {res.run['commit']}" if res.run.get("commit") else "")
        + f"; load average at start: {c.get('loadavg_at_start', '?')} (1-thread rows are on-CPU time)",
        f"- Targets compiled: {c.get('targets_compiled', '?')}; supported here: {c.get('targets_supported', '?')}; "
        f"transparent huge pages: {c.get('thp', '?')}",
        f"- Look-ahead in keys, by target: {c.get('look_ahead', '128 (runs before it was printed)')} (kernels and "
        "floor alike; classic's 16, as it prefetches k lines a key); filters from 2 MiB on are 2 MiB-aligned mmaps "
        "with MADV_HUGEPAGE, and so is the floor's buffer.",
    ]
    return lines + spread_lines(res) + load_lines(res)


def spread_lines(res):
    """How far the run's repetitions spread: the median and the largest coefficient of variation over its rows
    (none without --benchmark_repetitions). A ratio of two rows moves by about their CVs between runs."""
    cvs = sorted((cv, key) for key, cv in res.cv.items() if key in res.rows)
    if not cvs:
        return []
    top, key = cvs[-1]
    name = res.rows[key].name
    return [f"- Repetitions: the coefficient of variation of each row's time over its repetitions is "
            f"{pct(statistics.median(cv for cv, _ in cvs))} at the median over {len(cvs)} rows, {pct(top)} at most "
            f"(`{name}`); a ratio near a goal moves by about its two rows' CVs from run to run."]


def cv_note(res, *rows):
    """The spread of the rows behind a cell, " (CV a%, b%)", where the run had repetitions; else ""."""
    cvs = [res.cv.get(r.key()) for r in rows]
    return "" if any(cv is None for cv in cvs) else f" (CV {', '.join(pct(cv) for cv in cvs)})"


def first_number(text):
    """The first field of a /proc/loadavg line (the 1-minute load average), or None."""
    try:
        return float(str(text).split()[0])
    except (IndexError, ValueError):
        return None


def load_lines(res):
    """A flag when the run started or ended on a loaded machine: a 1-minute load average above the CPU count
    (Google Benchmark's num_cpus) when the benchmark began (its context) or when tools/scripts/bench.sh saw it end
    (run.json)."""
    cpus = res.ctx.get("num_cpus")
    start = first_number(res.ctx.get("loadavg_at_start", ""))
    end = first_number(res.run.get("loadavg_at_end", ""))
    if not cpus:
        return []
    loaded = [(when, x) for when, x in (("start", start), ("end", end)) if x is not None and x > cpus]
    if not loaded:
        return []
    seen = "; ".join(f"{x:g} at the {when}" for when, x in loaded)
    other = [f"{x:g} at the {when}" for when, x in (("start", start), ("end", end))
             if x is not None and (when, x) not in loaded]
    unknown = [when for when, x in (("start", start), ("end", end)) if x is None]
    return [f"- **Loaded machine**: load average {seen}, above its {cpus} CPUs"
            + (f" ({', '.join(other)})" if other else "")
            + (f" (at the {' and '.join(unknown)}: not recorded)" if unknown else "")
            + ": other processes shared the cores, so wall-clock figures (2-thread rows) and cache-sized rows "
            "are pessimistic; re-run on a quiet machine before quoting them."]


# Our layouts against each Boost filter at its bits and rate: fast_multiblock64<8> has two, sectorized512 at
# k = 8 and split512 (the same model, each word's bit one 6-bit number: a cheaper mask).
BOOST_PAIRS = [("split256", "boost_fmb32x8", "fast_multiblock32<8> vs split256"),
               ("sectorized512", "boost_fmb64x8", "fast_multiblock64<8> vs sectorized512 k=8"),
               ("split512", "boost_fmb64x8", "fast_multiblock64<8> vs split512"),
               ("register64", "boost_block64x6", "block<uint64_t,6> vs register64 k=6")]


def pair_row(res, op, layout, size, keys, mode):
    """Our row of a Boost pair. Batch rows run on one target, the best one unless the run pinned them
    (BLOCKBLOOM_PAIR_TARGET=avx2); per-key rows on the target chosen at construction; typed rows compiled
    -march=native (typedfold: the typed loop with one folded multiply as its hash, a reference)."""
    if mode in ("typed", "typedfold"):
        return res.get(op, layout, 10, size, keys, mode, target="native")
    if mode == "perkey":
        return res.get(op, layout, 10, size, keys, mode)
    found = res.get(op, layout, 10, size, keys, mode)
    if found:
        return found
    for r in res.rows.values():
        if (r.op, r.layout, r.bpk, r.size, r.keys, r.mode, r.threads) == (op, layout, 10, size, keys, mode, 1):
            return r
    return None


def pair_batch_rows(res, ops, size, keys="u64"):
    """The batch rows of ops at this size of every layout in the Boost pairs: ours on the pairs' target
    (pinned or the best), Boost's as compiled."""
    return [r for r in (res.get(op, lay, 10, size, keys, "batch", target="native")
                        if lay.startswith("boost_") else pair_row(res, op, lay, size, keys, "batch")
                        for op in ops for lay in dict.fromkeys(lay for pair in BOOST_PAIRS for lay in pair[:2])) if r]


def pair_target(res):
    """The target of the Boost pairs' batch rows (the best one, or the one the run pinned them to)."""
    for ours, _, _ in BOOST_PAIRS:
        for size in res.sizes(10):
            r = pair_row(res, "query_absent", ours, size, "u64", "batch")
            if r:
                return r.target
    return res.best_target


def calls_below(res, size, keys, fc):
    """The per-key call rows of this size that ran below floor_call's row fc: ours dispatched (perkey,
    target "any") and Boost's behind one call (percall). Any of them makes fc no bound."""
    return [r for r in res.rows.values() if r.size == size and r.keys == keys and r.bpk == 10
            and r.layout not in ("floor", "libbloom") and r.threads == 1 and r.ns < fc.ns
            and (r.mode == "percall" or r.mode == "perkey" and r.target == "any")]


def boost_table(res):
    """--bb_preset=boost: blockbloom against Boost.Bloom, ns/key and ratio (Boost / blockbloom: > 1 is faster)."""
    if not any(r.layout.startswith("boost_") for r in res.rows.values()):
        return []
    lines = ["## Versus Boost.Bloom (same run, 10 bits/key)", "",
             f"ns/key (on-CPU), blockbloom on {pair_target(res)} (per key: the target chosen at construction) "
             f"hashing with {res.ctx.get('bb_hash', 'xxh3')} (Boost: boost::hash plus its mulx64 mixing), "
             "Boost.Bloom compiled -O3 -march=native; mode typed: blockbloom/typed.h per key, its calling file compiled "
             "-O3 -march=native too, against Boost's per-key calls; mode typedfold (a reference, not a filter): the typed "
             "loop with one folded multiply of the key as its hash (Boost's own mixing; no hash kind is one fold, as it "
             "leaves the model on sequential keys), the per-key probe behind the shortest hash chain; mode percall "
             "(a reference): the dispatched per-key calls (perkey) against Boost's own per-key code behind one "
             "out-of-line call per key through a function pointer, what one call a key costs a dispatched library; "
             "mode buffered (inserts): the per-key loop through a BufferedInserter (blockbloom/inserter.h), its keys "
             "(strings hashed at Insert) written in batches of 4096, against Boost's per-key inserts; "
             "`x` = Boost / blockbloom (above 1: blockbloom faster).", "",
             "| keys | n | pair | mode | insert: ours / Boost = x | query absent | query present |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for keys in ("u64", "url"):
        for size in sorted({r.size for r in res.rows.values() if r.layout.startswith("boost_") and r.keys == keys},
                           key=lambda x: size_bytes(x, 10)):
            for ours, theirs, label in BOOST_PAIRS:
                for mode in ("batch", "perkey", "buffered", "percall", "typed", "typedfold"):
                    cells = []
                    for op in ("insert", "query_absent", "query_present"):
                        # typed: blockbloom/typed.h per key (compiled -march=native) against Boost's per-key
                        # calls; percall: our dispatched calls against Boost's behind one call per key
                        a = pair_row(res, op, ours, size, keys, "perkey" if mode == "percall" else mode)
                        b = res.get(op, theirs, 10, size, keys, mode if mode in ("batch", "percall") else "perkey",
                                    target="native")
                        cells.append(f"{fmt(a.ns if a else None)} / {fmt(b.ns if b else None)} = "
                                     f"{fmt(ratio(b, a))}x" if a and b else "-")
                    if not any(c != "-" for c in cells):  # a mode this run has no rows of
                        continue
                    lines.append(f"| {keys} | {size} | {label} | {mode} | " + " | ".join(cells) + " |")
            h, fr, fw, fl = (res.get(op, lay, 10, size, keys) for op, lay in
                             (("hash", "hash"), ("floor_read", "floor"), ("floor_rmw", "floor"), ("floor_line", "floor")))
            # The filter rows of this size (ours and Boost's batch queries, absent and present keys): a
            # reference figure is no bound when one of them runs below it, and the table says so.
            # Ours on the pairs' target (pinned or the best), Boost's as compiled.
            rows = pair_batch_rows(res, ("query_absent", "query_present"), size, keys)

            def beaten(ref):
                below = [r for r in rows if ref is not None and r.ns < ref.ns]
                return (f"not a bound: {len(below)} filter row(s) of this size run below it" if below
                        else "no filter row of this size runs below it")
            if h or fr:
                lines.append(f"| {keys} | {size} | reference: XXH3 alone / + one line read ({beaten(fr)}) / + one line "
                             f"read-modify-write | batch | {fmt(h.ns if h else None)} / {fmt(fr.ns if fr else None)} / "
                             f"{fmt(fw.ns if fw else None)} | | |")
            if fl:
                # floor_line is a reference, not a bound: it reads one random line per precomputed hash
                # through its own loop, and filter rows have run below it (issue 20: 10M keys, split256's
                # batch query 3.90 ns/key against floor_line 6.14). The bound quoted is the best row of the
                # run: the fastest batch query of any filter here, ours or Boost's, which no row beats.
                lines.append(f"| {keys} | {size} | reference: one random line read per precomputed hash "
                             f"({beaten(fl)}) | batch | {fmt(fl.ns)} | | |")
                if rows:
                    best = min(rows, key=lambda r: r.ns)
                    boost = [r for r in rows if r.layout.startswith("boost_")]
                    verdict = ""
                    if boost:
                        b = min(boost, key=lambda r: r.ns)
                        verdict = (f"; 1.5x Boost's fastest batch query ({fmt(b.ns)}) is {fmt(b.ns / 1.5)} ns/key, "
                                   f"{fmt(b.ns / 1.5 / best.ns)}x the best row")
                    lines.append(f"| {keys} | {size} | best row (the bound this run measured: the fastest batch "
                                 f"query, {best.layout} {best.op}){verdict} | batch | {fmt(best.ns)} | | |")
            fc = res.get("floor_call", "floor", 10, size, keys, "perkey")
            if fc:
                # The dispatched per-key rows' bound: one call per key through a function pointer to a
                # function that reads no memory (bench/floor_bench.cc). A row below it makes it no bound.
                below = calls_below(res, size, keys, fc)
                what = (f"not a bound: {len(below)} per-key call row(s) of this size run below it" if below
                        else "the per-key calls' bound: no dispatched call of this size runs below it")
                lines.append(f"| {keys} | {size} | reference: one empty call per key through a function pointer "
                             f"({what}) | perkey | {fmt(fc.ns)} | | |")
    return lines + [""]


# Issue 20's goals against Boost.Bloom (uint64 keys, 10 bits/key, every pair, insert and both queries):
# batches at 1M keys >= 1.25x on AVX-512 and >= 1.1x with blockbloom pinned to AVX2 (Boost's own ISA), at
# 10M and 100M >= 1.5x; per key typed.h >= 1.1x, the dispatched calls >= 0.8x; at 100M keys two threads
# >= T_THREADS x one.
def boost_goal(mode, size, target):
    if mode == "typed":
        return 1.1
    if mode == "perkey":
        return 0.8
    if size != "1Mkeys":
        return 1.5
    if target.startswith("avx3"):
        return 1.25
    return 1.1 if target == "avx2" else None


def boost_goals(res):
    """Each goal of the Boost pairs with the run's ratios (Boost / blockbloom) and a verdict: met when the
    lowest ratio of every pair and op reaches it. A Boost filter paired with two of our layouts at its rate
    (fast_multiblock64<8>: sectorized512 k=8, split512) counts the faster of them, op by op (issue 20: "an
    existing layout or a new one at the same bits and a rate no higher")."""
    if not any(r.layout.startswith("boost_") for r in res.rows.values()):
        return []
    target = pair_target(res)
    lines = ["## Goals against Boost.Bloom (uint64 keys, 10 bits/key, this run)", "",
             f"`x` = Boost's time / ours over the three pairs, insert and both queries; batches on {target}. "
             "Where two of our layouts pair with one Boost filter, the faster counts. "
             "A goal is met when its lowest cell reaches it. Where the run had repetitions, the lowest cell "
             "names its two rows' coefficients of variation (ours, then Boost's; one thread's, then two "
             "threads'): a cell within them of its goal is not a verdict.", "",
             "| goal | measured | lowest cell | verdict |", "| --- | --- | --- | --- |"]
    names = {"batch": "batch calls", "typed": "per key, typed.h", "perkey": "per key, dispatched"}

    def cells_of(mode, size):
        cells = []
        for theirs in dict.fromkeys(t for _, t, _ in BOOST_PAIRS):
            for op in ("insert", "query_absent", "query_present"):
                b = res.get(op, theirs, 10, size, "u64", "batch" if mode == "batch" else "perkey",
                            target="native")
                best = max(((ratio(b, a), f"{ours} {op}{cv_note(res, a, b)}") for ours, t, _ in BOOST_PAIRS
                            if t == theirs for a in [pair_row(res, op, ours, size, "u64", mode)] if a and b),
                           default=None)
                if best:
                    cells.append(best)
        return cells

    def inline_over(size, other):
        """(Boost's inline per-key time / other(theirs, op)'s, label) for each Boost filter and op with both."""
        cells = []
        for theirs in dict.fromkeys(t for _, t, _ in BOOST_PAIRS):
            for op in ("insert", "query_absent", "query_present"):
                inline = res.get(op, theirs, 10, size, "u64", "perkey", target="native")
                b = other(theirs, op)
                if inline and b:
                    cells.append((ratio(inline, b), f"{theirs} {op}"))
        return cells

    def call_cells(size):  # Boost's own code behind one call per key
        return inline_over(size, lambda theirs, op: res.get(op, theirs, 10, size, "u64", "percall", target="native"))

    def call_bounds(size, fc):  # one empty call per key (floor_call)
        return inline_over(size, lambda theirs, op: fc)

    for mode in ("batch", "typed", "perkey"):
        for size in res.sizes(10, "u64"):
            goal = boost_goal(mode, size, target)
            cells = cells_of(mode, size)
            if not cells or goal is None:
                continue
            lo, hi = min(cells), max(cells)
            lines.append(f"| {names[mode]}, {size}: >= {goal}x | {fmt(lo[0])}-{fmt(hi[0])}x | {lo[1]} {fmt(lo[0])}x | "
                         f"{verdict(lo[0] >= goal)} |")
            # The typed goal's reference: the same loop with the shortest hash chain (one folded
            # multiply, Boost's mixing). Context, not a goal: where even it stays below 1.1x, no hash
            # kind reaches the typed goal with this probe on this CPU.
            ref = cells_of("typedfold", size) if mode == "typed" else []
            if ref:
                rlo, rhi = min(ref), max(ref)
                lines.append(f"| (reference: the typed loop with one folded multiply as its hash, {size}) | "
                             f"{fmt(rlo[0])}-{fmt(rhi[0])}x | {rlo[1]} {fmt(rlo[0])}x | context |")
            # The dispatched goal's reference: Boost's own per-key code behind one out-of-line call per
            # key, against the same code inlined. Context, not a goal: where it stays below 0.8x, one call
            # a key costs more than the goal allows whatever the probe behind it.
            called = call_cells(size) if mode == "perkey" else []
            if called:
                clo, chi = min(called), max(called)
                lines.append(f"| (reference: Boost's own per-key code behind one call per key, against it inlined, "
                             f"{size}) | {fmt(clo[0])}-{fmt(chi[0])}x | {clo[1]} {fmt(clo[0])}x | context |")
            # The dispatched goal's bound: one empty call per key through a function pointer. Boost's
            # inline per-key time over it is the most any dispatched call can reach against that row;
            # where it is below the goal, the goal is out of reach of one call a key on this CPU.
            fc = res.get("floor_call", "floor", 10, size, "u64", "perkey") if mode == "perkey" else None
            if fc and calls_below(res, size, "u64", fc):
                fc = None  # a row ran below it: no bound (issue 20), so no line that rests on one
            bounds = call_bounds(size, fc) if fc else []
            if bounds:
                blo, bhi = min(bounds), max(bounds)
                lines.append(f"| (bound: one empty call per key through a function pointer, {fmt(fc.ns)} ns/key; "
                             f"Boost's per-key rows over it, the most one call a key can reach, {size}) | "
                             f"{fmt(blo[0])}-{fmt(bhi[0])}x | {blo[1]} {fmt(blo[0])}x | "
                             f"{'context' if blo[0] >= goal else 'out of reach of one call a key'} |")
    # Two threads over one at 100M keys, wall clock over both: our layouts' batch queries (the pairs'
    # filters) and atomic inserts of fresh keys, each against its own one-thread row.
    def speedups(rows):
        """(2-thread rate / 1-thread rate, label) for each (layout, op, target, label) with both rows."""
        cells = []
        for layout, op, tgt, label in rows:
            one = res.get(op, layout, 10, "100Mkeys", target=tgt)
            two = res.get(op, layout, 10, "100Mkeys", target=tgt, threads=2)
            if one and two and one.rate:
                cells.append((two.rate / one.rate, f"{label}{cv_note(res, one, two)}"))
        return cells

    cells = speedups([(ours, op, target, f"{ours} {op}") for ours in dict.fromkeys(o for o, _, _ in BOOST_PAIRS)
                      for op in ("query_absent", "query_present", "insert_atomic")])
    if cells:
        lo, hi = min(cells), max(cells)
        lines.append(f"| 2 threads over one, 100Mkeys: >= {T_THREADS}x (wall clock) | {fmt(lo[0])}-{fmt(hi[0])}x | "
                     f"{lo[1]} {fmt(lo[0])}x | {verdict(lo[0] >= T_THREADS)} |")
        # The same goal's machine: the minimal probes (one random line per precomputed hash; a hash and
        # the line) on two threads over one. Context, not a goal: where they scale less than the goal
        # asks, the memory system, not a filter, sets what two threads of this work reach here.
        floors = speedups([("floor", op, None, op) for op in ("floor_line", "floor_read")])
        if floors:
            flo, fhi = min(floors), max(floors)
            lines.append(f"| (reference: the minimal probes on 2 threads over one, 100Mkeys) | "
                         f"{fmt(flo[0])}-{fmt(fhi[0])}x | {flo[1]} {fmt(flo[0])}x | context |")
    lines += bound_goal(res)
    return lines + [""]


def bound_goal(res, size="100Mkeys"):
    """Issue 20's "at 100M keys within T_BOUND x of a true measured bound", one line of the goals table. A
    bound is what no row beats, for the same work: for the queries (absent and present keys alike: a hash and
    one line read) the fastest of every batch query row of this size, ours and Boost's, and the hash-plus-
    one-line-read probe (floor_read); for the inserts (a hash and one line's read-modify-write) the fastest
    insert row and floor_rmw. An insert is held to an insert's bound, not a query's: it writes its line back.
    Each cell is one Boost filter's partner (the faster of two, as above) and op: ours / the bound, so the
    cell the line names is the highest, the farthest from its bound."""
    queries = ("query_absent", "query_present")
    bounds = {}
    for op, ops, floor in (("insert", ("insert",), "floor_rmw"), ("query_absent", queries, "floor_read"),
                           ("query_present", queries, "floor_read")):
        candidates = pair_batch_rows(res, ops, size) + [r for r in [res.get(floor, "floor", 10, size, "u64")] if r]
        if candidates:
            bounds[op] = min(candidates, key=lambda r: r.ns)
    cells = []
    for theirs in dict.fromkeys(t for _, t, _ in BOOST_PAIRS):
        for op, bound in bounds.items():
            ours = [a for o, t, _ in BOOST_PAIRS if t == theirs for a in [pair_row(res, op, o, size, "u64", "batch")]
                    if a]
            if not ours:
                continue
            a = min(ours, key=lambda r: r.ns)
            cells.append((ratio(a, bound), f"{a.layout} {op} against {bound.layout} {bound.op}{cv_note(res, a, bound)}"))
    if not cells:
        return []
    lo, hi = min(cells), max(cells)
    return [f"| batch calls, {size}: within {T_BOUND}x of the bound of the same work (ours / the fastest row or "
            f"minimal probe; insert, query; the cell named: the farthest) | {fmt(lo[0])}-{fmt(hi[0])}x | {hi[1]} {fmt(hi[0])}x | "
            f"{verdict(hi[0] <= T_BOUND)} |"]


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: tools/scripts/report.py RESULTS.json OUTDIR")
    with open(argv[1]) as f:
        data = json.load(f)
    run = None
    run_path = os.path.join(os.path.dirname(os.path.abspath(argv[1])), "run.json")
    if os.path.exists(run_path):
        with open(run_path) as f:
            run = json.load(f)
    res = Results(data, run)
    if not res.rows:
        sys.exit(f"report.py: {argv[1]}: no benchmark rows")
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    plots = []
    figures = [
        ("query_vs_size.png", "How fast is a query at each filter size? (caches marked)",
         lambda p: plot_vs_size(res, "query_absent", "floor_read", p)),
        ("insert_vs_size.png", "How fast is an insert at each filter size?",
         lambda p: plot_vs_size(res, "insert", "floor_rmw", p)),
        ("tradeoff.png", "Speed against false-positive rate, layouts at equal bits/key",
         lambda p: plot_tradeoff(res, p)),
        ("fpr_vs_bits.png", "How many bits per key for a rate: measured and the exact model",
         lambda p: plot_fpr(res, p)),
        ("targets.png", "What each SIMD target buys over the scalar reference",
         lambda p: plot_targets(res, p)),
    ]
    for name, title, draw in figures:
        if draw(os.path.join(out, name)):
            plots.append((title, name))

    written = [n for _, n in plots]
    md = ["# blockbloom benchmark report", ""] + pick_paragraph(res, written)
    md += ["## The run", ""] + run_lines(res) + [""]
    md += ["## Speed goals", ""] + target_lines(res) + [""]
    md += ["## Plots", ""] + [f"{t}:\n\n![{t}]({n})\n" for t, n in plots]
    md += boost_table(res)
    md += boost_goals(res)
    md += prefetch_table(res)
    md += ["## Tables", ""]
    md += main_table(res, 10, "u64", "uint64 keys, 10 bits/key")
    md += threads_table(res)
    md += main_table(res, 10, "url", "URL keys (30-80 bytes), 10 bits/key")
    for bpk in (8, 16):
        md += main_table(res, bpk, "u64", f"uint64 keys, {bpk} bits/key")
        md += main_table(res, bpk, "url", f"URL keys, {bpk} bits/key")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    # The summary (linked from docs/benchmarks.md): the run, the advice, the goals, the compact table.
    summary = run_lines(res) + [""] + pick_paragraph(res, written)[2:] + ["Speed goals:", ""] + target_lines(res) + [
        "", f"uint64 keys, 10 bits/key, batched, {res.best_target}, 1 thread, ns/key:", ""] + compact_table(res)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(summary) + "\n")
    print(f"report.py: wrote {out}/report.md and {len(plots)} plots from {len(res.rows)} rows")


if __name__ == "__main__":
    main(sys.argv)
