// SPDX-License-Identifier: Apache-2.0
// register64: k = 1..8 bits in one 64-bit word.
//   Facts:   its row in blockbloom::kLayoutTraits (engine/include/blockbloom/layout.h).
//   Bits:    word = BlockIndex(hash) (kernels/common.h); probe i (i < k) sets
//            bit (lo32 * kGoldenPow[i]) >> 26 (0..63) of that little-endian u64.
//   Formula: BlockModel in engine/src/model.cc (k bits anywhere in 64, the
//            key's own probe collisions counted).
// The scalar reference below defines the bits; the per-target probe after it
// reproduces them byte for byte (tests/kernels_test.cc).

// ---- Scalar reference (plain C++) -------------------------------------------
#ifndef BLOCKBLOOM_KERNELS_REGISTER64_REFERENCE_
#define BLOCKBLOOM_KERNELS_REGISTER64_REFERENCE_
#include "kernels/common.h"

namespace blockbloom::kernels::reference {
struct Register64 {
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash) {
    const uint32_t lo = static_cast<uint32_t>(hash);
    uint8_t* word = f.bits + BlockIndex(hash, f.num_blocks) * 8;
    uint64_t mask = 0;
    for (uint32_t i = 0; i < f.k; ++i) mask |= uint64_t{1} << ((lo * kGoldenPow[i]) >> 26);
    const uint64_t w = LoadWord<kA, uint64_t>(word);
    OrWord<kA>(word, w, mask);
    return (w & mask) == mask;
  }
};
}  // namespace blockbloom::kernels::reference
#endif  // BLOCKBLOOM_KERNELS_REGISTER64_REFERENCE_

// ---- Per-target probe (Highway; compiled once per target) --------------------
#if defined(HWY_HIGHWAY_INCLUDED)
#if defined(BLOCKBLOOM_KERNELS_REGISTER64_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_REGISTER64_INL_H_
#undef BLOCKBLOOM_KERNELS_REGISTER64_INL_H_
#else
#define BLOCKBLOOM_KERNELS_REGISTER64_INL_H_
#endif

#include "kernels/probe-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

// k is a template parameter (one probe type per k, chosen once per batch or
// once per filter for single keys): the k multiply-shift-ORs are straight-line
// code with no jump on k, so consecutive keys' probes overlap.
namespace hn = hwy::HWY_NAMESPACE;

// kActive64[8 - k + i] is all ones iff i < k: lanes i >= k of a load from
// kActive64 + 8 - k (and + 12 - k for lanes 4..7) are switched off.
alignas(64) inline constexpr uint64_t kActive64[16] = {~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull, ~0ull,
                                                         0,     0,     0,     0,     0,     0,     0,     0};

template <uint32_t kK>
class Register64Probe : public FilterBlockProbe<Register64Probe<kK>, 3> {
 public:
  // Concurrent inserts OR the word only when it lacks the key's bits (kernels/pipeline-inl.h).
  static constexpr bool kAtomicByWord64 = true;
  explicit Register64Probe(const FilterRef& f) : Register64Probe::FilterBlockProbe(f) {}

  static HWY_INLINE uint64_t Mask(uint64_t h) {
    const uint32_t lo = static_cast<uint32_t>(h);
    uint64_t mask = 0;
    for (uint32_t i = 0; i < kK; ++i) mask |= uint64_t{1} << ((lo * kGoldenPow[i]) >> 26);
    return mask;
  }
  // H: uint64_t or AesHash (SetLo32, kernels/probe-inl.h).
  template <class H>
  HWY_INLINE bool QueryAt(const uint8_t* line, const H& h) const {
    const uint64_t* HWY_RESTRICT word = reinterpret_cast<const uint64_t*>(line);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kK >= 3) {
      // k scalar multiplies per key saturate the one integer multiplier (k + 2
      // per key with the hash); one 8-lane vpmulld computes all k, and each
      // u64 lane tests its bit against the word: no OR-reduction needed.
      const hn::CappedTag<uint32_t, 8> d32;
      const hn::Half<decltype(d32)> dh;
      const hn::Rebind<uint64_t, decltype(dh)> d64;
      const auto idx = hn::ShiftRight<26>(hn::Mul(SetLo32(d32, h), hn::LoadU(d32, kGoldenPow)));
      const auto one = hn::Set(d64, 1);
      const auto lo_bits = hn::And(hn::Shl(one, hn::PromoteTo(d64, hn::LowerHalf(dh, idx))),
                                   hn::LoadU(d64, kActive64 + 8 - kK));
      const auto hi_bits = hn::And(hn::Shl(one, hn::PromoteTo(d64, hn::UpperHalf(dh, idx))),
                                   hn::LoadU(d64, kActive64 + 12 - kK));
      const auto w = hn::Set(d64, *word);
      return AllSetIn(d64, w, hn::Or(lo_bits, hi_bits));
    }
#endif
    const uint64_t mask = Mask(h);
    return (*word & mask) == mask;
  }
  template <class H>
  HWY_INLINE void InsertAt(uint8_t* line, const H& h) const {
    uint64_t* HWY_RESTRICT word = reinterpret_cast<uint64_t*>(line);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kK >= 3) {
      // As Query, then the 4 lanes ORed into one word (two halvings).
      const hn::CappedTag<uint32_t, 8> d32;
      const hn::Half<decltype(d32)> dh;
      const hn::Rebind<uint64_t, decltype(dh)> d64;
      const hn::Half<decltype(d64)> d64h;
      const auto idx = hn::ShiftRight<26>(hn::Mul(SetLo32(d32, h), hn::LoadU(d32, kGoldenPow)));
      const auto one = hn::Set(d64, 1);
      const auto bits = hn::Or(hn::And(hn::Shl(one, hn::PromoteTo(d64, hn::LowerHalf(dh, idx))),
                                       hn::LoadU(d64, kActive64 + 8 - kK)),
                               hn::And(hn::Shl(one, hn::PromoteTo(d64, hn::UpperHalf(dh, idx))),
                                       hn::LoadU(d64, kActive64 + 12 - kK)));
      const auto two = hn::Or(hn::LowerHalf(d64h, bits), hn::UpperHalf(d64h, bits));
      *word |= hn::GetLane(two) | hn::ExtractLane(two, 1);
      return;
    }
