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
//   query:  every one of the key's k nibbles non-zero. The k counter indices
//           are computed together in u32 lanes; counter c is nibble c & 7 of
//           the line's little-endian u32 word c >> 3, fetched into its lane
//           with register permutes (LineWords, kernels/probe-inl.h). Measured
//           (AMD EPYC, AVX2, k = 6, precomputed hashes, medians of 31): 7.8-9.2
//           ns/key on a 4 KiB filter and 12.5-14.4 at 5.4 MB reading the k
//           nibbles one by one; 5.1-5.4 and 7.1-7.9 with the lanes.
//   count:  min of the key's nibbles, fetched the same way
#if defined(BLOCKBLOOM_KERNELS_COUNTING_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_COUNTING_INL_H_
#undef BLOCKBLOOM_KERNELS_COUNTING_INL_H_
#else
#define BLOCKBLOOM_KERNELS_COUNTING_INL_H_
#endif

#include <cstdint>

#include "kernels/highway.h"
#include "kernels/counting.h"
#include "kernels/common.h"
#include "kernels/probe-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels::counting {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- Look-ahead (the engine's pipeline, PrefetchAhead in kernels/probe-inl.h) ----
// Little's law: a DRAM miss of ~100 ns while a key costs ~3-5 ns of work (the
// mask build is k broadcasts per vector) needs 20-35 keys in flight; 64 leaves
// room for a loaded machine's longer misses and stays within the 24 L1 miss
// buffers plus the L2 prefetch queue of a Zen core.
inline constexpr size_t kPrefetchDistance = 64;
inline constexpr uint64_t kNibbleLow = 0x1111111111111111ULL;  // bit 0 of each nibble

class CountingProbe : public kernels::HWY_NAMESPACE::BlockProbe<CountingProbe> {
 public:
  using D = hn::CappedTag<uint64_t, 8>;  // up to the line's 8 words per vector

  explicit CountingProbe(const CountingRef& f) : lines_(f.lines), num_blocks_(f.num_blocks), k_(f.k) {}

  HWY_INLINE uint64_t* Line(uint64_t h) const {
    return reinterpret_cast<uint64_t*>(lines_ + BlockIndex(h, num_blocks_) * kLineBytes);
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
    if (HWY_LIKELY(kernels::HWY_NAMESPACE::AllZero(d, any))) return 0;
    uint64_t n = 0;
    for (size_t w = 0; w < 8; ++w) n += static_cast<uint64_t>(__builtin_popcountll(lost[w]));
    return n;
  }

  // Query: no probe of the key (an enabled lane) finds its counter at 0.
  HWY_INLINE bool Query(uint64_t h) const {
    const uint32_t* HWY_RESTRICT line = reinterpret_cast<const uint32_t*>(Line(h));
    const DL d;
    auto miss = hn::Zero(d);
    ForEachNibbleVector(d, h, line, [&](size_t v, hn::Vec<DL> nib) {
      miss = hn::Or(miss, hn::And(Enabled(d, v), hn::VecFromMask(d, hn::Eq(nib, hn::Zero(d)))));
    });
    return kernels::HWY_NAMESPACE::AllZero(d, miss);
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
    if (!kernels::HWY_NAMESPACE::AllZero(d, miss)) return false;
    for (size_t v = 0; v < 8; v += N) {
      const auto x = hn::Load(d, line + v);
      hn::Store(hn::Sub(x, hn::AndNot(Full(x), hn::Load(d, mask + v))), d, line + v);
    }
    return true;
  }

  // Count: the minimum over the enabled lanes (disabled lanes read as 15).
  HWY_INLINE uint8_t Count(uint64_t h) const {
    const uint32_t* HWY_RESTRICT line = reinterpret_cast<const uint32_t*>(Line(h));
    const DL d;
    const auto top = hn::Set(d, kMaxCount);
    auto mn = top;
    ForEachNibbleVector(d, h, line, [&](size_t v, hn::Vec<DL> nib) {
      mn = hn::Min(mn, hn::IfThenElse(hn::MaskFromVec(Enabled(d, v)), nib, top));
    });
    return static_cast<uint8_t>(hn::GetLane(hn::MinOfLanes(d, mn)));
  }

