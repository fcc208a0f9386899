// SPDX-License-Identifier: Apache-2.0
// What the project asks of Highway's target selection, defined before any
// Highway header: kernels/highway.h includes it first, and the run-time
// dispatched files (kernels.cc, kernels_insert.cc, counting.cc) before
// hwy/foreach_target.h.
//
// Why: Highway 1.0.3 makes AVX3_DL the static target of a file compiled for a
// CPU that has it (-march=sapphirerapids, or -march=native on such a Xeon),
// but counts AVX3_DL among the attainable targets only when HWY_WANT_AVX3_DL is
// defined; without it hwy/detect_targets.h stops with "#error Logic error: best
// baseline should be included in dynamic targets". Defining it is harmless
// under every other flag set: it only adds AVX3_DL to what a run-time
// dispatched file compiles. A file that already included Highway itself keeps
// the target set it got then (detect_targets.h is guarded); its include
// compiled, so that set is consistent. tools/ci/compile-matrix.sh checks this
// under every -march a user may pass.
#ifndef BLOCKBLOOM_KERNELS_HWY_TARGETS_H_
#define BLOCKBLOOM_KERNELS_HWY_TARGETS_H_

#ifndef HWY_WANT_AVX3_DL
#define HWY_WANT_AVX3_DL
#endif

// Highway 1.0.3 also counts AES and CLMUL among what its SSE4 and AVX2 targets
// require, and so makes SSSE3 the static target of a file compiled with
// -march=x86-64-v2, x86-64-v3 or haswell (g++ 12 sets neither __AES__ nor
// __PCLMUL__ for them): typed.h then inlined 128-bit SSSE3 code, with its
// 32-bit multiplies emulated, into a caller compiled for AVX2. No kernel uses
// AES or CLMUL, so the project tells Highway not to gate SSE4 and AVX2 on them
// (it then also leaves them out of those targets' attributes); the run-time
// dispatch is unchanged (libhwy's CPU detection still asks for them).
// tests/typed_simd.cc (-march=haswell) checks that its static target is AVX2.
#ifndef HWY_DISABLE_PCLMUL_AES
#define HWY_DISABLE_PCLMUL_AES
#endif

#endif  // BLOCKBLOOM_KERNELS_HWY_TARGETS_H_
