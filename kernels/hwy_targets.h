// SPDX-License-Identifier: Apache-2.0
// What the project asks of Highway's target selection, defined before any
// Highway header: kernels/highway.h includes it first, and the run-time
// dispatched files (kernels.cc, counting.cc) before hwy/foreach_target.h.
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

#endif  // BLOCKBLOOM_KERNELS_HWY_TARGETS_H_
