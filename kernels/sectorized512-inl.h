// SPDX-License-Identifier: Apache-2.0
// sectorized512: 16 x u32 words in k zones (k = 1, 2, 4, 8, 16), one bit in
// one word per zone (Lang et al.'s cache-sectorized blocking; why: the
// layout's row in blockbloom::kLayoutTraits, engine/include/blockbloom/layout.h).
// The sector mechanism here serves split256 too (8 words in 8 zones,
// kernels/split256-inl.h).
//   Bits:    block = BlockIndex(hash) (kernels/common.h); zone z (of `zones`,
//            each W / zones words) computes x_z = lo32 * kSalt[z]; bit x_z >> 27
//            is set in word z * (W / zones) + ((x_z >> (27 - log2(W / zones)))
//            & (W / zones - 1)) of the block's W little-endian u32 words.
//   Formula: BlockModel in engine/src/model.cc: per-block rate
//            (1 - (1 - zones / (32 W))^i)^zones at load i.
// The scalar reference below defines the bits; the per-target probe after it
// reproduces them byte for byte (tests/kernels_test.cc).

// ---- Scalar reference (plain C++) -------------------------------------------
#ifndef BLOCKBLOOM_KERNELS_SECTORIZED512_REFERENCE_
#define BLOCKBLOOM_KERNELS_SECTORIZED512_REFERENCE_
#include "kernels/common.h"

namespace blockbloom::kernels::reference {
// kWords u32 words per block in `zones` zones (a power of two dividing kWords).
template <uint32_t kWords>
struct Sector {
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash, uint32_t zones) {
    const uint32_t lo = static_cast<uint32_t>(hash);
    const uint32_t per_zone = kWords / zones;
    const uint32_t sel_bits = static_cast<uint32_t>(__builtin_ctz(per_zone));
    uint8_t* block = f.bits + BlockIndex(hash, f.num_blocks) * kWords * 4;
    bool all = true;
    for (uint32_t z = 0; z < zones; ++z) {
      const uint32_t x = lo * kSalt[z];
      const uint32_t sel = sel_bits == 0 ? 0 : (x >> (27 - sel_bits)) & (per_zone - 1);
      uint8_t* word = block + (z * per_zone + sel) * 4;
      const uint32_t mask = uint32_t{1} << (x >> 27);
      const uint32_t w = LoadWord<kA, uint32_t>(word);
      all &= (w & mask) != 0;
      OrWord<kA>(word, w, mask);
    }
    return all;
  }
};

struct Sectorized512 {
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash) {
    return Sector<16>::Probe<kA>(f, hash, f.k);
  }
};
}  // namespace blockbloom::kernels::reference
#endif  // BLOCKBLOOM_KERNELS_SECTORIZED512_REFERENCE_

// ---- Per-target probe (Highway; compiled once per target) --------------------
#if defined(HWY_HIGHWAY_INCLUDED)
#if defined(BLOCKBLOOM_KERNELS_SECTORIZED512_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_SECTORIZED512_INL_H_
#undef BLOCKBLOOM_KERNELS_SECTORIZED512_INL_H_
#else
#define BLOCKBLOOM_KERNELS_SECTORIZED512_INL_H_
#endif

#include <bit>

#include "kernels/probe-inl.h"

// x86 with 256-bit or wider vectors: the zone-pair path of SectorProbe (8
// u32 lanes for the multiply, 4 u64 lanes per shift). Other targets build the
// per-word masks.
#undef BLOCKBLOOM_SECTOR_PAIRS
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define BLOCKBLOOM_SECTOR_PAIRS 1
#else
#define BLOCKBLOOM_SECTOR_PAIRS 0
#endif
// AVX-512: the zone pairs of a line in one vector (SectorProbe::LineMask).
#undef BLOCKBLOOM_SECTOR_LINE
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
#define BLOCKBLOOM_SECTOR_LINE 1
#else
#define BLOCKBLOOM_SECTOR_LINE 0
#endif

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Lane w's salt kSalt[w / per_zone] and its word-in-zone w % per_zone:
// compile-time tables, loaded straight into the mask's vectors.
template <size_t kWords>
struct alignas(64) SectorLanes {
  uint32_t salt[kWords];
  uint32_t sel[kWords];
};
template <size_t kWords, uint32_t kPerZone>
constexpr SectorLanes<kWords> MakeSectorLanes() {
  SectorLanes<kWords> t{};
  for (uint32_t w = 0; w < kWords; ++w) {
    t.salt[w] = kSalt[w / kPerZone];
    t.sel[w] = w % kPerZone;
  }
  return t;
}
template <size_t kWords, uint32_t kPerZone>
alignas(64) inline constexpr SectorLanes<kWords> kSectorLanes = MakeSectorLanes<kWords, kPerZone>();

