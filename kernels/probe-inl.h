// SPDX-License-Identifier: Apache-2.0
// What every layout's per-target probe shares (stages 2-4: pick the block, build
// the probe mask, test or set it). A probe is a small class built from a
// FilterRef with three members, the same for every layout:
//   template <bool kWrite> void Prefetch(uint64_t hash) const;  // its line(s)
//   bool Query(uint64_t hash) const;
//   void Insert(uint64_t hash) const;
// Each layout's probe lives in kernels/<layout>-inl.h beside its scalar
// reference; kernels/pipeline-inl.h drives them over batches.
#if defined(BLOCKBLOOM_KERNELS_PROBE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_PROBE_INL_H_
#undef BLOCKBLOOM_KERNELS_PROBE_INL_H_
#else
#define BLOCKBLOOM_KERNELS_PROBE_INL_H_
#endif

#include <cstring>
#include <type_traits>

#include "hwy/cache_control.h"
#include "kernels/highway.h"
#include "kernels/common.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// A line about to be read, or (kWrite) read and rewritten, asked into the L2
// (locality 2: PREFETCHT1 on x86, a read in both forms as the targets' flags
// lack "prfchw"; PRFM PLDL2KEEP / PSTL2KEEP on AArch64), not the L1. A batch
// keeps its look-ahead's lines in flight (128 keys then; kPrefetchDistance,
// kernels/pipeline-inl.h); asked into the L1 (PREFETCHT0), every
// layout ran at the same ~9 ns/key at 100M keys whatever its work, as if
// queued for the L1's few miss buffers (not measured: no PMU on that guest);
// the probe, 128 keys later, finds the line in the L2. Measured A/B (Zen 4
// guest, aes, medians of 2-3 alternating runs of 3-5 repetitions, 2026-11-27),
// the time with T1 over the time with T0: at 100M keys every batch row
// 0.45-0.69x on avx3_dl (split256 8.6-9.2 -> 4.5-4.6 ns/key, register64
// 8.9-9.8 -> 4.4-4.7) and 0.34-0.47x on avx2, at 10M 0.55-0.83x, at 1M
// 0.95-1.03x. Zen 5 is the other way round: there batches ask into the L1
// (PrefetchLineTo below; kernels/kernels.cc PrefetchToL1 has the figures), as
// the Sapphire Rapids class does while the filter fits in its L2.
// (PREFETCHW against that PREFETCHT0 on Zen 5, before the L2 form: 1M and 10M
// keys within 3%, 100M 0-8% slower; a single key's insert may take PREFETCHW,
// InsertAlone below.)
template <bool kWrite>
HWY_INLINE void PrefetchLine(const void* p) {
  __builtin_prefetch(p, kWrite ? 1 : 0, 2);
}
// The same line asked into the L1 instead where kToL1 (batches on Zen 5 and
// small ones on the Sapphire Rapids class, PrefetchToL1, kernels/kernels.h):
// PREFETCHW for a line about to be rewritten (in assembly on x86, as the
// targets' flags lack "prfchw"; it asks for the line to write it), PREFETCHT0
// for a read.
template <bool kWrite, bool kToL1>
HWY_INLINE void PrefetchLineTo(const void* p) {
  if constexpr (!kToL1) {
    PrefetchLine<kWrite>(p);
  } else if constexpr (kWrite) {
#if HWY_ARCH_X86
    asm volatile("prefetchw (%0)" : : "r"(p));
#else
    __builtin_prefetch(p, 1, 3);
#endif
  } else {
    __builtin_prefetch(p, 0, 3);
  }
}

// Blocked layouts: Prefetch is that of the one line holding Block(hash).
template <class Derived>
class BlockProbe {
 public:
  template <bool kWrite>
  HWY_INLINE void Prefetch(uint64_t h) const {
    PrefetchLine<kWrite>(static_cast<const Derived*>(this)->Block(h));
  }
};

// Block i of 2^kShift bytes starts i << kShift bytes into the filter, i =
// BlockIndex(hash): where the probes, typed.h's single keys and the pipeline's
// hashing (pipeline-inl.h HashStep) take a hash's block from. On x86's AVX2
// and AVX-512 targets (whose CPUs all have BMI2) by BlockIndexMulx
// (kernels/common.h), the same value: a typed.h split256 query loop (1M keys,
// Zen 4 guest, one process, three runs) with "foldmul" ran 0.81-0.82x its time
// with BlockIndex's shifts, "mulx" 0.90-0.92x, "aes" 0.98-0.99x. The run-time
// dispatched single-key calls keep the shifts (CalledBlock, kernels/kernels.cc).
template <int kShift>
HWY_INLINE uint64_t BlockOffset(uint64_t hash, uint64_t num_blocks) {
#if BLOCKBLOOM_BLOCK_INDEX_MULX && (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL)
  return BlockIndexMulx(hash, num_blocks) << kShift;
#else
  return BlockIndex(hash, num_blocks) << kShift;
#endif
}

