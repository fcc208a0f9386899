// SPDX-License-Identifier: Apache-2.0
// split256: Apache Parquet's split block Bloom filter (SBBF), bit-exact: 8 x u32
// words per 256-bit block, one bit per word, k = 8.
//   Facts:   its row in blockbloom::kLayoutTraits (engine/include/blockbloom/layout.h).
//   Bits:    the sector mechanism of kernels/sectorized512-inl.h with 8 words in
//            8 zones: block = BlockIndex(hash) (Parquet's ((hash >> 32) * blocks)
//            >> 32), word z gets bit (lo32 * kSalt[z]) >> 27, kSalt[0..7] being
//            Parquet's salts (kernels/common.h). Parquet hashes with XXH64, seed 0.
//   Formula: BlockModel in engine/src/model.cc: (1 - (1 - 1/32)^i)^8 at load i.

// ---- Scalar reference (plain C++) -------------------------------------------
#ifndef BLOCKBLOOM_KERNELS_SPLIT256_REFERENCE_
#define BLOCKBLOOM_KERNELS_SPLIT256_REFERENCE_
#include "kernels/sectorized512-inl.h"

namespace blockbloom::kernels::reference {
struct Split256 {
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash) {
    return Sector<8>::Probe<kA>(f, hash, 8);
  }
};
}  // namespace blockbloom::kernels::reference
#endif  // BLOCKBLOOM_KERNELS_SPLIT256_REFERENCE_

// ---- Per-target probe (Highway; compiled once per target) --------------------
#if defined(HWY_HIGHWAY_INCLUDED)
#if defined(BLOCKBLOOM_KERNELS_SPLIT256_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_SPLIT256_INL_H_
#undef BLOCKBLOOM_KERNELS_SPLIT256_INL_H_
#else
#define BLOCKBLOOM_KERNELS_SPLIT256_INL_H_
#endif

#include "kernels/sectorized512-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

struct Split256 {
  // Its key batches hashed with "xxh64" (Parquet's hash) run a pipeline with
  // the hash inlined, not called (kernels/pipeline-inl.h, CalledKeySource).
  static constexpr bool kInlineXxh64 = true;
  template <class Fn>
  static HWY_INLINE auto Visit(const FilterRef&, Fn&& fn) {
    return fn(std::type_identity<SectorProbe<8, 8>>());
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
#endif  // HWY_HIGHWAY_INCLUDED
