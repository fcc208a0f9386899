# Cross-compiling blockbloom for 64-bit ARM Linux on a Debian (multiarch) host.
#
#   tools/install-deps.sh arm     # g++-aarch64-linux-gnu, qemu-user, libhwy-dev:arm64, ...
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

# qemu-user loads the arm64 dynamic loader from the cross sysroot (-L); paths it
# does not find there (/usr/lib/aarch64-linux-gnu/libhwy.so.1) fall back to the host.
set(BLOCKBLOOM_QEMU_CPU max CACHE STRING "qemu-aarch64 -cpu for running cross-built tests")
find_program(BLOCKBLOOM_QEMU qemu-aarch64 REQUIRED)
set(CMAKE_CROSSCOMPILING_EMULATOR
    ${BLOCKBLOOM_QEMU} -L /usr/${BLOCKBLOOM_CROSS_TRIPLE} -cpu ${BLOCKBLOOM_QEMU_CPU})