// kV in every lane of d. kFromMemory (the single-key queries' probes,
// kernels/kernels.cc OneCallProbe): one broadcast of the constant from memory
// on x86's AVX2 and AVX-512 targets, where g++ 12 builds a splat of a constant
// with a move to a general register and a broadcast from it (a MOVABS too for
// a 64-bit one). An inlined loop (typed.h) or a batch holds the splat in a
// register across keys, a call a key builds it every call. Measured: the
// CHANGELOG ("Changed (speed)", the single-key kernels' constants).
template <auto kV>
BLOCKBLOOM_HIDDEN inline constexpr decltype(kV) kSplatOperand = kV;
template <bool kFromMemory, auto kV, class D>
HWY_INLINE hn::Vec<D> Splat(D d) {
  static_assert(std::is_same_v<decltype(kV), hn::TFromD<D>>, "a constant of the lanes' type");
#if (HWY_TARGET == HWY_AVX2 || HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL) && \
    (defined(__GNUC__) || defined(__clang__))
  if constexpr (kFromMemory && hn::MaxLanes(d) * sizeof(kV) >= 32 && (sizeof(kV) == 4 || sizeof(kV) == 8)) {
    hn::Vec<D> v;
    if constexpr (sizeof(kV) == 4) {
      asm("vpbroadcastd %1, %0" : "=v"(v.raw) : "m"(kSplatOperand<kV>));
    } else {
      asm("vpbroadcastq %1, %0" : "=v"(v.raw) : "m"(kSplatOperand<kV>));
    }
    return v;
  }
#endif
  return hn::Set(d, kV);
}

// The low 32 bits of a key's hash in every u32 lane of d: what the masks of
// split256, sectorized512, split512, register64 (k >= 3) and blocked512 start
// from. H is uint64_t, or a hash that still carries the vector register it
// was computed in (AesHash, kernels/aes-inl.h): its own
// overload broadcasts that register, without the move of the value back from
// a general register (the single-key paths; batches pass uint64_t).
template <class D, class H>
HWY_INLINE hn::Vec<D> SetLo32(D d, const H& h) {
  return hn::Set(d, static_cast<uint32_t>(static_cast<uint64_t>(h)));
}

// The filter's blocked layouts: block i is the 2^kShift bytes at
// bits + (i << kShift), i = BlockIndex(hash). Derived supplies QueryAt(block,
// hash) and InsertAt(block, hash); Query and Insert find the block first. The
// batch pipeline (kernels/pipeline-inl.h) instead computes the blocks' addresses
// for a step of keys at once (BlockAddresses) and calls the At forms.
template <class Derived, int kShift>
class FilterBlockProbe : public BlockProbe<Derived> {
 public:
  static constexpr int kBlockShift = kShift;
  explicit FilterBlockProbe(const FilterRef& f) : base_(f.bits), num_blocks_(f.num_blocks) {}

  uint8_t* Block(uint64_t h) const { return base_ + BlockOffset<kShift>(h, num_blocks_); }
  // H: uint64_t, or AesHash (SetLo32 above), which the At forms that build
  // their masks with SetLo32 take as it is and the others as its value.
  template <class H>
  HWY_INLINE bool Query(const H& h) const {
    return static_cast<const Derived*>(this)->QueryAt(Block(h), h);
  }
  template <class H>
  HWY_INLINE void Insert(const H& h) const {
    static_cast<const Derived*>(this)->InsertAt(Block(h), h);
  }

 private:
  uint8_t* base_;
  uint64_t num_blocks_;
};

