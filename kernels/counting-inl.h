// SPDX-License-Identifier: Apache-2.0
// Per-target kernels of the blocked counting filter (layout: kernels/counting.h;
// the bits are defined by kernels/counting_reference.cc).
//
// The line is 8 u64 words of 16 nibbles. A key becomes a "ones" mask M with
// bit 4c set for each of its counters c (so duplicates collapse), built in
// u64 lanes: probe i sets bit 4 (c_i % 16) in the lane c_i / 16. Then SWAR
// within each lane, all lanes at once:
//   full(x) = x & x>>1 & x>>2 & x>>3 & 0x1111...   bit 4c set iff counter c == 15
//   nz(x)   = (x | x>>1 | x>>2 | x>>3) & 0x1111... bit 4c set iff counter c != 0
//   insert: x += M & ~full(x)       (a counter below 15 gains 1: no carry leaves its nibble)
//           lost += popcount(M & full(x))
//   remove: if (M & ~nz(x)) == 0 in every lane, x -= M & ~full(x)
//           (a counter >= 1 loses 1: no borrow)
//   query:  every one of the key's k nibbles non-zero, read one by one (k reads
//           of one L1 line, branch-free: cheaper than building M)
//   count:  min of the key's nibbles, read the same way
#if defined(BLOCKBLOOM_KERNELS_COUNTING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_COUNTING_INL_H_
#undef BLOCKBLOOM_KERNELS_COUNTING_INL_H_
#else
#define BLOCKBLOOM_KERNELS_COUNTING_INL_H_
#endif

#include <cstdint>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/counting.h"
#include "kernels/common.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels::counting {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- Look-ahead ----------------------------------------------------------------
// Little's law: a DRAM miss of ~100 ns while a key costs ~3-5 ns of work (the
// mask build is k broadcasts per vector) needs 20-35 keys in flight; 64 leaves
// room for a loaded machine's longer misses and stays within the 24 L1 miss
// buffers plus the L2 prefetch queue of a Zen core.
inline constexpr size_t kPrefetchDistance = 64;
// Below this the filter stays in L2 (512 KiB per Zen 3 core): prefetch only adds work.
inline constexpr uint64_t kPrefetchMinBytes = 512 * 1024;

inline constexpr uint64_t kNibbleLow = 0x1111111111111111ULL;  // bit 0 of each nibble

class CountingProbe {
 public:
  using D = hn::CappedTag<uint64_t, 8>;  // up to the line's 8 words per vector

  explicit CountingProbe(const CountingRef& f) : lines_(f.lines), blocks_(f.blocks), k_(f.k) {}

  HWY_INLINE uint64_t* Line(uint64_t h) const {
    return reinterpret_cast<uint64_t*>(lines_ + BlockIndex(h, blocks_) * kLineBytes);
  }

  // The ones mask of the key's counters, one u64 per word of the line: k
  // scalar ORs into a line-sized stack buffer (cheaper than k broadcasts and
  // compares per vector, which made inserts twice as slow).
  HWY_INLINE void Mask(uint64_t h, uint64_t* HWY_RESTRICT m) const {
    const uint32_t lo = static_cast<uint32_t>(h);
    for (size_t w = 0; w < 8; ++w) m[w] = 0;
    for (uint32_t i = 0; i < k_; ++i) {
      const uint32_t c = (lo * kGoldenPow[i]) >> kProbeShift;
      m[c >> 4] |= uint64_t{1} << (4 * (c & 15));
    }
  }

  static HWY_INLINE hn::Vec<D> Full(hn::Vec<D> x) {
    const D d;
    const auto a = hn::And(x, hn::ShiftRight<1>(x));
    const auto b = hn::And(hn::ShiftRight<2>(x), hn::ShiftRight<3>(x));
    return hn::And(hn::And(a, b), hn::Set(d, kNibbleLow));
  }
  static HWY_INLINE hn::Vec<D> NonZero(hn::Vec<D> x) {
    const D d;
    const auto a = hn::Or(x, hn::ShiftRight<1>(x));
    const auto b = hn::Or(hn::ShiftRight<2>(x), hn::ShiftRight<3>(x));
    return hn::And(hn::Or(a, b), hn::Set(d, kNibbleLow));
  }