// kWords u32 words per block in kZones zones of kWords/kZones words. Lane w of
// the probe mask: zone z = w / per_zone computes x = lo32 * kSalt[z]; the lane
// gets bit x >> 27 if the word selector (x >> (27 - sel_bits)) & (per_zone - 1)
// equals w % per_zone, else nothing. One vector op sequence per key, no gather,
// every shift a compile-time constant (kZones is a template parameter).
//
// kFar: the form for filters beyond the caches (RunBatch takes it from
// FarMinBytes on, as split512's): on AVX-512 a 16-word line read as two
// 256-bit halves, not one 512-bit load (inserts write it back at once:
// LineOr, kernels/probe-inl.h). Measured A/B of the halves read and written
// (Zen 4 guest, avx3_dl, aes, medians of 3 alternating runs of 3 repetitions,
// 2026-11-28), the halves against the line at once, 100M keys: k = 8 (125
// MB) queries 0.64x their time (6.3 -> 4.0 ns/key), inserts 0.71x; k = 4 at 8 bits/key
// 0.63-0.66x; k = 8 at 16 bits/key 0.67-0.77x (k = 1, 2 and 16: byte tests
// only). Near filters keep the line at once: for split512 the halves cost
// 4-16% at 1M and 10M keys (kernels/split512-inl.h). On Zen 5 plain inserts
// take the halves from 512 KiB on (FarInsertMinBytes, kernels/kernels.cc).
// kOneCall: the single-key kernels' form (kernels/kernels.cc OneCallProbe),
// its constant splats read from memory (Splat, kernels/probe-inl.h).
template <size_t kWords, size_t kZones, bool kFar = false, bool kOneCall = false>
class SectorProbe
    : public FilterBlockProbe<SectorProbe<kWords, kZones, kFar, kOneCall>, std::countr_zero(kWords * 4)> {
  static constexpr uint32_t kPerZone = kWords / kZones;
  static constexpr int kSelBits = kPerZone == 1 ? 0 : kPerZone == 2 ? 1 : kPerZone == 4 ? 2 : kPerZone == 8 ? 3 : 4;
  static_assert((1u << kSelBits) == kPerZone, "zones must split the words evenly in powers of two");
  // Halves of a 512-bit line only: an 8-word block (split256) is one 256-bit
  // vector, and a "far" form of it in 128-bit halves doubled the time of its
  // atomic inserts beyond the caches (cb138b4).
  static_assert(!kFar || kWords == 16, "the far form splits 16-word lines only");

 public:
  // Concurrent inserts OR whole u64 words (kernels/pipeline-inl.h) where a
  // key has a bit in every u64 word of its block or more: split256 (4 ORs
  // instead of 8), sectorized512 at k = 16 (8 instead of 16) and k = 8 (8
  // either way, but none for a key already present).
  static constexpr bool kAtomicByWord64 = kZones >= kWords / 2;
  // sectorized512 (a whole line): a single key's insert prefetches its line
  // for writing (InsertAlone, kernels/probe-inl.h).
  static constexpr bool kPrefetchAlone = kWords == 16;
  // Nothing but two words to copy: the single-key path builds one per call.
  explicit SectorProbe(const FilterRef& f) : SectorProbe::FilterBlockProbe(f) {}
#if BLOCKBLOOM_SECTOR_LINE
  // A line of 16 words only: split256's 8 words are one 256-bit vector
  // already (its far form would be itself).
  using FarProbe = SectorProbe<kWords, kZones, kWords == 16>;
#endif

  // H: uint64_t or AesHash (SetLo32, kernels/probe-inl.h).
  template <class H>
  HWY_INLINE bool QueryAt(const uint8_t* line, const H& h) const {
    const uint32_t* HWY_RESTRICT block = reinterpret_cast<const uint32_t*>(line);
#if BLOCKBLOOM_SECTOR_PAIRS
    if constexpr (kPairs) {
      const uint64_t* HWY_RESTRICT words = reinterpret_cast<const uint64_t*>(block);
#if BLOCKBLOOM_SECTOR_LINE
      return LineHolds<kFar>(LineD(), words, LineMask(h));
#else
      const PairD d64;
      hn::Vec<PairD> lo_bits, hi_bits;
      PairMasks(h, lo_bits, hi_bits);
      return BothSetIn(d64, hn::Load(d64, words), lo_bits, hn::Load(d64, words + 4), hi_bits);
#endif
    }
#endif
    const D d;
    const size_t N = hn::Lanes(d);
    const auto lo = SetLo32(d, h);
    if (N >= kWords) return AllSetIn(d, hn::Load(d, block), Mask(d, lo, 0));  // one vector (split256 on AVX2)
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < kWords; v += N) {
      miss = hn::Or(miss, hn::AndNot(hn::Load(d, block + v), Mask(d, lo, v)));
    }
    return AllZero(d, miss);
  }

  template <class H>
  HWY_INLINE void InsertAt(uint8_t* line, const H& h) const {
    uint32_t* HWY_RESTRICT block = reinterpret_cast<uint32_t*>(line);
#if BLOCKBLOOM_SECTOR_PAIRS
    if constexpr (kPairs) {
      uint64_t* HWY_RESTRICT words = reinterpret_cast<uint64_t*>(block);
#if BLOCKBLOOM_SECTOR_LINE
      LineOr<kFar>(LineD(), words, LineMask(h));
#else
      const PairD d64;
      hn::Vec<PairD> lo_bits, hi_bits;
      PairMasks(h, lo_bits, hi_bits);
      hn::Store(hn::Or(hn::Load(d64, words), lo_bits), d64, words);
      hn::Store(hn::Or(hn::Load(d64, words + 4), hi_bits), d64, words + 4);
#endif
      return;
    }
#endif
    const D d;
    const size_t N = hn::Lanes(d);
    const auto lo = SetLo32(d, h);
    for (size_t v = 0; v < kWords; v += N) {
      hn::Store(hn::Or(hn::Load(d, block + v), Mask(d, lo, v)), d, block + v);
    }
  }

 private:
  // The far form's halves: 8 lanes a vector, two vectors a line.
  using D = hn::CappedTag<uint32_t, kFar ? kWords / 2 : kWords>;