// One key's insert on its own (typed.h and the single-key kernels; batches
// prefetch ahead instead). A probe with kPrefetchAlone (split512,
// sectorized512: the whole 64-byte line rewritten by one vector OR) asks for
// the line with write intent as soon as its address is known, ahead of its
// load: on Zen 5, 1M keys, a loop of typed.h inserts took 12% less time for
// split512 with aes (2% with mulx), 7% for sectorized512 (k = 8); the others
// keep the plain insert (split256, register64, blocked512 ran the same or up
// to 3% slower with it; CHANGELOG). The asm hands the block on, so that the
// compiler keeps the line's load after it. InsertAloneAt: the same with the
// block found by the caller (a block probe's, at `block`).
template <class P, class H>
HWY_INLINE void InsertAloneAt(const P& p, uint8_t* block, const H& h) {
#if HWY_ARCH_X86
  if constexpr (requires { requires P::kPrefetchAlone; }) {
    asm volatile("prefetchw (%0)" : "+r"(block));
  }
#endif
  p.InsertAt(block, h);
}
template <class P, class H>
HWY_INLINE void InsertAlone(const P& p, const H& h) {
  if constexpr (requires { P::kBlockShift; }) {
    InsertAloneAt(p, p.Block(h), h);
  } else {
    p.Insert(h);
  }
}

// addr[i] = the address of hash h[i]'s block, base + BlockOffset<kShift>(h[i],
// num_blocks), for i in [0, n), a vector of hashes at a time (one
// 32 x 32-bit multiply per lane: BlockIndex multiplies the hash's high half by
// num_blocks, which fits 32 bits except at kMaxBlocks, done one by one).
// Addresses, not offsets: the prefetch and the probe then use them as they
// are, where an offset cost each an add (measured: the CHANGELOG).
template <int kShift>
HWY_INLINE void BlockAddresses(const uint64_t* HWY_RESTRICT h, size_t n, uint64_t num_blocks, const uint8_t* base,
                               uint64_t* HWY_RESTRICT addr) {
  const auto base_u64 = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base));
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR  // (one lane: no u32 halves to multiply)
  if (num_blocks <= 0xFFFFFFFFu) {
    const hn::ScalableTag<uint64_t> d;
    const hn::Repartition<uint32_t, decltype(d)> d32;
    const auto nb = hn::BitCast(d32, hn::Set(d, num_blocks));
    const auto vbase = hn::Set(d, base_u64);
    const auto low_clear = hn::Set(d, ~uint64_t{0} << kShift);
    const size_t N = hn::Lanes(d);
    for (; i + N <= n; i += N) {
      const auto hi = hn::BitCast(d32, hn::ShiftRight<32>(hn::LoadU(d, h + i)));
      // (product >> 32) << kShift as one shift and an AND: vector shifts
      // share fewer ports than ANDs with the probes' shifts and shuffles.
      hn::StoreU(hn::Add(vbase, hn::And(hn::ShiftRight<32 - kShift>(hn::MulEven(hi, nb)), low_clear)), d, addr + i);
    }
  }
#endif
  for (; i < n; ++i) addr[i] = base_u64 + BlockOffset<kShift>(h[i], num_blocks);
}
// The block at an address BlockAddresses stored.
HWY_INLINE uint8_t* AtAddress(uint64_t addr) { return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(addr)); }

// ---- The prefetch pipeline (the filter's batches, kernels/pipeline-inl.h, and
// the counting filter's, kernels/counting-inl.h) ---------------------------------
// Calls body(i, cur[i]) for i in [0, len), in order, while the line(s) of the
// hash kAhead places ahead get p.Prefetch<kWrite>: so each probe finds its line
// in L1 without waiting. The look-ahead runs on into next[0, nlen), the
// hashes that follow cur (or none), so a caller streaming chunks has no bubble
// at their boundaries; the first kAhead of cur were prefetched before (by
// PrimeAhead, or by the previous chunk's call). With kAhead = 0 nothing is
// prefetched (filters that stay in L2, where prefetching only adds work).
template <size_t kAhead, bool kWrite, class P>
HWY_INLINE void PrimeAhead(const P& p, const uint64_t* HWY_RESTRICT h, size_t n) {
  for (size_t i = 0; i < n && i < kAhead; ++i) p.template Prefetch<kWrite>(h[i]);
}

template <size_t kAhead, bool kWrite, class P, class Body>
HWY_INLINE void PrefetchAhead(const P& p, const uint64_t* HWY_RESTRICT cur, size_t len,
                              const uint64_t* HWY_RESTRICT next, size_t nlen, Body&& body) {
  size_t i = 0;
  if constexpr (kAhead > 0) {
    // Two loops so that no key pays a branch on where its look-ahead lies.
    for (; i + kAhead < len; ++i) {
      p.template Prefetch<kWrite>(cur[i + kAhead]);
      body(i, cur[i]);
    }
    for (; i < len; ++i) {
      const size_t j = i + kAhead - len;
      if (j < nlen) p.template Prefetch<kWrite>(next[j]);
      body(i, cur[i]);
    }
  } else {
    (void)next;
    (void)nlen;
    for (; i < len; ++i) body(i, cur[i]);
  }
}

