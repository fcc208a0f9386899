#!/usr/bin/python3
"""Google Benchmark JSON from blockbloom_bench -> Markdown report + PNG plots.

    tools/report.py RESULTS.json OUTDIR

Writes OUTDIR/report.md (machine, compiler, date; the issue's speed targets with
the measured figures; tables by layout x size x target with ratios to the
hash-plus-one-line floor and to libbloom) and OUTDIR/*.png (ns/key against filter
size per layout and target with the floor drawn in; measured false-positive rate
against bits/key beside the model's curve). Needs python3-matplotlib (Debian).

Row names (bench/bench_common.h, RowSpec):
    op/layout/<bpk>bpk/<size>/<keys>/<mode>/<target>[/real_time][/threads:N]

ns/key: for 1-thread rows, on-CPU time (cpu_time * iterations / keys), which
stays honest when other processes share the cores; for 2-thread rows, the
aggregate wall-clock rate (1e9 / items_per_second), the only meaningful figure
for a parallel speed-up.
"""
import json
import math
import os
import re
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

LAYOUTS = ["blocked512", "split256", "sectorized512", "register64", "classic"]
BLOCKED = LAYOUTS[:4]
OPS = ["insert", "query_present", "query_absent", "query_mix"]
# Issue 5's speed targets.
FPR_CAP = 0.0105  # "at or below 1.05%" (Boost.Bloom's fast 64-bit multiblock at 10 bits/key)
T_1M = 0.9  # ns/key, 1M keys
T_10M = 1.2  # ns/key, 10M keys
T_FLOOR = 1.15  # x the floor at 100M keys
T_THREADS = 1.7  # 2 threads over 1
T_SIMD = 4.0  # SIMD over the scalar reference at 1M keys
T_AVX2 = 1.3  # AVX2 within this of AVX-512
T_URL = 1.25  # URL keys within this of hash-only
SIZE_RE = re.compile(r"^(\d+)(KiB|MiB|GiB|Mkeys)$")
UNIT = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size_bytes(label, bpk):
    """Filter bytes of a size label at bpk bits/key (as bench SizeSpec does)."""
    m = SIZE_RE.match(label)
    if not m:
        return float("nan")
    v, u = int(m.group(1)), m.group(2)
    return v * 1_000_000 * bpk / 8 if u == "Mkeys" else v * UNIT[u]


def human_bytes(b):
    for unit, div in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= div:
            return f"{b / div:.3g} {unit}"
    return f"{b:.0f} B"


class Row:
    def __init__(self, b):
        parts = b["name"].split("/")
        self.threads = 1
        core = []
        for p in parts:
            if p.startswith("threads:"):
                self.threads = int(p.split(":")[1])
            elif p not in ("real_time", "manual_time"):
                core.append(p)
        (self.op, self.layout, bpk, self.size, self.keys, self.mode, self.target) = core[:7]
        self.bpk = int(bpk.replace("bpk", ""))
        self.bytes = size_bytes(self.size, self.bpk)
        self.fpr = b.get("fpr")
        self.fpr_model = b.get("fpr_model")
        self.k = b.get("k")
        keys = b.get("keys", 0)
        if self.threads == 1 and keys:
            self.ns = b["cpu_time"] * b["iterations"] / keys * _TO_NS[b.get("time_unit", "ns")]
        else:
            self.ns = 1e9 / b["items_per_second"]
        self.rate = b.get("items_per_second", 0.0)  # wall clock, all threads

    def key(self):
        return (self.op, self.layout, self.bpk, self.size, self.keys, self.mode, self.target, self.threads)


_TO_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class Results:
    def __init__(self, data):
        self.ctx = data.get("context", {})
        self.rows = {}
        for b in data.get("benchmarks", []):
            if b.get("run_type", "iteration") != "iteration" or "error_occurred" in b:
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
    add("| target (issue 5) | measured | verdict |")
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
        add(f"| 100Mkeys: within {T_FLOOR}x of the hash-plus-one-line floor | {lay}: query {fmt(q.ns)} ns/key = "
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
            add(f"| AVX2 within {T_AVX2}x of AVX-512 | {fmt(r)}x | {verdict(r is not None and r <= T_AVX2)} |")
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


def compact_table(res, bpk=10, keys="u64"):
    """The README's table: best target, batched, every layout x size, with floor and peer ratios."""
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


def plot_ns(res, op, floor_op, path, bpk=10, keys="u64"):
    fig, axes = plt.subplots(1, len(LAYOUTS), figsize=(17, 3.6), sharey=True)
    sizes = res.sizes(bpk, keys)
    for ax, lay in zip(axes, LAYOUTS):
        for target in res.targets():
            pts = [(size_bytes(s, bpk), res.get(op, lay, bpk, s, keys, "batch", target)) for s in sizes]
            pts = [(x, r.ns) for x, r in pts if r]
            if len(pts) >= 1:
                ax.plot(*zip(*pts), marker="o", ms=3, label=target)
        pk = [(size_bytes(s, bpk), res.get(op, lay, bpk, s, keys, "perkey")) for s in sizes]
        pk = [(x, r.ns) for x, r in pk if r]
        if pk:
            ax.plot(*zip(*pk), marker=".", ls=":", color="gray", label="per key")
        fl = [(size_bytes(s, bpk), res.get(floor_op, "floor", bpk, s, keys)) for s in sizes]
        fl = [(x, r.ns) for x, r in fl if r]
        if fl:
            ax.plot(*zip(*fl), color="black", ls="--", lw=1.5, label=f"floor ({floor_op})")
        lb = [(size_bytes(s, bpk), res.get(op, "libbloom", bpk, s, keys)) for s in sizes]
        lb = [(x, r.ns) for x, r in lb if r]
        if lb:
            ax.plot(*zip(*lb), color="tab:red", ls="-.", marker="x", ms=4, label="libbloom")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(lay, fontsize=10)
        ax.set_xlabel("filter bytes")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel(f"{op} ns/key")
    handles, labels = {}, []
    for ax in axes:  # one legend for all panels, below them
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if lab not in handles:
                handles[lab] = h
                labels.append(lab)
    fig.legend([handles[x] for x in labels], labels, loc="lower center", ncol=len(labels), fontsize=8)
    fig.suptitle(f"{op}, {keys} keys, {bpk} bits/key, 1 thread ({res.ctx.get('cpu_model', '?')})", fontsize=10)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=72)
    plt.close(fig)


