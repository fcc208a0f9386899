#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The command blocks of the README and the docs/ pages run as pasted, in order, on a fresh copy of the
source tree.

    tests/readme_blocks_test.py page.md [page.md ...] BIN_DIR [--list]

Every fenced shell block (```sh, ```bash, ```shell) of each page runs, in the order of the page, with
`bash -e -o pipefail` (a failing command fails the block) and BIN_DIR (the build's `blockbloom`) first on
PATH, from the root of a scratch copy of the source tree (the files git tracks or would track, as a
fresh clone has them). Each page gets its own fresh copy; the blocks of one page share it, so a block may
use the files an earlier one of the same page made. The source tree is the one holding the first page
(the folder of README.md, the parent of docs/).

A block that must not run here (it installs packages, runs the whole test suite, installs under
/usr/local, needs files a reader brings) says so on the line before its fence, with the reason:

    <!-- readme-test: skip (installs packages) -->

and is reported as skipped with that reason. An unmarked block that would install packages or run the
test suite (apt-get, pip install, tools/test.sh, ...) is an error, not a silent run. Python blocks are
run by python/tests/test_readme.py and listed here only; other languages (C++, CMake) are not commands.
--list prints the plan without running anything. Exit status 0 only if every runnable block passed;
77 (skipped) if no page given has a runnable shell block (CTest registers README.md without that
exemption: it must have one).
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

SHELL = {"sh", "bash", "shell"}
SKIP_RE = re.compile(r"^<!--\s*readme-test:\s*skip\s*\((.+)\)\s*-->$")
FENCE_RE = re.compile(r"^(`{3,}|~{3,})\s*([\w+-]*)")
# What an unmarked block must not do here.
FORBIDDEN = [
    (re.compile(r"\bapt(-get)?\s+install\b"), "installs Debian packages"),
    (re.compile(r"\bpip3?\s+install\b|-m\s+pip\s+(install|wheel)\b|-m\s+build\b"), "installs or builds a Python package"),
    (re.compile(r"\btools/(test|demo|scripts/install-deps|scripts/bench)\.sh\b"), "runs a tools/ script that installs packages"),
    (re.compile(r"\bcmake\s+--install\b"), "installs the project"),
    (re.compile(r"\bsudo\b"), "runs as root"),
]
BLOCK_TIMEOUT = 600  # seconds


class Block:
    def __init__(self, line, lang, text, skip, page="README.md"):
        self.line, self.lang, self.text, self.skip, self.page = line, lang, text, skip, page

    def where(self):
        return f"{self.page}:{self.line} ({self.lang or 'no language'})"


def source_root(page):
    """The root of the source tree a page belongs to: its folder, or the parent of docs/."""
    folder = os.path.dirname(os.path.abspath(page))
    return os.path.dirname(folder) if os.path.basename(folder) == "docs" else folder


def blocks(readme_text, page="README.md"):
    """Every fenced block: its first line number (1-based), language, text, and skip reason (or None)."""
    out = []
    lines = readme_text.split("\n")
    i = 0
    while i < len(lines):
        m = FENCE_RE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang, start = m.group(1), m.group(2).lower(), i
        body = []
        i += 1
        while i < len(lines) and not (lines[i].startswith(fence[0] * len(fence)) and not lines[i].strip(fence[0]).strip()):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        prev = next((lines[j].strip() for j in range(start - 1, -1, -1) if lines[j].strip()), "")
        sm = SKIP_RE.match(prev)
        out.append(Block(start + 1, lang, "\n".join(body) + "\n", sm.group(1).strip() if sm else None, page))
    return out


