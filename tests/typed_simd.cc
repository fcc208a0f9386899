// SPDX-License-Identifier: Apache-2.0
// tests/typed_cases.h compiled for a SIMD static target: on x86-64 this file
// alone is built with -march=haswell (tests/CMakeLists.txt), so TypedView and
// TypedInserter run their inline AVX2 probes here; typed_test.cc calls in only
// after checking that the CPU has AVX2. On AArch64 it is built for
// armv8-a+crypto (Highway tags its NEON code "+crypto", kernels/static_probe.h).
#include "tests/typed_cases.h"

namespace blockbloom::typed_simd {

bool StaticTargetIsSimd() { return kernels::BLOCKBLOOM_STATIC_NAMESPACE::kStaticSimd; }
const char* StaticTargetName() { return kernels::BLOCKBLOOM_STATIC_NAMESPACE::StaticTargetName(); }

bool Run(Filter& f, const uint64_t* keys, size_t n, const uint64_t* probes, size_t np, uint8_t* out,
         uint8_t* out_hash) {
  return RunTypedCase(f, keys, n, probes, np, out, out_hash);
}

}  // namespace blockbloom::typed_simd