// True iff every bit of v is 0. x86 from SSE4 on: one PTEST, its flag read
// directly (2 instructions); elsewhere AllTrue(v == 0) (compare, mask
// extraction, compare: 4). The query's last step, on every key. PTEST's
// carry flag against zero (CF: ~0 AND v == 0), not its zero flag (v AND v
// == 0): a loop that sums the answers (hits += MayContain(key)) adds the
// carry with one ADC, where the zero flag took XOR, SETE and ADD.
template <class D>
HWY_INLINE bool AllZero(D d, hn::Vec<D> v) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
  if (hn::Lanes(d) * sizeof(hn::TFromD<D>) == sizeof(v.raw)) {  // full vectors only (no stale upper lanes)
    if constexpr (sizeof(v.raw) == 16) {
      return _mm_testc_si128(hn::Zero(d).raw, v.raw) != 0;
    } else if constexpr (sizeof(v.raw) == 32) {
      return _mm256_testc_si256(hn::Zero(d).raw, v.raw) != 0;
    }
#if HWY_TARGET <= HWY_AVX3
    else if constexpr (sizeof(v.raw) == 64) {
      return _mm512_test_epi64_mask(v.raw, v.raw) == 0;
    }
#endif
  }
#endif
  return hn::AllTrue(d, hn::Eq(v, hn::Zero(d)));
}

// True iff every bit set in `bits` is set in `v` (AllZero(AndNot(v, bits))).
// x86 SSE4 and AVX2: one PTEST, its carry flag (the AND-NOT is PTEST's own);
// AVX-512 has no carry form for 512-bit vectors, so it and other targets
// test the AND-NOT. The query's last step where the mask is one vector
// (split256, register64 on AVX2): one instruction less per key.
template <class D>
HWY_INLINE bool AllSetIn(D d, hn::Vec<D> v, hn::Vec<D> bits) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
  if (hn::Lanes(d) * sizeof(hn::TFromD<D>) == sizeof(v.raw)) {  // full vectors only (no stale upper lanes)
    if constexpr (sizeof(v.raw) == 16) {
      return _mm_testc_si128(v.raw, bits.raw) != 0;
    } else if constexpr (sizeof(v.raw) == 32) {
      return _mm256_testc_si256(v.raw, bits.raw) != 0;
    }
  }
#endif
  return AllZero(d, hn::AndNot(v, bits));
}
// AllSetIn(v0, bits0) && AllSetIn(v1, bits1), with no branch: the two halves
// of a line held as two vectors (split512 and sectorized512 on AVX2, their far
// forms on AVX-512). Where AllSetIn is one PTEST, two PTESTs and an AND of
// their flags, not two AND-NOTs, an OR and a PTEST: typed.h's sectorized512
// query loop on AVX2 ran 5-6% faster (scratch A/B, same bytes, 1M keys, Zen 4
// guest, three runs). Elsewhere one test of the ORed AND-NOTs (one reduction).
template <class D>
HWY_INLINE bool BothSetIn(D d, hn::Vec<D> v0, hn::Vec<D> bits0, hn::Vec<D> v1, hn::Vec<D> bits1) {
#if HWY_ARCH_X86 && HWY_TARGET <= HWY_SSE4
  if (hn::Lanes(d) * sizeof(hn::TFromD<D>) == sizeof(v0.raw)) {  // full vectors only, as AllSetIn
    if constexpr (sizeof(v0.raw) == 16) {
      return (_mm_testc_si128(v0.raw, bits0.raw) & _mm_testc_si128(v1.raw, bits1.raw)) != 0;
    } else if constexpr (sizeof(v0.raw) == 32) {
      return (_mm256_testc_si256(v0.raw, bits0.raw) & _mm256_testc_si256(v1.raw, bits1.raw)) != 0;
    }
  }
#endif
  return AllZero(d, hn::Or(hn::AndNot(v0, bits0), hn::AndNot(v1, bits1)));
}

