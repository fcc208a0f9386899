// SPDX-License-Identifier: Apache-2.0
// The garden: the Bloom filter variants of the project's source documents (the
// libbf article "A Garden Variety of Bloom Filters"; counting filters from the
// lecture slides on Bloom filters), as plain C++ beside the SIMD engine. Each header states its formula with a short
// derivation, and a function computes it for the tests to hold measurements
// against.
//
//   blockbloom/garden/multiset.h  CountingFilter (w-bit saturating counters, Remove),
//                      SpectralFilter (MS / MI / RM), CountMinSketch, BitwiseFilter
//   blockbloom/garden/aging.h     StableFilter (Deng & Rafiei), A2Filter (active-active buffering)
//   blockbloom/garden/scalable.h  ScalableFilter (Almeida et al.: a chain of blockbloom::Filter)
//   blockbloom/garden/blocked_counting.h  BlockedCountingFilter (4-bit counters of a key in one
//                      cache line; SIMD kernels in kernels/counting.h)
//   blockbloom/garden/format.h    garden files: SaveGarden / LoadGarden for every variant
//   blockbloom/garden/common.h    key hashing, probe cells, packed counters, a seeded PRNG
//
//   blockbloom::garden::CountingFilter cbf(/*cells=*/1 << 20, /*k=*/7);
//   cbf.Insert(42);  cbf.Insert(std::string_view("url"));
//   cbf.Remove(42);                     // only keys you inserted
//   blockbloom::garden::ScalableFilter sbf(/*initial_capacity=*/1000, /*fpr=*/0.001);
//   sbf.Insert(7);                      // grows by slices, overall rate < 0.001
//   blockbloom::garden::SaveGarden(cbf, "digest.bbg");   // atomic, checksummed
//
// Moved-from objects: after `auto b = std::move(a)`, `a` is empty() like a
// moved-from blockbloom::Filter: its queries answer false / 0, its writes
// (Insert, Remove, Add, MergeFrom) throw std::logic_error, SaveGarden and
// SerializeGarden refuse it with std::logic_error, and assigning a whole
// object to it makes it whole again.
#ifndef BLOCKBLOOM_GARDEN_H_
#define BLOCKBLOOM_GARDEN_H_

#include "blockbloom/garden/aging.h"     // IWYU pragma: export
#include "blockbloom/garden/blocked_counting.h"  // IWYU pragma: export
#include "blockbloom/garden/common.h"    // IWYU pragma: export
#include "blockbloom/garden/format.h"    // IWYU pragma: export
#include "blockbloom/garden/multiset.h"  // IWYU pragma: export
#include "blockbloom/garden/scalable.h"  // IWYU pragma: export

#endif  // BLOCKBLOOM_GARDEN_H_
