// SPDX-License-Identifier: Apache-2.0
// split512: 8 x u64 words per 512-bit block, one bit per word, k = 8, the bit
// indexes read from bit-fields of the hash (no per-word multiply).
//   Facts:   its row in blockbloom::kLayoutTraits (engine/include/blockbloom/layout.h).
//   Bits:    block = BlockIndex(hash) (kernels/common.h); F = Split512Fields(hash)
//            (kernels/common.h: MulxFold(hash, kSplit512Multiplier) with 6 bits
//            kept a byte); word j (the block's little-endian u64 j) gets bit
//            byte j of F.
//   Formula: BlockModel in engine/src/model.cc: one bit in each of 8 zones of
//            64 bits, (1 - (1 - 1/64)^i)^8 at load i (sectorized512's at k = 8).
// The scalar reference below defines the bits; the per-target probe after it
// reproduces them byte for byte (tests/kernels_test.cc).

// ---- Scalar reference (plain C++) -------------------------------------------
#ifndef BLOCKBLOOM_KERNELS_SPLIT512_REFERENCE_
#define BLOCKBLOOM_KERNELS_SPLIT512_REFERENCE_
#include "kernels/common.h"

namespace blockbloom::kernels::reference {
struct Split512 {
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash) {
    const uint64_t fields = Split512Fields(hash);
    uint8_t* block = f.bits + BlockIndex(hash, f.num_blocks) * 64;
    bool all = true;
    for (uint32_t j = 0; j < 8; ++j) {
      uint8_t* word = block + j * 8;
      const uint64_t mask = uint64_t{1} << ((fields >> (8 * j)) & 63);
      const uint64_t w = LoadWord<kA, uint64_t>(word);
      all &= (w & mask) != 0;
      OrWord<kA>(word, w, mask);
    }
    return all;
  }
};
}  // namespace blockbloom::kernels::reference
#endif  // BLOCKBLOOM_KERNELS_SPLIT512_REFERENCE_

// ---- Per-target probe (Highway; compiled once per target) --------------------
#if defined(HWY_HIGHWAY_INCLUDED)
#if defined(BLOCKBLOOM_KERNELS_SPLIT512_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_SPLIT512_INL_H_
#undef BLOCKBLOOM_KERNELS_SPLIT512_INL_H_
#else
#define BLOCKBLOOM_KERNELS_SPLIT512_INL_H_
#endif

#include "kernels/probe-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lane j of the generic mask shifts F right by 8j.
alignas(64) inline constexpr uint64_t kSplit512ByteShift[8] = {0, 8, 16, 24, 32, 40, 48, 56};

// The mask of word j is 1 << byte j of F. x86: the bytes of F widened to u64
// lanes (VPMOVZXBQ, 4 or 8 at once) and one variable shift a vector; F's
// bytes already hold 0..63, so nothing is masked in vectors. Elsewhere: F
// broadcast, shifted right per lane, masked, and 1 shifted left by it.
class Split512Probe : public FilterBlockProbe<Split512Probe, 6> {
 public:
  // One bit in every u64 word: concurrent inserts OR a word only when it
  // lacks the key's bit (kernels/pipeline-inl.h).
  static constexpr bool kAtomicByWord64 = true;
  explicit Split512Probe(const FilterRef& f) : Split512Probe::FilterBlockProbe(f) {}

  HWY_INLINE bool QueryAt(const uint8_t* line, uint64_t h) const {
    const uint64_t* HWY_RESTRICT words = reinterpret_cast<const uint64_t*>(line);
    const uint64_t fields = Split512Fields(h);
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    const D d;
    return AllZero(d, hn::AndNot(hn::Load(d, words), Line(fields)));
#elif HWY_TARGET == HWY_AVX2
    const D d;
    hn::Vec<D> lo, hi;
    Halves(fields, lo, hi);
    return AllZero(d, hn::Or(hn::AndNot(hn::Load(d, words), lo), hn::AndNot(hn::Load(d, words + 4), hi)));
#else
    const D d;
    const size_t N = hn::Lanes(d);
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < 8; v += N) miss = hn::Or(miss, hn::AndNot(hn::Load(d, words + v), Mask(d, fields, v)));
    return AllZero(d, miss);
#endif
  }

  HWY_INLINE void InsertAt(uint8_t* line, uint64_t h) const {
    uint64_t* HWY_RESTRICT words = reinterpret_cast<uint64_t*>(line);
    const uint64_t fields = Split512Fields(h);
    const D d;
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    hn::Store(hn::Or(hn::Load(d, words), Line(fields)), d, words);
#elif HWY_TARGET == HWY_AVX2
    hn::Vec<D> lo, hi;
    Halves(fields, lo, hi);
    hn::Store(hn::Or(hn::Load(d, words), lo), d, words);
    hn::Store(hn::Or(hn::Load(d, words + 4), hi), d, words + 4);
#else
    const size_t N = hn::Lanes(d);
    for (size_t v = 0; v < 8; v += N) hn::Store(hn::Or(hn::Load(d, words + v), Mask(d, fields, v)), d, words + v);
#endif
  }

 private:
  using D = hn::CappedTag<uint64_t, 8>;  // 8 lanes on AVX-512, 4 on AVX2, 2 on SSE4 and NEON, ...

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  static HWY_INLINE hn::Vec<D> Line(uint64_t fields) {
    const D d;
    const hn::Vec<D> idx{_mm512_cvtepu8_epi64(_mm_cvtsi64_si128(static_cast<int64_t>(fields)))};
    return hn::Shl(hn::Set(d, 1), idx);
  }
#elif HWY_TARGET == HWY_AVX2
  static HWY_INLINE void Halves(uint64_t fields, hn::Vec<D>& lo, hn::Vec<D>& hi) {
    const D d;
    const auto one = hn::Set(d, 1);
    const hn::Vec<D> lo_idx{_mm256_cvtepu8_epi64(_mm_cvtsi64_si128(static_cast<int64_t>(fields)))};
    const hn::Vec<D> hi_idx{_mm256_cvtepu8_epi64(_mm_cvtsi32_si128(static_cast<int>(fields >> 32)))};
    lo = hn::Shl(one, lo_idx);
    hi = hn::Shl(one, hi_idx);
  }
#else
  static HWY_INLINE hn::Vec<D> Mask(D d, uint64_t fields, size_t v) {
    const auto idx = hn::And(hn::Shr(hn::Set(d, fields), hn::Load(d, kSplit512ByteShift + v)), hn::Set(d, 63));
    return hn::Shl(hn::Set(d, 1), idx);
  }
#endif
};

struct Split512 {
  template <class Fn>
  static HWY_INLINE auto Visit(const FilterRef&, Fn&& fn) {
    return fn(std::type_identity<Split512Probe>());
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
#endif  // HWY_HIGHWAY_INCLUDED
