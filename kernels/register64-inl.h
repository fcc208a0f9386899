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
  HWY_INLINE bool QueryAt(const uint8_t* line, uint64_t h) const {
    const uint64_t* HWY_RESTRICT word = reinterpret_cast<const uint64_t*>(line);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kK >= 3) {
      // k scalar multiplies per key saturate the one integer multiplier (k + 2
      // per key with the hash); one 8-lane vpmulld computes all k, and each
      // u64 lane tests its bit against the word: no OR-reduction needed.
      const hn::CappedTag<uint32_t, 8> d32;
      const hn::Half<decltype(d32)> dh;
      const hn::Rebind<uint64_t, decltype(dh)> d64;
      const auto idx = hn::ShiftRight<26>(hn::Mul(hn::Set(d32, static_cast<uint32_t>(h)), hn::LoadU(d32, kGoldenPow)));
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
  HWY_INLINE void InsertAt(uint8_t* line, uint64_t h) const {
    uint64_t* HWY_RESTRICT word = reinterpret_cast<uint64_t*>(line);
#if HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
    if constexpr (kK >= 3) {
      // As Query, then the 4 lanes ORed into one word (two halvings).
      const hn::CappedTag<uint32_t, 8> d32;
      const hn::Half<decltype(d32)> dh;
      const hn::Rebind<uint64_t, decltype(dh)> d64;
      const hn::Half<decltype(d64)> d64h;
      const auto idx = hn::ShiftRight<26>(hn::Mul(hn::Set(d32, static_cast<uint32_t>(h)), hn::LoadU(d32, kGoldenPow)));
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
