// SPDX-License-Identifier: Apache-2.0
// The one way the project includes Highway: every file of kernels/ (and, through
// kernels/static_probe.h, every user file that includes blockbloom/typed.h)
// includes this instead of "hwy/highway.h", so that kernels/hwy_targets.h
// (why: see there) comes before Highway's target detection.
//
// No include guard: Highway's foreach_target mechanism re-includes
// hwy/highway.h once per target, and so do the -inl.h files through this.
#include "kernels/hwy_targets.h"
#include "hwy/highway.h"  // IWYU pragma: export
