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
    uint8_t* block = f.bits + BlockIndex(hash, f.nblocks) * 64;
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

// The k probes are computed together in u32 lanes (up to 16). Query: each lane
// fetches its word from the line with register permutes (one 16-lane permute
// on AVX-512; on narrower vectors one permute per vector-sized part of the
// line, merged by the word's part; a gather on 128-bit vectors). Insert is k
// scalar ORs into the line: there is no scatter below AVX-512, and building the
// whole-line mask in vectors costs more than k ORs into one L1-resident line.
// mul: kGoldenPow; active[16 - k + i] is all ones iff i < k, so lane i of a
// load from active + 16 - k enables probe i: no per-filter table to build.
struct alignas(64) Blocked512Tables {
  uint32_t mul[16];
  uint32_t active[32];
};
constexpr Blocked512Tables MakeBlocked512Tables() {
  Blocked512Tables t{};
  for (uint32_t i = 0; i < 16; ++i) t.mul[i] = kGoldenPow[i];
  for (uint32_t i = 0; i < 32; ++i) t.active[i] = i < 16 ? ~0u : 0u;
  return t;
}
alignas(64) inline constexpr Blocked512Tables kBlocked512Tables = MakeBlocked512Tables();

class Blocked512Probe : public BlockProbe<Blocked512Probe> {
 public:
  explicit Blocked512Probe(const FilterRef& f)
      : block0_(reinterpret_cast<uint32_t*>(f.bits)), nblocks_(f.nblocks), k_(f.k) {}

  const void* Block(uint64_t h) const { return block0_ + BlockIndex(h, nblocks_) * 16; }

  HWY_INLINE bool Query(uint64_t h) const {
    const uint32_t* HWY_RESTRICT block = block0_ + BlockIndex(h, nblocks_) * 16;
    const D d;
    const DI di;
    const size_t N = hn::Lanes(d);
    const auto lo = hn::Set(d, static_cast<uint32_t>(h));
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < k_; v += N) {
      const auto bit = hn::ShiftRight<23>(hn::Mul(lo, hn::Load(d, kBlocked512Tables.mul + v)));
      const auto word_idx = hn::BitCast(di, hn::ShiftRight<5>(bit));
      const auto mask =
          hn::And(hn::LoadU(d, kBlocked512Tables.active + 16 - k_ + v), hn::Shl(hn::Set(d, 1u), hn::And(bit, hn::Set(d, 31u))));
      // words[lane] = block[word_idx[lane]].
      hn::Vec<D> words;
      if (N >= 8) {
        // One permute per vector-sized part of the line, merged by part.
        const auto in_part = hn::And(word_idx, hn::Set(di, static_cast<int32_t>(N - 1)));
        words = hn::TableLookupLanes(hn::Load(d, block), hn::IndicesFromVec(d, in_part));
        for (size_t p = N; p < 16; p += N) {
          const auto part = hn::TableLookupLanes(hn::Load(d, block + p), hn::IndicesFromVec(d, in_part));
          words = hn::IfThenElse(
              hn::RebindMask(d, hn::Gt(word_idx, hn::Set(di, static_cast<int32_t>(p - 1)))), part, words);
        }
      } else {
        // 128-bit vectors: four parts would cost more than four loads.
        words = hn::GatherIndex(d, block, word_idx);
      }
      miss = hn::Or(miss, hn::AndNot(words, mask));
    }
    return hn::AllTrue(d, hn::Eq(miss, hn::Zero(d)));
  }

  HWY_INLINE void Insert(uint64_t h) const {
    uint32_t* HWY_RESTRICT block = block0_ + BlockIndex(h, nblocks_) * 16;
    const uint32_t lo = static_cast<uint32_t>(h);
    ForEachProbe(k_, [&](int i) {
      const uint32_t bit = (lo * kGoldenPow[i]) >> 23;
      block[bit >> 5] |= uint32_t{1} << (bit & 31);
    });
  }

 private:
  using D = hn::CappedTag<uint32_t, 16>;
  using DI = hn::RebindToSigned<D>;
  uint32_t* block0_;
  uint64_t nblocks_;
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
