# SPDX-License-Identifier: Apache-2.0
"""The Python examples of docs/python.md (which the README links for Python) run as written (in a
subprocess, in a scratch directory)."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import ROOT


def python_blocks(section: str) -> list[str]:
    text = (ROOT / "docs" / "python.md").read_text()
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, re.S)


@pytest.mark.parametrize("section", ["Use", "More than one machine"])
def test_readme_example_runs(section, tmp_path):
    blocks = python_blocks(section)
    assert len(blocks) == 1
    if section == "Use":
        assert len(blocks[0].strip().splitlines()) <= 12  # the "10-line example", imports included
    script = tmp_path / "example.py"
    script.write_text(blocks[0])
    out = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=os.environ.copy(),
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    assert (tmp_path / "keys.bbf").exists()