#if BLOCKBLOOM_SECTOR_PAIRS
  // Two words per zone (sectorized512 at k = 8): zone z is the block's
  // little-endian u64 z, and the zone's one bit, bit x >> 27 of word
  // 2z + ((x >> 26) & 1), is bit ((x >> 26) & 1) * 32 + (x >> 27) of that u64.
  // So one 8-lane multiply (one per zone, not per word), two shifts, and one
  // 64-bit variable shift per u64: half the multiplies and none of the
  // compare-and-select of the per-word masks below (measured: 1M keys, batch
  // and per key, bench/pair_bench.cc; see the commit).
  static constexpr bool kPairs = kWords == 16 && kPerZone == 2;
  using PairD32 = hn::CappedTag<uint32_t, 8>;
  // Lane j: the bit, within its u64, of the zone whose salt is kSalts[j].
  template <const uint32_t* kSalts, class H>
  static HWY_INLINE hn::Vec<PairD32> PairBits(const H& h) {
    const PairD32 d32;
    const auto x = hn::Mul(SetLo32(d32, h), hn::LoadU(d32, kSalts));
    return hn::Or(hn::ShiftRight<27>(x), hn::And(hn::ShiftRight<21>(x), Splat<kOneCall, 32u>(d32)));
  }
#if BLOCKBLOOM_SECTOR_LINE
  // AVX-512: the 8 zones' bits in one 512-bit vector of u64 lanes, the whole
  // line tested or set at once. The products in u64 lanes (VPMULUDQ: x in
  // each lane's low half, kSalt64), PairBits' bit index from two shifts and
  // one ternary OR-AND there, and 1 rotated left by it (VPROLVQ takes the
  // count mod 64, so the lanes' high halves do not matter): no widening of
  // 32-bit lanes. (The all-lanes mask: as split512's Mask8.)
  using LineD = hn::Rebind<uint64_t, PairD32>;
  static HWY_INLINE hn::Vec<LineD> LineMask(uint64_t h) {
    const LineD d64;
    const hn::Repartition<uint32_t, LineD> d32;
    const auto products = hn::MulEven(hn::BitCast(d32, hn::Set(d64, h)), hn::BitCast(d32, hn::Load(d64, kSalt64)));
    const auto x = hn::BitCast(d32, products);
    const auto bit = hn::OrAnd(hn::ShiftRight<27>(x), hn::ShiftRight<21>(x), Splat<kOneCall, 32u>(d32));
    const auto one = Splat<kOneCall, uint64_t{1}>(d64);
    return hn::Vec<LineD>{_mm512_maskz_rolv_epi64(0xFF, one.raw, hn::BitCast(d64, bit).raw)};
  }
