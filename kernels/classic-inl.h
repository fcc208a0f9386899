// SPDX-License-Identifier: Apache-2.0
// classic: k = 1..32 probes anywhere in m bits (no blocks).
//   Facts:   its row in blockbloom::kLayoutTraits (engine/include/blockbloom/layout.h).
//   Bits:    Kirsch-Mitzenmacher double hashing (kernels/common.h): g_0 = hash,
//            g_{i+1} = g_i + ClassicStep(hash) (mod 2^64); probe i sets bit
//            ClassicIndex(g_i, m) = (g_i * m) >> 64, bit b at byte b >> 3, bit b & 7.
//   Formula: PredictFpr's classic branch in engine/src/model.cc (not
//            BlockModel: there are no blocks): ClassicDoubleHashingFpr, the
//            distribution of the distinct bits these probes set (derived in
//            engine/src/classic_model.cc), plus the equal-64-bit-hash term;
//            engine/include/blockbloom/model.h ("Classic") states it.
// The scalar reference below defines the bits; the per-target probe after it
// reproduces them byte for byte (tests/kernels_test.cc).

// ---- Scalar reference (plain C++) -------------------------------------------
#ifndef BLOCKBLOOM_KERNELS_CLASSIC_REFERENCE_
#define BLOCKBLOOM_KERNELS_CLASSIC_REFERENCE_
#include "kernels/common.h"

namespace blockbloom::kernels::reference {
struct Classic {
  template <Access kA>
  static bool Probe(const FilterRef& f, uint64_t hash) {
    const uint64_t step = ClassicStep(hash);
    uint64_t g = hash;
    bool all = true;
    for (uint32_t i = 0; i < f.k; ++i, g += step) {
      const uint64_t bit = ClassicIndex(g, f.num_blocks);
      uint8_t* byte = f.bits + (bit >> 3);
      const uint8_t mask = static_cast<uint8_t>(1u << (bit & 7));
      const uint8_t w = LoadWord<kA, uint8_t>(byte);
      all &= (w & mask) != 0;
      OrWord<kA, uint8_t>(byte, w, mask);
    }
    return all;
  }
};
}  // namespace blockbloom::kernels::reference
#endif  // BLOCKBLOOM_KERNELS_CLASSIC_REFERENCE_

// ---- Per-target probe (Highway; compiled once per target) --------------------
#if defined(HWY_HIGHWAY_INCLUDED)
#if defined(BLOCKBLOOM_KERNELS_CLASSIC_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_CLASSIC_INL_H_
#undef BLOCKBLOOM_KERNELS_CLASSIC_INL_H_
#else
#define BLOCKBLOOM_KERNELS_CLASSIC_INL_H_
#endif

#include "kernels/probe-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

// The classic filter touches k lines per key; the pipeline prefetches them all,
// 16 keys ahead (k = 7 at 10 bits/key: 112 lines in flight) rather than the
// blocked layouts' 128 keys (896 lines, more than L1 holds): 1-17% faster from
// 512 KiB to 128 MiB on the Zen 4 guest (avx3_dl; bench/results/
// prefetch_threshold_zen4.md). Batches of it prefetch from 6 MiB, on Zen 5
// from 5/16 of the L3 (PrefetchMinBytes, kernels/kernels.cc).
class ClassicProbe {
 public:
  static constexpr size_t kPrefetchKeys = 16;
  explicit ClassicProbe(const FilterRef& f) : bits_(f.bits), m_(f.num_blocks), k_(f.k) {}

  template <bool kWrite>
  HWY_INLINE void Prefetch(uint64_t h) const {
    const uint64_t step = ClassicStep(h);
    uint64_t g = h;
    for (uint32_t i = 0; i < k_; ++i, g += step) PrefetchLine<kWrite>(bits_ + (ClassicIndex(g, m_) >> 3));
  }
  HWY_INLINE bool Query(uint64_t h) const {
    const uint64_t step = ClassicStep(h);
    uint64_t g = h;
    for (uint32_t i = 0; i < k_; ++i, g += step) {
      const uint64_t bit = ClassicIndex(g, m_);
      if (!((bits_[bit >> 3] >> (bit & 7)) & 1)) return false;
    }
    return true;
  }
  HWY_INLINE void Insert(uint64_t h) const {
    const uint64_t step = ClassicStep(h);
    uint64_t g = h;
    for (uint32_t i = 0; i < k_; ++i, g += step) {
      const uint64_t bit = ClassicIndex(g, m_);
      bits_[bit >> 3] = static_cast<uint8_t>(bits_[bit >> 3] | (1u << (bit & 7)));
    }
  }

 private:
  uint8_t* bits_;
  uint64_t m_;
  uint32_t k_;
};

struct Classic {
  template <class Fn>
  static HWY_INLINE auto Visit(const FilterRef&, Fn&& fn) {
    return fn(std::type_identity<ClassicProbe>());
  }
};

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // toggle guard
#endif  // HWY_HIGHWAY_INCLUDED
