#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Test stage: the Python bindings and blockbloom.dask (python/). Builds the extension and the CLI in
# build/python (g++, warnings are errors; tools/test.sh adds them to its g++ build instead:
# BLOCKBLOOM_PYTHON_BUILD_DIR=build/gcc) against /usr/bin/python3 -- the interpreter Debian's
# python3-numpy/-dask/-distributed/-pytest belong to; a pyenv or venv python3 first on PATH cannot
# see them -- then runs pytest with that interpreter and prints its summary.
#   tools/ci/python.sh [pytest args...]        e.g. tools/ci/python.sh -k dask
# PYTHON=/path/to/python3 picks another interpreter (it must see numpy, dask, distributed, pandas, pytest).
set -euo pipefail
cd "$(dirname "$0")/../.."
python=${PYTHON:-/usr/bin/python3}
build=${BLOCKBLOOM_PYTHON_BUILD_DIR:-build/python}

tools/install-deps.sh python
if [[ -f "$build/CMakeCache.txt" && "$build" != build/python ]]; then
  # A g++ build made by tools/test.sh: add the extension to it, so the library's
  # objects (position-independent already) are reused, not compiled again.
  cmake -S . -B "$build" -DBLOCKBLOOM_PYTHON=ON -DPython_EXECUTABLE="$python" >/dev/null
else
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DBLOCKBLOOM_WERROR=ON \
    -DBLOCKBLOOM_PYTHON=ON -DBLOCKBLOOM_BUILD_TESTS=OFF -DBLOCKBLOOM_BUILD_BENCH=OFF -DBLOCKBLOOM_BUILD_TOOLS=ON -DBLOCKBLOOM_INSTALL=OFF \
    -DPython_EXECUTABLE="$python" >/dev/null
fi
cmake --build "$build" -j "$(nproc)" --target blockbloom_python_package blockbloom_cli

# The byte-equality tests need the CLI: fail rather than skip if it is missing.
export PYTHONPATH="$PWD/$build/python" BLOCKBLOOM_CLI="$PWD/$build/tools/blockbloom" BLOCKBLOOM_REQUIRE_CLI=1
export PYTHONDONTWRITEBYTECODE=1
"$python" -m pytest python/tests -p no:cacheprovider -q -ra "$@" | tee "$build/pytest.log"