def plan(all_blocks):
    """(runnable, skipped [(block, reason)], errors [str])."""
    run, skipped, errors = [], [], []
    for b in all_blocks:
        if b.lang == "python":
            skipped.append((b, b.skip or "Python: python/tests/test_readme.py runs the examples of docs/python.md"))
        elif b.lang not in SHELL:
            continue
        elif b.skip:
            skipped.append((b, b.skip))
        else:
            bad = [why for rx, why in FORBIDDEN if rx.search(b.text)]
            if bad:
                errors.append(f"{b.where()}: {'; '.join(bad)}: mark it on the line before its fence with "
                              "<!-- readme-test: skip (REASON) --> or change it")
            else:
                run.append(b)
    return run, skipped, errors


def fresh_copy(src, dst):
    """The files of `src` a fresh clone has (git's tracked and untracked-but-not-ignored files), else all but
    build/ and .git."""
    try:
        names = subprocess.run(["git", "-C", src, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                               capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        shutil.copytree(src, dst, ignore=shutil.ignore_patterns(".git", "build"), symlinks=True, dirs_exist_ok=True)
        return
    for name in filter(None, names):
        s, d = os.path.join(src, name), os.path.join(dst, name)
        if not os.path.lexists(s):  # deleted in the working tree
            continue
        os.makedirs(os.path.dirname(d), exist_ok=True)
        if os.path.islink(s):
            os.symlink(os.readlink(s), d)
        else:
            shutil.copy2(s, d)


def run_page(root, run, env):
    """Runs a page's blocks in order from `root`; returns the number that failed."""
    failed = 0
    for b in run:
        try:
            r = subprocess.run(["bash", "-e", "-o", "pipefail", "-x", "-c", b.text], cwd=root, env=env,
                               stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=BLOCK_TIMEOUT,
                               errors="replace")
            status = r.returncode
            out, err = r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            status, out, err = "timeout", str(e.stdout or ""), str(e.stderr or "")
        if status == 0:
            print(f"PASS {b.where()}")
            continue
        failed += 1
        print(f"FAIL {b.where()}: exit status {status}\n--- block:\n{b.text}--- stdout (end):\n"
              + "\n".join(out.splitlines()[-20:]) + "\n--- stderr with the commands run (end):\n"
              + "\n".join(err.splitlines()[-30:]))
    return failed


def main(argv):
    args = [a for a in argv[1:] if a != "--list"]
    if len(args) < 2:
        sys.exit("usage: tests/readme_blocks_test.py page.md [page.md ...] BIN_DIR [--list]")
    pages, bin_dir = [os.path.abspath(a) for a in args[:-1]], os.path.abspath(args[-1])
    root_dir = source_root(pages[0])
    plans, errors, nskipped = [], [], 0
    for page in pages:
        name = os.path.relpath(page, root_dir)
        with open(page, encoding="utf-8") as f:
            run, skipped, errs = plan(blocks(f.read(), name))
        for b, why in skipped:
            print(f"SKIP {b.where()}: {why}")
        nskipped += len(skipped)
        errors += errs
        plans.append((name, run))
    for e in errors:
        print(f"ERROR {e}")
    if "--list" in argv:
        for _, run in plans:
            for b in run:
                print(f"RUN  {b.where()}: {b.text.strip().splitlines()[0] if b.text.strip() else '(empty)'}")
        return 1 if errors else 0
    if errors:
        return 1
    total = sum(len(run) for _, run in plans)
    if not total:
        print(f"SKIP {', '.join(name for name, _ in plans)}: no runnable shell block")
        return 77
    env = dict(os.environ, PATH=bin_dir + os.pathsep + os.environ.get("PATH", ""))
    found = shutil.which("blockbloom", path=env["PATH"])
    if not found or os.path.dirname(os.path.abspath(found)) != bin_dir:
        print(f"ERROR no blockbloom in {bin_dir}")
        return 1
    failed = 0
    for name, run in plans:
        if not run:
            continue
        with tempfile.TemporaryDirectory(prefix="bbreadme.") as tmp:  # a fresh tree for each page
            root = os.path.join(tmp, "blockbloom")
            fresh_copy(root_dir, root)
            failed += run_page(root, run, env)
    print(f"readme_blocks_test: {total - failed} of {total} shell blocks passed, {nskipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