def plot_fpr(res, path):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colors = dict(zip(LAYOUTS + ["libbloom"], plt.rcParams["axes.prop_cycle"].by_key()["color"]))
    for lay in LAYOUTS:
        curve = res.ctx.get(f"model_fpr/{lay}")
        if curve:
            pts = [tuple(map(float, p.split(":")[:2])) for p in curve.split(",")]
            ax.plot(*zip(*pts), color=colors[lay], lw=1, label=f"{lay} model")
    for lay in LAYOUTS + ["libbloom"]:
        pts = [(r.bpk, r.fpr) for r in res.rows.values()
               if r.layout == lay and r.op == "query_absent" and r.fpr and r.threads == 1]
        if pts:
            ax.scatter(*zip(*pts), color=colors[lay], s=14, marker="o" if lay != "libbloom" else "x",
                       label=f"{lay} measured")
    ax.set_yscale("log")
    ax.set_xlabel("bits per key")
    ax.set_ylabel("false-positive rate")
    ax.set_title("measured (all sizes, both key types) vs the exact model (1M keys)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=72)
    plt.close(fig)


# ---- Main ----------------------------------------------------------------------------


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: tools/report.py RESULTS.json OUTDIR")
    with open(argv[1]) as f:
        res = Results(json.load(f))
    if not res.rows:
        sys.exit(f"report.py: {argv[1]}: no benchmark rows")
    out = argv[2]
    os.makedirs(out, exist_ok=True)
    c = res.ctx
    plots = []
    for op, floor_op in (("query_absent", "floor_read"), ("insert", "floor_rmw")):
        name = f"ns_per_key_{op}.png"
        plot_ns(res, op, floor_op, os.path.join(out, name))
        plots.append((f"{op}: ns/key against filter size, per layout and target, floor dashed", name))
    plot_fpr(res, os.path.join(out, "fpr_vs_bits.png"))
    plots.append(("measured false-positive rate against bits/key, with the model's curve", "fpr_vs_bits.png"))

    md = ["# blockbloom benchmark report", "",
          f"- CPU: {c.get('cpu_model', '?')}, {c.get('num_cpus', '?')} cores at {c.get('mhz_per_cpu', '?')} MHz, "
          f"SIMD flags: {c.get('cpu_flags_simd', '?')}; caches: "
          + ", ".join(f"L{x['level']} {x['type'][0].lower()} {human_bytes(x['size'])}" for x in c.get("caches", [])),
          f"- Compiler: {c.get('compiler', '?')}; Google Benchmark, {c.get('library_build_type', '?')} library",
          f"- Date: {c.get('date', '?')}; preset `{c.get('bb_preset', '?')}`; load average at start: "
          f"{c.get('loadavg_at_start', '?')} (the machine is shared: 1-thread rows are on-CPU time)",
          f"- Targets compiled: {c.get('targets_compiled', '?')}; supported here: {c.get('targets_supported', '?')}; "
          f"transparent huge pages: {c.get('thp', '?')}",
          "- Look-ahead 128 keys (kernels and floor alike); filters from 2 MiB on are 2 MiB-aligned mmaps with "
          "MADV_HUGEPAGE, and so is the floor's buffer.", "",
          "## Speed targets", ""] + target_lines(res) + [""]
    md += ["## Plots", ""] + [f"![{t}]({n})" for t, n in plots] + [""]
    md += ["## Tables", ""]
    md += main_table(res, 10, "u64", "uint64 keys, 10 bits/key")
    md += threads_table(res)
    md += main_table(res, 10, "url", "URL keys (30-80 bytes), 10 bits/key")
    for bpk in (8, 16):
        md += main_table(res, bpk, "u64", f"uint64 keys, {bpk} bits/key")
        md += main_table(res, bpk, "url", f"URL keys, {bpk} bits/key")
    with open(os.path.join(out, "report.md"), "w") as f:
        f.write("\n".join(md) + "\n")
    # The README's excerpt: the machine, the targets, the compact table.
    summary = md[2:7] + ["", "Speed targets:", ""] + target_lines(res) + ["", f"uint64 keys, 10 bits/key, batched, "
               f"{res.best_target}, 1 thread, ns/key:", ""] + compact_table(res)
    with open(os.path.join(out, "summary.md"), "w") as f:
        f.write("\n".join(summary) + "\n")
    print(f"report.py: wrote {out}/report.md and {len(plots)} plots from {len(res.rows)} rows")


if __name__ == "__main__":
    main(sys.argv)
