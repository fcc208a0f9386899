// SPDX-License-Identifier: Apache-2.0
// The scalar reference: plain C++, one key at a time. It *defines* the bit
// layout of every filter (each layout's part in kernels/<layout>-inl.h); every
// SIMD target must write the same bytes and give the same answers
// (tests/kernels_test.cc holds them to it).
#ifndef BLOCKBLOOM_KERNELS_REFERENCE_H_
#define BLOCKBLOOM_KERNELS_REFERENCE_H_

#include <cstdint>

#include "kernels/kernels.h"

namespace blockbloom::kernels::reference {

// XXH3_64bits_withSeed(&key, 8, seed) for the key's little-endian bytes.
uint64_t HashU64(uint64_t key, uint64_t seed);

// f must satisfy the FilterRef contract (kernels.h); InsertHash* need num_blocks >= 1.
void InsertHash(const FilterRef& f, uint64_t hash);
bool QueryHash(const FilterRef& f, uint64_t hash);
// InsertHash with an atomic fetch_or on every word it touches, and QueryHash
// with relaxed atomic loads: together they are free of data races when
// several threads insert and query the same filter at once.
void InsertHashAtomic(const FilterRef& f, uint64_t hash);
bool QueryHashAtomic(const FilterRef& f, uint64_t hash);

// The reference's single-key probe of `layout` (k is read from the call), as
// the Ops::one_key of a target: what the empty filter uses (no target needed).
OneKeyOps OneKey(Layout layout, uint32_t k, HashKind hash);

// The reference as an Ops table (name "reference"), so benchmarks and tests can
// run it beside the compiled targets.
const Ops& ReferenceOps();

}  // namespace blockbloom::kernels::reference

#endif  // BLOCKBLOOM_KERNELS_REFERENCE_H_
