# SPDX-License-Identifier: Apache-2.0
"""Builds the blockbloom Python package: python/blockbloom plus the extension blockbloom._core,
compiled by the project's own CMake (-DBLOCKBLOOM_PYTHON=ON, python/CMakeLists.txt), never by
setuptools' compiler driver, so the wheel holds the same SIMD targets and bytes as the C++ library.

    python3 -m pip install --no-build-isolation .                   # Debian 12: see docs/python.md
    python3 -m pip wheel --no-build-isolation --no-deps -w dist .

Nothing is downloaded: CMake, a C++20 compiler, Highway, xxHash and pybind11 come from the system
(Debian: tools/scripts/install-deps.sh python). Environment:
  BLOCKBLOOM_CMAKE_BUILD_DIR  an existing CMake build directory of this source tree to add the extension
                              to and build it in (tools/ci/python.sh passes its g++ build, so the library's
                              objects are reused); otherwise a fresh Release build under setuptools' build_temp.
  BLOCKBLOOM_CMAKE_ARGS       extra arguments for that configure step (split like a shell would).
  CMAKE_BUILD_PARALLEL_LEVEL  compile jobs (default: every core).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.egg_info import egg_info

ROOT = Path(__file__).resolve().parent


def project_version() -> str:
    """The library's version: CMake's project(blockbloom VERSION x.y.z) (what blockbloom::Version() reports)."""
    text = (ROOT / "CMakeLists.txt").read_text()
    m = re.search(r"project\(\s*blockbloom\s+VERSION\s+([0-9]+\.[0-9]+\.[0-9]+)", text)
    if m is None:
        raise RuntimeError("blockbloom: no `project(blockbloom VERSION x.y.z)` in CMakeLists.txt")
    return m.group(1)


class CMakeExtension(Extension):
    """An extension module that CMake's target `target` builds (no sources for setuptools to compile)."""

    def __init__(self, name: str, target: str) -> None:
        super().__init__(name, sources=[])
        self.target = target


class CMakeBuild(build_ext):
    """Configures (or re-configures) a CMake build of this tree with the bindings on, builds the
    extension's target and copies the module where setuptools expects it."""

    def build_extension(self, ext: Extension) -> None:
        assert isinstance(ext, CMakeExtension)
        build_dir = self.cmake_build_dir()
        reuse = (build_dir / "CMakeCache.txt").is_file()
        args = ["-DBLOCKBLOOM_PYTHON=ON", f"-DPython_EXECUTABLE={sys.executable}"]
        pybind11_dir = self.pybind11_cmake_dir()
        if pybind11_dir:
            args.append(f"-Dpybind11_DIR={pybind11_dir}")
        if not reuse:
            # Only what the extension needs; the Release build type is the project's default.
            args += ["-DCMAKE_BUILD_TYPE=Release", "-DBLOCKBLOOM_BUILD_TESTS=OFF", "-DBLOCKBLOOM_BUILD_BENCH=OFF",
                     "-DBLOCKBLOOM_BUILD_TOOLS=OFF", "-DBLOCKBLOOM_INSTALL=OFF"]
        args += shlex.split(os.environ.get("BLOCKBLOOM_CMAKE_ARGS", ""))
        self.run_cmake(["-S", str(ROOT), "-B", str(build_dir), *args])
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL") or str(os.cpu_count() or 1)
        self.run_cmake(["--build", str(build_dir), "--target", ext.target, "-j", jobs])

        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        built = build_dir / "python" / "blockbloom" / f"_core{suffix}"
        if not built.is_file():
            raise RuntimeError(f"blockbloom: CMake built no {built.name} in {built.parent} "
                               f"(is {build_dir} configured for another interpreter than {sys.executable}?)")
        dest = Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, dest)
        shutil.copymode(built, dest)

    def cmake_build_dir(self) -> Path:
        named = os.environ.get("BLOCKBLOOM_CMAKE_BUILD_DIR")
        if named:
            return Path(named).resolve()
        return Path(self.build_temp).resolve() / "cmake"

    @staticmethod
    def pybind11_cmake_dir() -> str | None:
        # pybind11 from pip (build isolation) carries its CMake package inside; Debian's pybind11-dev
        # puts it where CMake looks anyway (/usr/lib/cmake/pybind11).
        try:
            import pybind11

            return pybind11.get_cmake_dir()
        except ImportError:  # no pybind11 module, or one without its CMake files (get_cmake_dir raises)
            return None

    def run_cmake(self, args: list[str]) -> None:
        cmake = shutil.which("cmake")
        if cmake is None:
            raise RuntimeError("blockbloom: cmake (>= 3.25) is needed to build the extension "
                               "(Debian: apt-get install cmake, or tools/scripts/install-deps.sh python)")
        print("blockbloom: cmake " + " ".join(shlex.quote(a) for a in args), flush=True)
        subprocess.run([cmake, *args], check=True)


class EggInfo(egg_info):
    """Writes blockbloom.egg-info under build/ (git-ignored), not into the source tree's python/."""

    def initialize_options(self) -> None:
        super().initialize_options()
        base = ROOT / "build"
        base.mkdir(exist_ok=True)
        self.egg_base = os.path.relpath(base)


setup(
    version=project_version(),
    packages=["blockbloom"],
    package_dir={"": "python"},
    package_data={"blockbloom": ["py.typed", "*.pyi"]},
    ext_modules=[CMakeExtension("blockbloom._core", target="blockbloom_python")],
    cmdclass={"build_ext": CMakeBuild, "egg_info": EggInfo},
    zip_safe=False,
)