  HWY_INLINE uint64_t Insert(uint64_t h) const {
    const D d;
    const size_t N = hn::Lanes(d);
    uint64_t* HWY_RESTRICT line = Line(h);
    HWY_ALIGN uint64_t mask[8];
    HWY_ALIGN uint64_t lost[8];  // the key's counters found at 15 (one bit each)
    Mask(h, mask);
    auto any = hn::Zero(d);
    for (size_t v = 0; v < 8; v += N) {
      const auto x = hn::Load(d, line + v);
      const auto m = hn::Load(d, mask + v);
      const auto full = Full(x);
      const auto l = hn::And(m, full);
      any = hn::Or(any, l);
      hn::Store(l, d, lost + v);
      hn::Store(hn::Add(x, hn::AndNot(full, m)), d, line + v);
    }
    // Saturated counters are rare: count the lost increments only when some
    // are (a vector population count costs many ops below AVX-512).
    if (HWY_LIKELY(hn::AllTrue(d, hn::Eq(any, hn::Zero(d))))) return 0;
    uint64_t n = 0;
    for (size_t w = 0; w < 8; ++w) n += static_cast<uint64_t>(__builtin_popcountll(lost[w]));
    return n;
  }

  // Query reads the key's k nibbles from the line (no mask needed), branch-free
  // so that independent keys overlap their misses.
  HWY_INLINE bool Query(uint64_t h) const {
    const uint64_t* line = Line(h);
    const uint32_t lo = static_cast<uint32_t>(h);
    uint64_t all = 0xF;
    for (uint32_t i = 0; i < k_; ++i) {
      const uint32_t c = (lo * kGoldenPow[i]) >> kProbeShift;
      const uint64_t v = (line[c >> 4] >> (4 * (c & 15))) & 0xF;
      all &= static_cast<uint64_t>(v != 0) * 0xF;
    }
    return all != 0;
  }

  HWY_INLINE bool Remove(uint64_t h) const {
    const D d;
    const size_t N = hn::Lanes(d);
    uint64_t* HWY_RESTRICT line = Line(h);
    HWY_ALIGN uint64_t mask[8];
    Mask(h, mask);
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < 8; v += N) {
      miss = hn::Or(miss, hn::AndNot(NonZero(hn::Load(d, line + v)), hn::Load(d, mask + v)));
    }
    if (!hn::AllTrue(d, hn::Eq(miss, hn::Zero(d)))) return false;
    for (size_t v = 0; v < 8; v += N) {
      const auto x = hn::Load(d, line + v);
      hn::Store(hn::Sub(x, hn::AndNot(Full(x), hn::Load(d, mask + v))), d, line + v);
    }
    return true;
  }

  HWY_INLINE uint8_t Count(uint64_t h) const {
    const uint64_t* line = Line(h);
    const uint32_t lo = static_cast<uint32_t>(h);
    uint64_t mn = kMaxCount;
    for (uint32_t i = 0; i < k_; ++i) {
      const uint32_t c = (lo * kGoldenPow[i]) >> kProbeShift;
      const uint64_t v = (line[c >> 4] >> (4 * (c & 15))) & 0xF;
      mn = v < mn ? v : mn;
    }
    return static_cast<uint8_t>(mn);
  }

  HWY_INLINE const void* Block(uint64_t h) const { return Line(h); }

 private:
  uint8_t* lines_;
  uint64_t blocks_;
  uint32_t k_;
};

enum class Op { kInsert, kRemove, kQuery, kCount };

// The pipeline: probe key i while the line of key i + kPrefetchDistance is on
// its way. Keys run in order, so a batch equals the per-key calls.
template <Op kOp, bool kPrefetch>
HWY_INLINE uint64_t Run(const CountingProbe& p, const uint64_t* HWY_RESTRICT h, size_t n, uint8_t* out) {
  uint64_t acc = 0;
  if constexpr (kPrefetch) {
    for (size_t i = 0; i < n && i < kPrefetchDistance; ++i) hwy::Prefetch(p.Block(h[i]));
  }
  for (size_t i = 0; i < n; ++i) {
    if constexpr (kPrefetch) {
      if (i + kPrefetchDistance < n) {
        if constexpr (kOp == Op::kQuery || kOp == Op::kCount) {
          hwy::Prefetch(p.Block(h[i + kPrefetchDistance]));
        } else {
          __builtin_prefetch(p.Block(h[i + kPrefetchDistance]), 1, 3);
        }
      }
    }
    if constexpr (kOp == Op::kInsert) {
      acc += p.Insert(h[i]);
    } else if constexpr (kOp == Op::kRemove) {
      const bool r = p.Remove(h[i]);
      out[i] = static_cast<uint8_t>(r);
      acc += r;
    } else if constexpr (kOp == Op::kQuery) {
      const bool r = p.Query(h[i]);
      out[i] = static_cast<uint8_t>(r);
      acc += r;
    } else {
      out[i] = p.Count(h[i]);
    }
  }
  return acc;
}

template <Op kOp>
HWY_NOINLINE uint64_t Dispatch(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  const CountingProbe p(f);
  if (f.blocks * kLineBytes >= kPrefetchMinBytes) return Run<kOp, true>(p, h, n, out);
  return Run<kOp, false>(p, h, n, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels::counting
HWY_AFTER_NAMESPACE();

#endif  // include guard
