// SPDX-License-Identifier: Apache-2.0
// A user's file that includes blockbloom/typed.h (through tests/typed_cases.h,
// which instantiates every layout, hash kind and the ends of each k range),
// compiled by tools/ci/compile-matrix.sh under every -march a user may pass:
// compile only, so the CPU at hand need not have the instruction set. With
// -DBLOCKBLOOM_USER_INCLUDES_HWY_FIRST it includes Highway itself first, as a
// program that uses Highway for its own code does.
#ifdef BLOCKBLOOM_USER_INCLUDES_HWY_FIRST
#include <hwy/highway.h>
#endif

#include "tests/typed_cases.h"

bool RunConsumer(blockbloom::Filter& f, const uint64_t* keys, size_t n, const uint64_t* probes, size_t np,
                 uint8_t* out, uint8_t* out_hash) {
  return RunTypedCase(f, keys, n, probes, np, out, out_hash);
}
