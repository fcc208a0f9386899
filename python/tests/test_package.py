# SPDX-License-Identifier: Apache-2.0
"""The installed package: the library's version, the type stubs and py.typed beside the module, and (in CI,
BLOCKBLOOM_REQUIRE_INSTALLED=1) that the tests run against a pip-installed copy, not the source or build tree."""

from __future__ import annotations

import importlib.metadata
import os
import re
import sysconfig
from pathlib import Path

import pytest

import blockbloom
from conftest import ROOT

INSTALLED = os.environ.get("BLOCKBLOOM_REQUIRE_INSTALLED") == "1"
PACKAGE_DIR = Path(blockbloom.__file__).resolve().parent


def cmake_version() -> str:
    m = re.search(r"project\(\s*blockbloom\s+VERSION\s+(\S+)", (ROOT / "CMakeLists.txt").read_text())
    assert m, "no project(blockbloom VERSION ...) in CMakeLists.txt"
    return m.group(1)


def test_version_is_the_librarys():
    assert blockbloom.__version__ == blockbloom._core.__version__  # what the linked C++ library reports
    assert blockbloom.__version__ == cmake_version()


def test_stubs_and_py_typed_ship_with_the_module():
    assert (PACKAGE_DIR / "py.typed").is_file()
    stub = PACKAGE_DIR / "_core.pyi"
    assert stub.is_file() and "__version__: str" in stub.read_text()
    assert Path(blockbloom._core.__file__).resolve().parent == PACKAGE_DIR


@pytest.mark.skipif(not INSTALLED, reason="BLOCKBLOOM_REQUIRE_INSTALLED=1 (tools/ci/python.sh) checks the install")
def test_the_tests_import_the_installed_distribution():
    # The interpreter's own site-packages (tools/ci/python.sh: a venv's), not python/ nor a CMake build's package.
    site = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
    assert PACKAGE_DIR.parent in site, (PACKAGE_DIR, site)
    assert ROOT / "python" not in PACKAGE_DIR.parents
    dist = importlib.metadata.distribution("blockbloom")
    assert dist.version == blockbloom.__version__
    files = {str(f) for f in dist.files or []}
    for name in ("blockbloom/__init__.py", "blockbloom/dask.py", "blockbloom/_core.pyi", "blockbloom/py.typed"):
        assert name in files, (name, sorted(files))
    assert any(re.fullmatch(r"blockbloom/_core\..*\.so", f) for f in files), sorted(files)
