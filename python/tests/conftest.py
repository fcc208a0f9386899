# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures. tools/ci/python.sh installs the package (a wheel, into a venv that sees Debian's numpy,
dask, pytest) and runs these tests with the venv's interpreter from outside the source tree. By hand, with a
venv holding the package (docs/python.md, "Install") or the CMake build's package directory on PYTHONPATH:

    cd /tmp && /path/to/venv/bin/python -m pytest /path/to/blockbloom/python/tests
    PYTHONPATH=build/gcc/python BLOCKBLOOM_CLI=build/gcc/tools/blockbloom /usr/bin/python3 -m pytest python/tests
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

import blockbloom

ROOT = Path(__file__).resolve().parents[2]

# Dask worker processes import blockbloom and these test modules (for the functions their tasks
# name): give them the package's directory and this one.
_paths = [str(Path(blockbloom.__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
os.environ["PYTHONPATH"] = os.pathsep.join(_paths + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
SUPPORTED = blockbloom.supported_targets()


@pytest.fixture(params=SUPPORTED)
def target(request):
    """Each SIMD target this CPU runs, pinned for the test, unpinned after."""
    blockbloom.pin_target(request.param)
    assert blockbloom.active_target() == request.param
    yield request.param
    blockbloom.pin_target("auto")


@pytest.fixture(scope="session")
def cli() -> str:
    """The blockbloom CLI: $BLOCKBLOOM_CLI, else a build tree's. CI sets BLOCKBLOOM_REQUIRE_CLI=1
    so that a missing CLI fails instead of skipping."""
    candidates = [os.environ.get("BLOCKBLOOM_CLI", "")]
    candidates += [str(p) for p in sorted(ROOT.glob("build/*/tools/blockbloom"))]
    candidates.append(shutil.which("blockbloom") or "")
    for c in candidates:
        if c and os.access(c, os.X_OK) and Path(c).is_file():
            return c
    if os.environ.get("BLOCKBLOOM_REQUIRE_CLI") == "1":
        pytest.fail("the blockbloom CLI was not found: set BLOCKBLOOM_CLI to its path")
    pytest.skip("the blockbloom CLI was not found (set BLOCKBLOOM_CLI)")
