// SPDX-License-Identifier: Apache-2.0
// blocked512: k = 1..16 bits anywhere in a 512-bit (cache-line) block.
//   Facts:   its row in blockbloom::kLayoutTraits (engine/include/blockbloom/layout.h).
//   Bits:    block = BlockIndex(hash) (kernels/common.h); probe i (i < k) sets
//            bit b_i = (lo32 * kGoldenPow[i]) >> 23 of the block (0..511):
//            word b_i >> 5, bit b_i & 31 of the block's 16 little-endian u32 words.
//   Formula: BlockModel in engine/src/model.cc (k bits anywhere in 512, the
//            key's own probe collisions counted).
// The scalar reference below defines the bits; the per-target probe after it
// reproduces them byte for byte (tests/kernels_test.cc).

// ---- Scalar reference (plain C++) -------------------------------------------
#ifndef BLOCKBLOOM_KERNELS_BLOCKED512_REFERENCE_
#define BLOCKBLOOM_KERNELS_BLOCKED512_REFERENCE_
#include "kernels/common.h"

namespace blockbloom::kernels::reference {
struct Blocked512 {
  // Tests (query) or sets (insert) one key's bits; true if all were set before.
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash) {
    const uint32_t lo = static_cast<uint32_t>(hash);
    uint8_t* block = f.bits + BlockIndex(hash, f.num_blocks) * 64;
    bool all = true;
    for (uint32_t i = 0; i < f.k; ++i) {
      const uint32_t bit = (lo * kGoldenPow[i]) >> 23;  // 0..511
      uint8_t* word = block + (bit >> 5) * 4;
      const uint32_t mask = uint32_t{1} << (bit & 31);
      const uint32_t w = LoadWord<kA, uint32_t>(word);
      all &= (w & mask) != 0;
      OrWord<kA>(word, w, mask);
    }
    return all;
  }
};
}  // namespace blockbloom::kernels::reference
#endif  // BLOCKBLOOM_KERNELS_BLOCKED512_REFERENCE_

// ---- Per-target probe (Highway; compiled once per target) --------------------
#if defined(HWY_HIGHWAY_INCLUDED)
#if defined(BLOCKBLOOM_KERNELS_BLOCKED512_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_BLOCKED512_INL_H_
#undef BLOCKBLOOM_KERNELS_BLOCKED512_INL_H_
#else
#define BLOCKBLOOM_KERNELS_BLOCKED512_INL_H_
#endif

#include "kernels/probe-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// The k probes are computed together in u32 lanes (up to 16); each lane fetches
// its word from the line (LineWords, kernels/probe-inl.h). Insert is k scalar
// ORs into the line: there is no scatter below AVX-512, and building the
// whole-line mask in vectors costs more than k ORs into one L1-resident line.
class Blocked512Probe : public FilterBlockProbe<Blocked512Probe, 6> {
 public:
  explicit Blocked512Probe(const FilterRef& f) : FilterBlockProbe(f), k_(f.k) {}

  // H: uint64_t or AesHash (SetLo32, kernels/probe-inl.h).
  template <class H>
  HWY_INLINE bool QueryAt(const uint8_t* line, const H& h) const {
    const uint32_t* HWY_RESTRICT block = reinterpret_cast<const uint32_t*>(line);
    const D d;
    const DI di;
    const size_t N = hn::Lanes(d);
    const auto lo = SetLo32(d, h);
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < k_; v += N) {
      const auto bit = hn::ShiftRight<23>(hn::Mul(lo, hn::Load(d, kGoldenLanes.mul + v)));
      const auto word_idx = hn::BitCast(di, hn::ShiftRight<5>(bit));
      const auto mask =
          hn::And(hn::LoadU(d, kGoldenLanes.active + 16 - k_ + v), hn::Shl(hn::Set(d, 1u), hn::And(bit, hn::Set(d, 31u))));
      const auto words = LineWords(d, block, word_idx);
      miss = hn::Or(miss, hn::AndNot(words, mask));
    }
    return AllZero(d, miss);
  }

  HWY_INLINE void InsertAt(uint8_t* line, uint64_t h) const {
    uint32_t* HWY_RESTRICT block = reinterpret_cast<uint32_t*>(line);
    const uint32_t lo = static_cast<uint32_t>(h);
    ForEachProbe(k_, [&](int i) {
      const uint32_t bit = (lo * kGoldenPow[i]) >> 23;
      block[bit >> 5] |= uint32_t{1} << (bit & 31);
    });
  }

 private:
  using D = hn::CappedTag<uint32_t, 16>;
  using DI = hn::RebindToSigned<D>;
  uint32_t k_;
};

struct Blocked512 {
  template <class Fn>
  static HWY_INLINE auto Visit(const FilterRef&, Fn&& fn) {
    return fn(std::type_identity<Blocked512Probe>());
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
#endif  // HWY_HIGHWAY_INCLUDED