#else
  // Four u64 lanes: the block's zones 0-3 (lo) or 4-7 (hi). The salts are
  // read interleaved (zones 0, 4, 1, 5, 2, 6, 3, 7), so u64 lane j of the
  // eight 32-bit results holds zone j in its low half and zone j + 4 in its
  // high half: an AND and a shift split them, where widening each half of
  // the vector took three cross-lane shuffles (measured: the CHANGELOG).
  using PairD = hn::Repartition<uint64_t, PairD32>;
  template <class H>
  static HWY_INLINE void PairMasks(const H& h, hn::Vec<PairD>& lo_bits, hn::Vec<PairD>& hi_bits) {
    const PairD d64;
    const auto pairs = hn::BitCast(d64, PairBits<kInterleavedSalt>(h));
    const auto one = Splat<kOneCall, uint64_t{1}>(d64);
    lo_bits = hn::Shl(one, hn::And(pairs, Splat<kOneCall, uint64_t{0xFFFFFFFF}>(d64)));
    hi_bits = hn::Shl(one, hn::ShiftRight<32>(pairs));
  }
#endif
#endif

  HWY_INLINE hn::Vec<D> Mask(D d, hn::Vec<D> lo, size_t v) const {
    const auto x = hn::Mul(lo, hn::Load(d, kLanes.salt + v));
    const auto bit = hn::Shl(Splat<kOneCall, 1u>(d), hn::ShiftRight<27>(x));
    if constexpr (kSelBits == 0) {
      return bit;  // every word is its own zone (split256, sectorized512 with k = 16)
    } else {
      const auto sel = hn::And(hn::ShiftRight<27 - kSelBits>(x), Splat<kOneCall, kPerZone - 1>(d));
      return hn::IfThenElseZero(hn::Eq(sel, hn::Load(d, kLanes.sel + v)), bit);
    }
  }

  static constexpr const SectorLanes<kWords>& kLanes = kSectorLanes<kWords, kPerZone>;
};

// k is the number of zones: one probe type per k, chosen once per batch.
struct Sectorized512 {
  template <class Fn>
  static HWY_INLINE auto Visit(const FilterRef& f, Fn&& fn) {
    switch (f.k) {
      case 1: return fn(std::type_identity<SectorProbe<16, 1>>());
      case 2: return fn(std::type_identity<SectorProbe<16, 2>>());
      case 4: return fn(std::type_identity<SectorProbe<16, 4>>());
      case 8: return fn(std::type_identity<SectorProbe<16, 8>>());
      default: return fn(std::type_identity<SectorProbe<16, 16>>());
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
#endif  // HWY_HIGHWAY_INCLUDED