#if HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL
// A 64-byte line of 8 u64 words against a 512-bit mask: whether it holds
// every bit of `m` (LineHolds), or ORs them in (LineOr). kFar: the line read
// as two 256-bit halves, not one 512-bit load (LineOr writes it back with one
// 512-bit store): the far form of split512 and sectorized512 (FarProbe,
// RunBatch takes it from FarMinBytes on, plain inserts from FarInsertMinBytes
// on; what it measured: kernels/split512-inl.h, kernels/sectorized512-inl.h,
// kernels/kernels.cc).
template <bool kFar, class D>
HWY_INLINE bool LineHolds(D d, const uint64_t* HWY_RESTRICT words, hn::Vec<D> m) {
  if constexpr (kFar) {
    const hn::Half<D> dh;
    return BothSetIn(dh, hn::Load(dh, words), hn::LowerHalf(dh, m), hn::Load(dh, words + 4), hn::UpperHalf(dh, m));
  } else {
    return AllZero(d, hn::AndNot(hn::Load(d, words), m));
  }
}
template <bool kFar, class D>
HWY_INLINE void LineOr(D d, uint64_t* HWY_RESTRICT words, hn::Vec<D> m) {
  if constexpr (kFar) {
    const hn::Half<D> dh;
    const auto line = hn::Combine(d, hn::Load(dh, words + 4), hn::Load(dh, words));
    hn::Store(hn::Or(line, m), d, words);
  } else {
    hn::Store(hn::Or(hn::Load(d, words), m), d, words);
  }
}
#endif

// ---- The golden probes in lanes (blocked512, the blocked counting filter) -------
// mul: kGoldenPow (kernels/common.h); active[16 - k + i] is all ones iff i < k,
// so lane i of a load from active + 16 - k + v enables probe v + i: no
// per-filter table to build.
struct alignas(64) GoldenLanes {
  uint32_t mul[16];
  uint32_t active[32];
};
constexpr GoldenLanes MakeGoldenLanes() {
  GoldenLanes t{};
  for (uint32_t i = 0; i < 16; ++i) t.mul[i] = kGoldenPow[i];
  for (uint32_t i = 0; i < 32; ++i) t.active[i] = i < 16 ? ~0u : 0u;
  return t;
}
alignas(64) inline constexpr GoldenLanes kGoldenLanes = MakeGoldenLanes();

// words[lane] = line[word_idx[lane]] for a 64-byte line of 16 u32 words
// (word_idx in 0..15): one 16-lane permute on AVX-512; on narrower vectors one
// permute per vector-sized part of the line, merged by the word's part; a
// gather on 128-bit vectors, where four parts would cost more than four loads.
template <class D, class VI>
HWY_INLINE hn::Vec<D> LineWords(D d, const uint32_t* HWY_RESTRICT line, VI word_idx) {
  const hn::RebindToSigned<D> di;
  const size_t N = hn::Lanes(d);
  if (N >= 8) {
    const auto in_part = hn::And(word_idx, hn::Set(di, static_cast<int32_t>(N - 1)));
    auto words = hn::TableLookupLanes(hn::Load(d, line), hn::IndicesFromVec(d, in_part));
    for (size_t p = N; p < 16; p += N) {
      const auto part = hn::TableLookupLanes(hn::Load(d, line + p), hn::IndicesFromVec(d, in_part));
      words = hn::IfThenElse(hn::RebindMask(d, hn::Gt(word_idx, hn::Set(di, static_cast<int32_t>(p - 1)))), part,
                             words);
    }
    return words;
  }
  return hn::GatherIndex(d, line, word_idx);
}

// Calls f(k - 1), ..., f(0) (k in 1..16) with one jump on k per key instead
// of a compare per probe (Duff's device): k is a run-time parameter of the filter.
template <class F>
HWY_INLINE void ForEachProbe(uint32_t k, F&& f) {
  switch (k) {
    case 16: f(15); [[fallthrough]];
    case 15: f(14); [[fallthrough]];
    case 14: f(13); [[fallthrough]];
    case 13: f(12); [[fallthrough]];
    case 12: f(11); [[fallthrough]];
    case 11: f(10); [[fallthrough]];
    case 10: f(9); [[fallthrough]];
    case 9: f(8); [[fallthrough]];
    case 8: f(7); [[fallthrough]];
    case 7: f(6); [[fallthrough]];
    case 6: f(5); [[fallthrough]];
    case 5: f(4); [[fallthrough]];
    case 4: f(3); [[fallthrough]];
    case 3: f(2); [[fallthrough]];
    case 2: f(1); [[fallthrough]];
    default: f(0);
  }
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
