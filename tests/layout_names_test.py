#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The layout name lists that cannot be derived from kLayoutTraits hold exactly its names
(issue 23: a layout added to the traits but forgotten in one of these is a silent gap).

    tests/layout_names_test.py SOURCE_DIR [CLI_DIR]

The names come from the rows of kLayoutTraits (engine/include/blockbloom/layout.h); with CLI_DIR, the
built blockbloom's own list (its error for an unknown --layout, LayoutNames()) must agree with them, so
the rows are read right. Checked against them:
    python/blockbloom/_core.pyi   the LayoutName Literal of the type stubs
    tools/scripts/report.py               LAYOUTS (the report's rows and plots) and a colour for each in COLORS
    tools/scripts/scale_report.sh         the layouts the scale report verifies
The C++ lists (CLI help, messages) are built from the traits and need no test here.
The hash kinds likewise: the names ParseHash accepts (engine/src/hash.cc) are the stubs' HashName Literal.
"""
import ast
import os
import re
import subprocess
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLI_DIR = sys.argv[2] if len(sys.argv) > 2 else None


def read(rel):
    with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
        return f.read()


def traits_names():
    text = read("engine/include/blockbloom/layout.h")
    body = text[text.index("kLayoutTraits[] = {"):]
    body = body[:body.index("\n};")]
    body = re.sub(r"//[^\n]*", "", body)  # comments may quote names
    return re.findall(r"\{\s*Layout::k\w+\s*,\s*\"([^\"]+)\"", body)


def cli_names():
    exe = os.path.join(CLI_DIR, "blockbloom")
    r = subprocess.run([exe, "table", "--layout", "no-such-layout"], capture_output=True, text=True)
    m = re.search(r"expected one of (.*)$", r.stderr.strip())
    assert m, f"{exe} table --layout no-such-layout said: {r.stderr!r}"
    return [s.strip() for s in m.group(1).split(",")]


def module_assignments(rel):
    """Top-level `NAME = <literal>` assignments of a Python file, as AST nodes."""
    out = {}
    for node in ast.parse(read(rel)).body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            out[node.targets[0].id] = node.value
    return out


def stub_names(literal="LayoutName"):
    value = module_assignments("python/blockbloom/_core.pyi")[literal]  # Literal["a", "b", ...]
    elts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
    return [ast.literal_eval(e) for e in elts]


def hash_names():
    """The names ParseHash accepts: its `if (name == "...") return HashKind::k...;` lines."""
    return re.findall(r'if \(name == "([^"]+)"\) return HashKind::k\w+;', read("engine/src/hash.cc"))


def report_lists():
    nodes = module_assignments("tools/scripts/report.py")
    return ast.literal_eval(nodes["LAYOUTS"]), list(ast.literal_eval(nodes["COLORS"]))


def scale_report_names():
    m = re.search(r"^for layout in ([^;]*); do", read("tools/scripts/scale_report.sh"), re.M)
    assert m, "tools/scripts/scale_report.sh: no 'for layout in ...; do' line"
    return m.group(1).split()


def main():
    want = traits_names()
    problems = []
    if len(want) < 5:
        problems.append(f"engine/include/blockbloom/layout.h: read only {want} from kLayoutTraits")
    if CLI_DIR:
        got = cli_names()
        if got != want:
            problems.append(f"the CLI lists {got}, the rows of kLayoutTraits read as {want}")
    layouts, colors = report_lists()
    checks = [("python/blockbloom/_core.pyi: LayoutName", stub_names()),
              ("tools/scripts/report.py: LAYOUTS", layouts),
              ("tools/scripts/scale_report.sh: for layout in", scale_report_names())]
    for where, got in checks:  # as sets: each list's order is its own presentation
        if sorted(set(got)) != sorted(want):
            missing = [n for n in want if n not in got]
            extra = [n for n in got if n not in want]
            problems.append(f"{where} is {got}, expected {want} (kLayoutTraits)"
                            + (f"; missing {missing}" if missing else "") + (f"; not a layout {extra}" if extra else ""))
    hashes = hash_names()
    if len(hashes) < 4:
        problems.append(f"engine/src/hash.cc: read only {hashes} from ParseHash")
    elif sorted(stub_names("HashName")) != sorted(hashes):
        problems.append(f"python/blockbloom/_core.pyi: HashName is {stub_names('HashName')}, expected {hashes} "
                        "(ParseHash, engine/src/hash.cc)")
    if [n for n in want if n not in colors]:
        problems.append(f"tools/scripts/report.py: COLORS has no colour for {[n for n in want if n not in colors]}")
    for p in problems:
        print("layout_names_test: " + p)
    if problems:
        print("layout_names_test: FAIL (CONTRIBUTING.md, \"Adding a layout\")")
        return 1
    print(f"layout_names_test: every list names {', '.join(want)}; the stubs' hash names are {', '.join(hashes)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
