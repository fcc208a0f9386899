#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The README's first command: install what is missing, build in Release, run the demo.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/scripts/install-deps.sh build
cmake -S . -B build/release -DCMAKE_BUILD_TYPE=Release -DBLOCKBLOOM_BUILD_TESTS=OFF -DBLOCKBLOOM_BUILD_BENCH=OFF >/dev/null
cmake --build build/release --target blockbloom_cli -j "$(nproc)"
exec build/release/tools/blockbloom demo "$@"
