#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Every repository path a tracked file names exists (issue 23: comments and documents that point at
files which are gone send a reader nowhere).

    tests/paths_test.py [SOURCE_DIR]     (exit 77, skipped, outside a git checkout)

A path is a token starting with a top-level folder (engine/, garden/, verify/, kernels/, tests/, bench/,
tools/, python/, examples/, cmake/, docs/, .ci/, and seeds/, which is not in the repository) or a bare upper-case
document name (THEORY.md, CONTRIBUTING.md, ...). It must exist relative to the repository root or to the
folder of the file naming it, or be one git ignores (what a script writes at run time: bench/local/,
examples/probe_service). A token holding a placeholder (`kernels/<name>-inl.h`, `...`) is a pattern, not
a path; one holding `*` must match at least one file. Paths spelled from outside the repository
(`../shared/STYLE.md`) are not checked.
"""
import glob
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# Named but neither in the tree nor git-ignored, on purpose. Keep this short: each entry says who makes
# the path (e.g. "engine/include/blockbloom/version.h",  # CMake generates it into the build tree).
EXCEPTIONS = set()

TOP = r"(?:engine|garden|verify|kernels|tests|bench|tools|python|examples|cmake|docs|\.ci|seeds)/"
# Not preceded by anything that makes the token part of a longer path, a URL or a word.
PATH_RE = re.compile(r"(?<![\w./~$@-])(" + TOP + r"[\w.<>*{}/+-]*)")
DOC_RE = re.compile(r"(?<![\w./~$@-])([A-Z][A-Z_]+\.md)\b")
PLACEHOLDER = re.compile(r"[<>{}]|\.\.\.")


def tracked_files():
    try:
        out = subprocess.run(["git", "-C", ROOT, "ls-files", "-z"], check=True, capture_output=True).stdout
    except (OSError, subprocess.CalledProcessError):
        print("paths_test: SKIP: not a git checkout: " + ROOT)
        sys.exit(77)
    return [p for p in out.decode().split("\0") if p]


def text_of(rel):
    try:
        with open(os.path.join(ROOT, rel), "rb") as f:
            data = f.read()
    except OSError:  # tracked but deleted in the work tree
        return None
    if b"\0" in data[:8192]:
        return None
    return data.decode("utf-8", errors="replace")


def exists(token, rel):
    if token in EXCEPTIONS:
        return True
    bases = [ROOT, os.path.join(ROOT, os.path.dirname(rel))]
    if "*" in token:
        return any(glob.glob(os.path.join(b, token)) for b in bases)
    if any(os.path.exists(os.path.join(b, token)) for b in bases):
        return True
    # Written at run time and kept out of git by .gitignore.
    return any(subprocess.run(["git", "-C", ROOT, "check-ignore", "-q", "--no-index", t]).returncode == 0
               for t in (token, token.rstrip("/") + "/"))


def stale_paths():
    stale = []
    for rel in tracked_files():
        if rel == "tests/paths_test.py":  # names the kinds of path it looks for, not paths
            continue
        text = text_of(rel)
        if text is None:
            continue
        for lineno, line in enumerate(text.splitlines(), 1):
            tokens = [m.group(1) for m in PATH_RE.finditer(line)] + [m.group(1) for m in DOC_RE.finditer(line)]
            for token in tokens:
                token = token.rstrip(".")  # the end of a sentence
                if PLACEHOLDER.search(token):
                    continue
                if not exists(token, rel):
                    stale.append(f"{rel}:{lineno}: {token}")
    return stale


def main():
    stale = stale_paths()
    for s in stale:
        print(s)
    if stale:
        print(f"paths_test: FAIL: {len(stale)} reference(s) to paths that do not exist "
              "(fix the reference, or add a commented entry to EXCEPTIONS in tests/paths_test.py)")
        return 1
    print("paths_test: every named path exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