  // The line Prefetch (BlockProbe) fetches.
  HWY_INLINE const void* Block(uint64_t h) const { return Line(h); }

 private:
  using DL = hn::CappedTag<uint32_t, 16>;  // probe lanes: up to the 16 of kMaxK

  // Lanes [v, v + N) enabled iff probe v + lane < k.
  HWY_INLINE hn::Vec<DL> Enabled(DL d, size_t v) const {
    return hn::LoadU(d, kernels::HWY_NAMESPACE::kGoldenLanes.active + 16 - k_ + v);
  }

  // Calls f(v, nibbles) for each vector of probes v.. (as many as lanes): lane
  // i holds the counter of probe v + i, c = (lo32 * kGoldenPow[v + i]) >> 25,
  // i.e. nibble c & 7 of the line's little-endian u32 word c >> 3.
  template <class F>
  HWY_INLINE void ForEachNibbleVector(DL d, uint64_t h, const uint32_t* HWY_RESTRICT line, F&& f) const {
    const hn::RebindToSigned<DL> di;
    const size_t N = hn::Lanes(d);
    const auto lo = hn::Set(d, static_cast<uint32_t>(h));
    for (size_t v = 0; v < k_; v += N) {
      const auto c =
          hn::ShiftRight<kProbeShift>(hn::Mul(lo, hn::Load(d, kernels::HWY_NAMESPACE::kGoldenLanes.mul + v)));
      const auto words = kernels::HWY_NAMESPACE::LineWords(d, line, hn::BitCast(di, hn::ShiftRight<3>(c)));
      f(v, hn::And(hn::Shr(words, hn::ShiftLeft<2>(hn::And(c, hn::Set(d, 7u)))), hn::Set(d, 0xFu)));
    }
  }

  uint8_t* lines_;
  uint64_t num_blocks_;
  uint32_t k_;
};

enum class Op { kInsert, kRemove, kQuery, kCount };

// The engine's pipeline: probe key i while the line of key i + kPrefetchDistance
// is on its way. Keys run in order, so a batch equals the per-key calls.
template <Op kOp, bool kPrefetch>
HWY_INLINE uint64_t Run(const CountingProbe& p, const uint64_t* HWY_RESTRICT h, size_t n, uint8_t* out) {
  constexpr size_t kAhead = kPrefetch ? kPrefetchDistance : 0;
  constexpr bool kWrite = kOp == Op::kInsert || kOp == Op::kRemove;
  uint64_t acc = 0;
  kernels::HWY_NAMESPACE::PrimeAhead<kAhead, kWrite>(p, h, n);
  kernels::HWY_NAMESPACE::PrefetchAhead<kAhead, kWrite>(p, h, n, nullptr, 0, [&](size_t i, uint64_t hash) {
    if constexpr (kOp == Op::kInsert) {
      acc += p.Insert(hash);
    } else if constexpr (kOp == Op::kRemove) {
      const bool r = p.Remove(hash);
      out[i] = static_cast<uint8_t>(r);
      acc += r;
    } else if constexpr (kOp == Op::kQuery) {
      const bool r = p.Query(hash);
      out[i] = static_cast<uint8_t>(r);
      acc += r;
    } else {
      out[i] = p.Count(hash);
    }
  });
  return acc;
}

template <Op kOp>
HWY_NOINLINE uint64_t RunBatch(const CountingRef& f, const uint64_t* h, size_t n, uint8_t* out) {
  const CountingProbe p(f);
  if (ShouldPrefetch(f.num_blocks * kLineBytes, kPrefetchMinBytes)) return Run<kOp, true>(p, h, n, out);
  return Run<kOp, false>(p, h, n, out);
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels::counting
HWY_AFTER_NAMESPACE();

#endif  // include guard
