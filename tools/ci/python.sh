#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Test stage: the Python package (pyproject.toml + setup.py: python/ and the extension) and blockbloom.dask.
# Installs it the way the README does and tests the installed copy, not the build tree:
#   1. configures the CMake build "$build" (g++, warnings are errors, -DBLOCKBLOOM_PYTHON=ON) and builds
#      the CLI there (the byte-equality tests compare with it);
#   2. builds a wheel with /usr/bin/python3 -m pip wheel --no-build-isolation --no-index: setup.py compiles
#      the extension in that same build directory (BLOCKBLOOM_CMAKE_BUILD_DIR), so the library is not
#      compiled twice (tools/test.sh passes its g++ build: BLOCKBLOOM_PYTHON_BUILD_DIR=build/gcc);
#   3. installs the wheel into a venv with Debian's site packages visible ($build/venv: numpy, dask,
#      distributed, pandas, pytest are python3-* packages) and runs pytest with the venv's interpreter from
#      a scratch directory outside the source tree, without PYTHONPATH.
#   tools/ci/python.sh [pytest args...]        e.g. tools/ci/python.sh -k dask
# PYTHON=/path/to/python3 builds with another interpreter (it and its venv must see numpy, dask,
# distributed, pandas, pytest, setuptools, wheel); a pyenv python3 first on PATH cannot see Debian's.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
python=${PYTHON:-/usr/bin/python3}
build=${BLOCKBLOOM_PYTHON_BUILD_DIR:-build/python}
[[ "$build" == /* ]] && abs_build=$build || abs_build="$root/$build"

tools/scripts/install-deps.sh python
if [[ -f "$build/CMakeCache.txt" && "$build" != build/python ]]; then
  # A g++ build made by tools/test.sh: add the extension to it, so the library's
  # objects (position-independent already) are reused, not compiled again.
  cmake -S . -B "$build" -DBLOCKBLOOM_PYTHON=ON -DPython_EXECUTABLE="$python" >/dev/null
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DBLOCKBLOOM_WERROR=ON \
    -DBLOCKBLOOM_PYTHON=ON -DBLOCKBLOOM_BUILD_TESTS=OFF -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_BUILD_TOOLS=ON -DBLOCKBLOOM_INSTALL=OFF \
    -DPython_EXECUTABLE="$python" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target blockbloom_cli

# The wheel, built as the README's install builds it (no isolation, no index: nothing downloaded).
dist="$abs_build/dist"
rm -rf "$dist"
BLOCKBLOOM_CMAKE_BUILD_DIR="$abs_build" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" \
  "$python" -m pip wheel --no-build-isolation --no-index --no-deps --no-cache-dir --quiet --wheel-dir "$dist" .
wheels=("$dist"/blockbloom-*.whl)
echo "python: built ${wheels[0]#"$root"/}"

# A clean venv that sees Debian's packages (pip among them), holding only the wheel.
venv="$abs_build/venv"
"$python" -m venv --system-site-packages --without-pip --clear "$venv"
"$venv/bin/python" -m pip install --no-index --no-deps --force-reinstall --quiet "${wheels[0]}"

# pytest from outside the source tree, so that `import blockbloom` can only find the installed copy (the
# tests check it: BLOCKBLOOM_REQUIRE_INSTALLED). The byte-equality tests need the CLI: fail rather than
# skip if it is missing.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
unset PYTHONPATH
export BLOCKBLOOM_CLI="$abs_build/tools/blockbloom" BLOCKBLOOM_REQUIRE_CLI=1 BLOCKBLOOM_REQUIRE_INSTALLED=1
export PYTHONDONTWRITEBYTECODE=1
(cd "$scratch" && "$venv/bin/python" -m pytest "$root/python/tests" -p no:cacheprovider -q -ra "$@") |
  tee "$build/pytest.log"
