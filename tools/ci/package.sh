#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Package stage: blockbloom as a downstream project sees it. Installs the g++
# build (build/gcc, configured and built here if tools/test.sh has not) into a
# temporary prefix, checks what was installed and `blockbloom --version`, then
# builds and runs examples/probe_service three ways, checking its output each
# time:
#   1. find_package(blockbloom CONFIG) against the prefix (examples/CMakeLists.txt),
#      with no Highway flags reaching the consumer's compile; and a small program
#      on blockbloom::garden + blockbloom::verify from the same package;
#   2. pkg-config against the prefix, no CMake (examples/Makefile);
#   3. add_subdirectory of this source tree from a parent project that sets
#      neither C++20 nor a build type (examples/subdirectory/), which builds the
#      library itself (tests, benchmarks and CLI off: about a minute).
# Ends with "package: N passed, M failed" and exits non-zero if M > 0.
# BLOCKBLOOM_PACKAGE_KEEP=1 keeps the temporary directory for a look.
set -uo pipefail
cd "$(dirname "$0")/../.."
src=$PWD
build=$src/build/gcc
jobs=$(nproc)
version=$(sed -n 's/^project(blockbloom VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
work=$(mktemp -d "${TMPDIR:-/tmp}/blockbloom-package.XXXXXX")
if [[ "${BLOCKBLOOM_PACKAGE_KEEP:-0}" == 1 ]]; then echo "package: keeping $work"; else trap 'rm -rf "$work"' EXIT; fi
prefix=$work/prefix

passed=0
failed=0
ok() { passed=$((passed + 1)); echo "ok: $*"; }
fail() { failed=$((failed + 1)); echo "FAILED: $*"; }
# check NAME COMMAND...: runs COMMAND, quiet unless it fails; its output is in $work/NAME.log.
check() {
  local name=$1; shift
  if "$@" >"$work/$name.log" 2>&1; then ok "$name"; else fail "$name (log below)"; tail -n 30 "$work/$name.log"; fi
}
finish() {
  echo "package: $passed passed, $failed failed"
  [[ $failed == 0 ]]
  exit
}

# The example's input: 20000 keys; probes are those keys and 20000 others. The
# filter is sized for a 1% rate, so the probes must hit all 20000 keys and
# (99.99% binomial bound at p = 0.97%) at most 250 of the others.
keys=20000
printf 'user-%d\n' $(seq 1 $keys) >"$work/keys.txt"
{ cat "$work/keys.txt"; printf 'visitor-%d\n' $(seq 1 $keys); } >"$work/probes.txt"
max_hits=$((keys + 250))

# assert_example NAME BINARY: runs the example and checks its summary.
assert_example() {
  local name=$1 bin=$2 out=$work/$1.out
  if ! "$bin" "$work/keys.txt" "$work/probes.txt" "$work/$name.bbf" >"$out" 2>&1; then
    fail "$name: probe_service exited non-zero"; cat "$out"; return
  fi
  local why=""
  grep -qx "blockbloom $version (headers $version), file format 1, SIMD target .*" "$out" || why+=" version line;"
  grep -q "^indexed $keys keys: blocked512, k = [0-9]*, " "$out" || why+=" indexed line;"
  grep -qx "mapped $work/$name.bbf: $keys keys, [0-9]* bytes" "$out" || why+=" mapped line;"
  grep -qx "keys found: $keys of $keys" "$out" || why+=" keys found (a false negative?);"
  local hits
  hits=$(sed -n "s/^probes: $((2 * keys)), hits: \([0-9]*\)$/\1/p" "$out")
  if [[ -z "$hits" ]] || ((hits < keys || hits > max_hits)); then
    why+=" hits '${hits}' not in [$keys, $max_hits];"
  fi
  if [[ -z "$why" ]]; then ok "$name: output checked ($hits hits of $((2 * keys)) probes)"; else
    fail "$name: output:$why"; cat "$out"; fi
}

echo "package: version $version, work dir $work"

# ---- install from the g++ build ----
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++ -DBLOCKBLOOM_WERROR=ON >/dev/null
fi
check build-installed-targets cmake --build "$build" -j "$jobs" \
  --target blockbloom blockbloom_verify blockbloom_garden blockbloom_cli
check install cmake --install "$build" --prefix "$prefix"
[[ $failed == 0 ]] || finish
libdir=$(dirname "$(find "$prefix" -name libblockbloom.a | head -n 1)")
missing=""
for f in "$libdir/libblockbloom.a" "$libdir/libblockbloom_garden.a" "$libdir/libblockbloom_verify.a" \
  "$prefix/include/blockbloom/filter.h" "$prefix/include/blockbloom/garden/common.h" \
  "$prefix/include/blockbloom/verify/exact_set.h" "$prefix/include/blockbloom/exact_set.h" \
  "$prefix/include/blockbloom/version.h" "$libdir/cmake/blockbloom/blockbloom-config.cmake" \
  "$libdir/cmake/blockbloom/blockbloom-config-version.cmake" "$libdir/cmake/blockbloom/blockbloom-targets.cmake" \
  "$libdir/pkgconfig/blockbloom.pc" "$prefix/bin/blockbloom"; do
  [[ -f "$f" ]] || missing+=" ${f#"$prefix"/}"
done
if [[ -z "$missing" ]]; then ok "installed files present"; else fail "installed files missing:$missing"; fi
# Every header but typed.h and the kernel headers it compiles in (blockbloom::typed)
# includes public headers only; those include nothing of the source tree but
# each other, blockbloom/ and Highway.
if grep -rqE '#include *["<](engine/src/|garden/src/|verify/src/|kernels/|hwy/|xxhash)' --exclude=typed.h --exclude-dir=kernels \
  "$prefix/include"; then fail "installed headers include private headers"; else
  ok "installed headers include only public headers (typed.h and blockbloom/kernels/ aside)"; fi
if grep -rhoE '#include *"[^"]*"' "$prefix/include/blockbloom/typed.h" "$prefix/include/blockbloom/kernels" |
  sed 's/#include *"\(.*\)"/\1/' | grep -vE '^(blockbloom/[a-z_/]+\.h|kernels/[a-z0-9_-]+\.h|hwy/[a-z_/]+\.h)$' |
  grep -q .; then fail "typed.h or blockbloom/kernels/ include something outside blockbloom/, kernels/ and hwy/"
else
  missing_k=""
  for inc in $(grep -rhoE '#include *"kernels/[^"]*"' "$prefix/include/blockbloom/typed.h" \
    "$prefix/include/blockbloom/kernels" | sed 's/.*"kernels\/\(.*\)"/\1/' | sort -u); do
    [[ -f "$prefix/include/blockbloom/kernels/$inc" ]] || missing_k+=" kernels/$inc"
  done
  if [[ -z "$missing_k" ]]; then ok "typed.h: every kernel header it reaches is installed"; else
    fail "typed.h reaches kernel headers not installed:$missing_k"; fi
fi

# ---- the CLI ----
if "$prefix/bin/blockbloom" --version >"$work/version.out" 2>&1 &&
  grep -qx "blockbloom $version" "$work/version.out" &&
  grep -qx "file format version 1" "$work/version.out" &&
  grep -q "^SIMD targets compiled: .*scalar" "$work/version.out" &&
  "$prefix/bin/blockbloom" version | cmp -s - "$work/version.out"; then
  ok "blockbloom --version: $(head -n 1 "$work/version.out"); $(sed -n 3p "$work/version.out")"
else
  fail "blockbloom --version"; cat "$work/version.out"
fi

# ---- 1. find_package ----
check find_package-configure cmake -S examples -B "$work/find_package" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror"
check find_package-build cmake --build "$work/find_package" -j "$jobs"
if [[ -x "$work/find_package/probe_service" ]]; then
  assert_example find_package "$work/find_package/probe_service"
  # Highway stays private: nothing of it in the consumer's compile flags.
  if grep -rqs 'HWY_\|/hwy' "$work/find_package/CMakeFiles/probe_service.dir/flags.make"; then
    fail "find_package: Highway leaks into the consumer's compile flags"
  else
    ok "find_package: no Highway in the consumer's compile flags"
  fi
fi

# The other two exported libraries link from the package too, each pulling in
# blockbloom::blockbloom (and Highway) behind it.
mkdir -p "$work/components"
cat >"$work/components/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(components LANGUAGES CXX)
find_package(blockbloom 0.1 CONFIG REQUIRED)
add_executable(components main.cc)
target_link_libraries(components PRIVATE blockbloom::garden blockbloom::verify)
CMAKE
cat >"$work/components/main.cc" <<'CXX'
#include <cstdint>
#include <cstdio>
#include <blockbloom/verify/exact_set.h>
#include <blockbloom/garden.h>
#include <blockbloom/stats.h>  // the old path, forwarding to blockbloom/verify/stats.h for one release
int main() {
  blockbloom::garden::CountingFilter counting(1 << 12, 4);
  blockbloom::ExactSet exact;
  for (uint64_t key = 0; key < 1000; ++key) {
    counting.Insert(key);
    exact.Insert(key);
  }
  uint64_t found = 0;
  for (uint64_t key = 0; key < 1000; ++key) found += counting.Count(key) > 0 && exact.Contains(key);
  std::printf("garden and verify: %llu of 1000\n", static_cast<unsigned long long>(found));
  return found == 1000 ? 0 : 1;
}
CXX
check components-configure cmake -S "$work/components" -B "$work/components/build" -DCMAKE_PREFIX_PATH="$prefix"
check components-build cmake --build "$work/components/build" -j "$jobs"
if [[ "$("$work/components/build/components" 2>&1)" == "garden and verify: 1000 of 1000" ]]; then
  ok "find_package: blockbloom::garden and blockbloom::verify link and run"
else
  fail "find_package: blockbloom::garden / blockbloom::verify: $("$work/components/build/components" 2>&1)"
fi

# blockbloom::typed from the package: typed.h's answers and bits equal Filter's,
# built with the default flags (on x86-64 the handles then call the kernels)
# and, where the CPU has AVX2, for x86-64-v3 (the probes inlined).
mkdir -p "$work/typed"
cat >"$work/typed/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(typed LANGUAGES CXX)
find_package(blockbloom 0.1 CONFIG REQUIRED)
add_executable(typed main.cc)
target_link_libraries(typed PRIVATE blockbloom::typed)
CMAKE
cat >"$work/typed/main.cc" <<'CXX'
#include <cstdint>
#include <cstdio>
#include <blockbloom/filter.h>
#include <blockbloom/typed.h>
using blockbloom::HashKind;
using blockbloom::Layout;
int main() {
  auto want = blockbloom::Filter::WithBits(Layout::kSectorized512, 40000, 8, HashKind::kMulx);
  auto got = blockbloom::Filter::WithBits(Layout::kSectorized512, 40000, 8, HashKind::kMulx);
  blockbloom::TypedInserter<Layout::kSectorized512, 8, HashKind::kMulx> ins(got);
  for (uint64_t key = 0; key < 10000; ++key) {
    want.Insert(key * 0x9E3779B97F4A7C15ULL);
    ins.Insert(key * 0x9E3779B97F4A7C15ULL);
  }
  const blockbloom::TypedView<Layout::kSectorized512, 8, HashKind::kMulx> view(got);
  uint64_t same = 0, present = 0;
  for (uint64_t key = 0; key < 20000; ++key) {
    const uint64_t x = key * 0x9E3779B97F4A7C15ULL;
    same += view.MayContain(x) == want.MayContain(x);
    present += key < 10000 && view.MayContain(x);
  }
  std::printf("typed: %llu of 20000 answers equal, %llu of 10000 present, bits %s\n",
              static_cast<unsigned long long>(same), static_cast<unsigned long long>(present),
              got == want ? "equal" : "differ");
  std::printf("inline simd: %d\n", blockbloom::kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd ? 1 : 0);
  return same == 20000 && present == 10000 && got == want ? 0 : 1;
}
CXX
typed_flags=("")
if [[ "$(uname -m)" == x86_64 ]] && grep -qw avx2 /proc/cpuinfo && grep -qw bmi2 /proc/cpuinfo && grep -qw fma /proc/cpuinfo; then
  typed_flags+=("-march=x86-64-v3")
fi
for flags in "${typed_flags[@]}"; do
  tdir="$work/typed/build${flags:+-v3}"
  check "typed-configure${flags:+ ($flags)}" cmake -S "$work/typed" -B "$tdir" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS="-Wall -Wextra -Werror $flags"
  check "typed-build${flags:+ ($flags)}" cmake --build "$tdir" -j "$jobs"
  tout=$("$tdir/typed" 2>&1)
  if [[ "$(head -n 1 <<<"$tout")" == "typed: 20000 of 20000 answers equal, 10000 of 10000 present, bits equal" &&
    (-z "$flags" || "$(tail -n 1 <<<"$tout")" == "inline simd: 1") ]]; then
    ok "find_package: blockbloom::typed builds and matches Filter${flags:+ ($flags, probes inlined)}"
  else
    fail "find_package: blockbloom::typed${flags:+ ($flags)}: $tout"
  fi
done

# ---- 2. pkg-config ----
mkdir -p "$work/pkg-config"
export PKG_CONFIG_PATH=$libdir/pkgconfig
if [[ "$(pkg-config --modversion blockbloom 2>&1)" == "$version" ]]; then ok "pkg-config: version $version"; else
  fail "pkg-config --modversion blockbloom: $(pkg-config --modversion blockbloom 2>&1)"; fi
check pkg-config-build make -C "$work/pkg-config" -f "$src/examples/Makefile" CXXFLAGS="-O2 -Wall -Wextra -Werror"
[[ -x "$work/pkg-config/probe_service" ]] && assert_example pkg-config "$work/pkg-config/probe_service"
unset PKG_CONFIG_PATH

# ---- 3. add_subdirectory from a parent with no C++20 and no build type ----
check add_subdirectory-configure cmake -S examples/subdirectory -B "$work/add_subdirectory" \
  -DCMAKE_CXX_COMPILER=g++
if [[ -f "$work/add_subdirectory/CMakeCache.txt" ]]; then
  bt=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$work/add_subdirectory/CMakeCache.txt")
  if [[ -z "$bt" ]]; then ok "add_subdirectory: the parent's (empty) build type left alone"; else
    fail "add_subdirectory: the parent's build type was set to '$bt'"; fi
  if grep -q '^BLOCKBLOOM_BUILD_TESTS:BOOL=OFF' "$work/add_subdirectory/CMakeCache.txt"; then
    ok "add_subdirectory: tests off when not top level"; else fail "add_subdirectory: tests on when not top level"; fi
fi
check add_subdirectory-build cmake --build "$work/add_subdirectory" -j "$jobs" --target probe_service
[[ -x "$work/add_subdirectory/probe_service" ]] && assert_example add_subdirectory "$work/add_subdirectory/probe_service"

finish
