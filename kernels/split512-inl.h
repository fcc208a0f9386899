// SPDX-License-Identifier: Apache-2.0
// split512: 8 x u64 words per 512-bit block, one bit per word, k = 8:
// sectorized512 at k = 8 (one bit in each 64-bit zone, the same rate) with the
// bit of a zone read as one 6-bit number, not as a word (1 bit) and a bit of
// it (5 bits), so a probe builds its mask with fewer operations (layout.h).
//   Facts:   its row in blockbloom::kLayoutTraits (engine/include/blockbloom/layout.h).
//   Bits:    block = BlockIndex(hash) (kernels/common.h); word j (the block's
//            little-endian u64 j) gets bit (lo32 * kSalt[j]) >> 26, kSalt[0..7]
//            being Parquet's salts (kernels/common.h).
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
    const uint32_t lo = static_cast<uint32_t>(hash);
    uint8_t* block = f.bits + BlockIndex(hash, f.num_blocks) * 64;
    bool all = true;
    for (uint32_t j = 0; j < 8; ++j) {
      uint8_t* word = block + j * 8;
      const uint64_t mask = uint64_t{1} << ((lo * kSalt[j]) >> 26);
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

// The mask of word j is 1 << ((lo32 * kSalt[j]) >> 26): one multiply of 32-bit
// lanes for all 8 words, their top 6 bits widened to u64 lanes, and 1
// shifted left by them. AVX2 holds the 8 words in two vectors of 4: its
// salts are read interleaved (words 0, 4, 1, 5, 2, 6, 3, 7), so u64 lane j
// of the products' top bits holds word j's index in its low half and word
// j + 4's in its high half, and an AND and a shift split them (as
// sectorized512's zone pairs do) instead of cross-lane widening. AVX-512
// multiplies in u64 lanes and rotates (Mask8), with no widening at all.
//
// kFar: the form for filters beyond the caches (RunBatch takes it from
// FarMinBytes on): on AVX-512 the line read as two 256-bit halves, not one
// 512-bit load (inserts write it back at once since 2026-11-29; LineOr in
// kernels/probe-inl.h). Measured A/B of the halves read and written (Zen 4
// guest, avx3_dl, aes, medians of 2 alternating runs of 3 repetitions,
// 2026-11-27), the halves against the line at once: 100M keys (125 MB)
// 0.66-0.69x its time (6.3-6.5 -> 4.2-4.4 ns/key, split256's 4.3-4.6), but
// 10M keys (12.5 MB, in the L3) 1.04-1.16x and 1M 1.04-1.13x. Why a 512-bit
// access to a line coming from memory costs more than two 256-bit ones there
// was not measured (no PMU on that guest). On
// Zen 5 plain inserts take it from 512 KiB on (FarInsertMinBytes: there a
// 512-bit load and store of a line not in L1 stall; kernels/kernels.cc).
// kOneCall: the single-key kernels' form (kernels/kernels.cc OneCallProbe),
// its constant splats read from memory (Splat, kernels/probe-inl.h).
template <bool kFar, bool kOneCall = false>
class Split512ProbeT : public FilterBlockProbe<Split512ProbeT<kFar, kOneCall>, 6> {
 public:
  // One bit in every u64 word: concurrent inserts OR a word only when it
  // lacks the key's bit (kernels/pipeline-inl.h).
  static constexpr bool kAtomicByWord64 = true;
  // A single key's insert prefetches its line for writing (InsertAlone).
  static constexpr bool kPrefetchAlone = true;
  explicit Split512ProbeT(const FilterRef& f) : Split512ProbeT::FilterBlockProbe(f) {}
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  using FarProbe = Split512ProbeT<true>;
#endif

  // H: uint64_t or AesHash (SetLo32, kernels/probe-inl.h).
  template <class H>
  HWY_INLINE bool QueryAt(const uint8_t* line, const H& h) const {
    const uint64_t* HWY_RESTRICT words = reinterpret_cast<const uint64_t*>(line);
    const D d;
#if HWY_TARGET == HWY_AVX2
    hn::Vec<D> lo, hi;
    Halves(h, lo, hi);
    return BothSetIn(d, hn::Load(d, words), lo, hn::Load(d, words + 4), hi);
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    return LineHolds<kFar>(d, words, Mask8(h));
#else
    const size_t N = hn::Lanes(d);
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < 8; v += N) miss = hn::Or(miss, hn::AndNot(hn::Load(d, words + v), Mask(d, h, v)));
    return AllZero(d, miss);
#endif
  }

  template <class H>
  HWY_INLINE void InsertAt(uint8_t* line, const H& h) const {
    uint64_t* HWY_RESTRICT words = reinterpret_cast<uint64_t*>(line);
    const D d;
#if HWY_TARGET == HWY_AVX2
    hn::Vec<D> lo, hi;
    Halves(h, lo, hi);
    hn::Store(hn::Or(hn::Load(d, words), lo), d, words);
    hn::Store(hn::Or(hn::Load(d, words + 4), hi), d, words + 4);
#elif HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    LineOr<kFar>(d, words, Mask8(h));
#else
    const size_t N = hn::Lanes(d);
    for (size_t v = 0; v < 8; v += N) hn::Store(hn::Or(hn::Load(d, words + v), Mask(d, h, v)), d, words + v);
#endif
  }

 private:
  using D = hn::CappedTag<uint64_t, 8>;  // 8 lanes on AVX-512, 4 on AVX2, 2 on SSE4 and NEON, ...

#if HWY_TARGET == HWY_AVX2
  template <class H>
  static HWY_INLINE void Halves(const H& h, hn::Vec<D>& lo, hn::Vec<D>& hi) {
    const D d;
    const hn::Repartition<uint32_t, D> d32;
    const auto products = hn::Mul(SetLo32(d32, h), hn::LoadU(d32, kInterleavedSalt));
    const auto top = hn::ShiftRight<26>(products);
    const auto pairs = hn::BitCast(d, top);
    const auto one = Splat<kOneCall, uint64_t{1}>(d);
    lo = hn::Shl(one, hn::And(pairs, Splat<kOneCall, uint64_t{0xFFFFFFFF}>(d)));
    hi = hn::Shl(one, hn::ShiftRight<32>(pairs));
  }
#else
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // AVX-512, the 8 words at once in u64 lanes: VPMULUDQ multiplies lo32 by
  // each salt (the product's low 32 bits are Mask's 32-bit product), a shift
  // brings bits 26..31 down and VPROLVQ rotates 1 left by them (it takes the
  // count mod 64): no widening of 32-bit lanes, one instruction fewer. (The
  // all-lanes mask: g++ 12's unmasked _mm512_rolv_epi64 starts from
  // _mm512_undefined_epi32, a false -Wmaybe-uninitialized.)
  static HWY_INLINE hn::Vec<D> Mask8(uint64_t h) {
    const D d;
    const hn::Repartition<uint32_t, D> d32;
    const auto products = hn::MulEven(hn::BitCast(d32, hn::Set(d, h)), hn::BitCast(d32, hn::Load(d, kSalt64)));
    const auto one = Splat<kOneCall, uint64_t{1}>(d);
    return hn::Vec<D>{_mm512_maskz_rolv_epi64(0xFF, one.raw, hn::ShiftRight<26>(products).raw)};
  }
#endif
  // Words v .. v + Lanes(d) - 1.
  static HWY_INLINE hn::Vec<D> Mask(D d, uint64_t h, size_t v) {
    const hn::Rebind<uint32_t, D> d32;
    const auto top = hn::ShiftRight<26>(hn::Mul(hn::Set(d32, static_cast<uint32_t>(h)), hn::LoadU(d32, kSalt + v)));
    return hn::Shl(Splat<kOneCall, uint64_t{1}>(d), hn::PromoteTo(d, top));
  }
#endif
};

using Split512Probe = Split512ProbeT<false>;

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
