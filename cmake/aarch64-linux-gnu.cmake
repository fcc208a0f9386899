# SPDX-License-Identifier: Apache-2.0
# Cross-compiling blockbloom for 64-bit ARM Linux on a Debian (multiarch) host.
#
#   tools/scripts/install-deps.sh arm     # g++-aarch64-linux-gnu, qemu-user, libhwy-dev:arm64, ...
#   cmake -S . -B build/arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
#
# Debian installs the arm64 -dev packages next to the amd64 ones: headers in
# /usr/include (shared, same version), libraries and CMake package files in
# /usr/lib/aarch64-linux-gnu. So the search root stays "/" and the library
# architecture picks the arm64 copies; the cross compiler's own sysroot
# (/usr/aarch64-linux-gnu) holds glibc and the dynamic loader.
#
# Test binaries run under qemu-user (CMAKE_CROSSCOMPILING_EMULATOR), which is
# what gtest_discover_tests and ctest use. Override the CPU with
# -DBLOCKBLOOM_QEMU_CPU=cortex-a72 (NEON only); the default "max" has NEON,
# SVE and SVE2. tools/ci/arm-tests.sh runs every CPU it needs explicitly.

set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(BLOCKBLOOM_CROSS_TRIPLE aarch64-linux-gnu)

set(CMAKE_C_COMPILER ${BLOCKBLOOM_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${BLOCKBLOOM_CROSS_TRIPLE}-g++)
set(CMAKE_LIBRARY_ARCHITECTURE ${BLOCKBLOOM_CROSS_TRIPLE})

# Programs (cmake, python, ...) come from the host; libraries, headers and
# packages from the arm64 multiarch directories found through
# CMAKE_LIBRARY_ARCHITECTURE above, and the compiler's sysroot.
set(CMAKE_FIND_ROOT_PATH /usr/${BLOCKBLOOM_CROSS_TRIPLE})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)

# qemu-user runs the binaries on Debian's arm64 multiarch runtime (-L /: loader
# and libc both from libc6:arm64, a dependency of libhwy1:arm64). Not -L with
# the cross sysroot: its older loader would pair with libc6:arm64's libc.so.6
# and hang in pthread_create (see tools/ci/arm-tests.sh).
set(BLOCKBLOOM_QEMU_CPU max CACHE STRING "qemu-aarch64 -cpu for running cross-built tests")
# Without qemu the library still cross-builds; the tests do not (gtest_discover_tests
# runs each test binary after linking it).
find_program(BLOCKBLOOM_QEMU qemu-aarch64)
if(BLOCKBLOOM_QEMU)
  set(CMAKE_CROSSCOMPILING_EMULATOR
      ${BLOCKBLOOM_QEMU} -L / -cpu ${BLOCKBLOOM_QEMU_CPU})
endif()
