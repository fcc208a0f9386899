#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian 12 packages blockbloom needs, only those missing.
#   tools/scripts/install-deps.sh [build|test|arm|fuzz|report|python ...]   (default: build)
# As root it runs apt-get itself; otherwise it says what to install.
set -euo pipefail

declare -A groups=(
  [build]="cmake g++ make pkg-config libhwy-dev libxxhash-dev libgtest-dev libbenchmark-dev"
  [test]="cmake g++ clang make pkg-config libhwy-dev libxxhash-dev libgtest-dev libbenchmark-dev librocksdb-dev"
  [arm]="g++-aarch64-linux-gnu qemu-user libhwy-dev:arm64 libgtest-dev:arm64 libxxhash-dev:arm64"
  [fuzz]="clang libclang-rt-14-dev"
  [report]="python3 python3-matplotlib libbloom-dev"
  [python]="cmake g++ make pkg-config libhwy-dev libxxhash-dev python3 python3-dev pybind11-dev python3-numpy python3-pytest python3-dask python3-distributed python3-pandas python3-pip python3-venv python3-setuptools python3-wheel"
)

want=()
for g in "${@:-build}"; do
  [[ -n "${groups[$g]:-}" ]] || { echo "install-deps: unknown group '$g' (expected: ${!groups[*]})" >&2; exit 2; }
  for p in ${groups[$g]}; do want+=("$p"); done
done

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: missing packages: ${missing[*]} (run as root, or apt-get install them)" >&2
  exit 1
fi
for p in "${missing[@]}"; do
  if [[ "$p" == *:arm64 ]] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
    dpkg --add-architecture arm64
    break
  fi
done
echo "install-deps: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