#endif
    *word |= Mask(h);
  }

#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
  // A batch step of kStep keys (kernels/pipeline-inl.h HasProbeStep): their
  // masks in u64 lanes, a key per lane, k multiplies of the lanes' low halves
  // (VPMULUDQ) each with a shift and a variable shift or rotate (3k/8 vector
  // operations a key on AVX-512, 4k/4 on AVX2, against ~12 for a single key's
  // mask, ~16 inserting: its lanes ORed into one word); then an OR per key in
  // general registers, or, querying on AVX-512, one gather and one test for
  // all 8. Measured A/B against the single key's probe (Zen 4 guest, k = 6,
  // aes, medians of 3-4 alternating runs of 5 repetitions, 2026-11-27), 1M
  // keys: avx3_dl inserts 0.74x their time, queries 0.78-0.79x (0.82x with a
  // load and a test per key instead of the gather); avx2 inserts 0.81x, queries
  // 1.01x, so AVX2 queries keep the single key's probe. 100M keys, avx3_dl
  // (noisier: split256's unchanged rows moved up to 8%): inserts 0.84x,
  // queries 0.82-0.86x, level with split256's rows.
  template <bool kInsert>
  HWY_INLINE void ProbeStep(const uint64_t* HWY_RESTRICT addr, const uint64_t* HWY_RESTRICT h,
                            uint8_t* HWY_RESTRICT out) const {
    constexpr size_t kKeys = 8;
#if HWY_TARGET == HWY_AVX2
    if constexpr (!kInsert) {
      for (size_t j = 0; j < kKeys; ++j)
        out[j] = static_cast<uint8_t>(QueryAt(AtAddress(addr[j]), h[j]));
      return;
    }
#endif
    const hn::CappedTag<uint64_t, kKeys> d;
    const hn::Repartition<uint32_t, decltype(d)> d32;
    const size_t N = hn::Lanes(d);
    HWY_ALIGN uint64_t mask[kKeys];
    for (size_t v = 0; v < kKeys; v += N) {
      const auto lo = hn::BitCast(d32, hn::LoadU(d, h + v));
      auto m = hn::Zero(d);
      for (uint32_t i = 0; i < kK; ++i) {
        const auto x = hn::ShiftRight<26>(hn::MulEven(lo, hn::Set(d32, kGoldenPow[i])));
        m = hn::Or(m, Bit(d, x));
      }
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
      if constexpr (!kInsert) {
        static_assert(kKeys == 8, "one vector of 8 lanes: the loop runs once");
        // The 8 words by one gather (the addresses are absolute: base 0), a
        // compare into a mask register and its 8 bits widened to 8 bytes of 0 or 1.
        const __m512i words =
            _mm512_mask_i64gather_epi64(_mm512_setzero_si512(), 0xFF, _mm512_loadu_si512(addr), nullptr, 1);
        const __mmask8 all = _mm512_cmpeq_epi64_mask(_mm512_and_si512(words, m.raw), m.raw);
        _mm_storel_epi64(reinterpret_cast<__m128i*>(out), _mm_maskz_mov_epi8(all, _mm_set1_epi8(1)));
        return;
      }
#endif
      hn::Store(m, d, mask + v);
    }
    // Queries have returned above (AVX2 by the single key's probe, AVX-512
    // by the gather): only inserts get here.
    if constexpr (kInsert) {
      for (size_t j = 0; j < kKeys; ++j) *reinterpret_cast<uint64_t*>(AtAddress(addr[j])) |= mask[j];
    }
  }

 private:
  // 1 << (x & 63) in each u64 lane, x holding a product's bits 26.. (x's bits
  // 0..5 are the product's 26..31, its low half's top 6 bits). AVX-512
  // rotates by the count mod 64 (VPROLVQ): no AND.
  template <class D>
  static HWY_INLINE hn::Vec<D> Bit(D d, hn::Vec<D> x) {
#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (sizeof(x.raw) == 64) {
      return hn::Vec<D>{_mm512_maskz_rolv_epi64(0xFF, hn::Set(d, 1).raw, x.raw)};
    }
#endif
    return hn::Shl(hn::Set(d, 1), hn::And(x, hn::Set(d, 63)));
  }
#endif
};

struct Register64 {
  template <class Fn>
  static HWY_INLINE auto Visit(const FilterRef& f, Fn&& fn) {
    switch (f.k) {
      case 1: return fn(std::type_identity<Register64Probe<1>>());
      case 2: return fn(std::type_identity<Register64Probe<2>>());
      case 3: return fn(std::type_identity<Register64Probe<3>>());
      case 4: return fn(std::type_identity<Register64Probe<4>>());
      case 5: return fn(std::type_identity<Register64Probe<5>>());
      case 6: return fn(std::type_identity<Register64Probe<6>>());
      case 7: return fn(std::type_identity<Register64Probe<7>>());
      default: return fn(std::type_identity<Register64Probe<8>>());
    }
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
#endif  // HWY_HIGHWAY_INCLUDED
