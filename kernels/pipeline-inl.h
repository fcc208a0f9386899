// SPDX-License-Identifier: Apache-2.0
// The batch pipeline (per target): hash ahead, prefetch a fixed distance
// ahead, then probe, for any layout's probe (kernels/<layout>-inl.h, listed in
// kernels/layouts-inl.h). RunBatch picks the probe type once per batch.
#if defined(BLOCKBLOOM_KERNELS_PIPELINE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_PIPELINE_INL_H_
#undef BLOCKBLOOM_KERNELS_PIPELINE_INL_H_
#else
#define BLOCKBLOOM_KERNELS_PIPELINE_INL_H_
#endif

#include <atomic>
#include <cstring>
#include <type_traits>

#include "kernels/aes-inl.h"
#include "kernels/highway.h"
#include "kernels/layouts-inl.h"
#include "kernels/probe-inl.h"
#include "kernels/reference.h"
#include "kernels/xxh3-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

// ---- Look-ahead -------------------------------------------------------------
// Little's law: keys in flight = miss latency / time per key. Measured (issue 9,
// AMD EPYC guest, AVX2, --bb_preset=boost medians, 2026-11-23): 4.3-6.2 ns/key
// batched at 1M keys (1.25 MB filters, misses served by L3 at ~40 ns) and
// 6.4-9.4 at 10M (12.5 MB, DRAM at ~100 ns): 7-16 keys must be in flight. A
// sweep of the look-ahead alone (one random line per precomputed hash,
// medians of 11): at 1.25 MB 16, 32, 64 and 128 keys all cost 2.2-2.4 ns/key;
// at 12.5 MB 16 -> 8.6, 32 -> 5.9, 64 -> 4.6, 128 -> 4.0. So 128 (8 KiB of
// lines, within L1/L2) on the AVX-512 targets and the others: 48 against 128
// in the kernels (A/B, medians of 2x3): 0.77-1.38x per row, no consistent
// winner within that noise; 64 against 128 on Zen 5 (AVX-512): within 4%.
// Every target takes 128. The avx2 target took 64 from 2026-11 to 2026-12-03:
// on a Zen 3 guest its kernels ran up to ~5% faster with it (the look-ahead set
// per batch in one process, Boost's time over ours, 64 / 128: queries at 10M
// 0.99-1.10 / 0.96-1.03 for split256, 1.07 / 1.01 sectorized512; at 1M 1.26-1.31
// / 1.21). On a Zen 4 guest, the avx2 kernels pinned (-march=haswell build,
// `aes`, peer_ab's binaries of both alternating, two passes of 11 rounds), 128
// ran the batches at 10M 10-25% faster (split256's queries 2.3-2.33 -> 1.91-1.98
// ns/key, inserts 2.33-2.41 -> 1.78-1.94; sectorized512 2.7-2.86 -> 2.37-2.84;
// split512 2.41-2.63 -> 2.23-2.25; register64 2.29-2.44 -> 2.14-2.16) and at 1M
// within the noise (register64's 3-7% slower, split512's 2-5% faster): the
// larger gain, and one look-ahead for every target.
inline constexpr size_t kPrefetchDistance = 128;
// The look-ahead of probe P, in keys: kPrefetchDistance, or P::kPrefetchKeys
// for a probe that touches several lines a key (classic: k of them).
template <class P>
constexpr size_t AheadOf() {
  if constexpr (requires { P::kPrefetchKeys; }) {
    return P::kPrefetchKeys;
  } else {
    return kPrefetchDistance;
  }
}
// Whether a batch prefetches (PrefetchMinBytes, kernels/kernels.h: by the
// filter's size and layout) is a run-time flag of one pipeline, not a second
// instantiation of it (per probe type, hash kind and target, they were most of
// the build: kernels.cc and kernels_insert.cc took 167 and 133 s of the g++
// build's 518 CPU-s, 92 and 73 s with the flag). Its branch goes the same way
// for a whole batch. Measured A/B against the two instantiations (Zen 4 guest,
// avx3_dl, aes, medians of 6 alternating runs of 5 repetitions, 2026-11-27):
// 1M keys 1.005x their time at the median of 15 rows (0.89-1.19, the guest's
// noise); 32 KiB 0.93x (0.77-1.1), as the small filters now hash the
// look-ahead's keys ahead too. Prefetching every batch instead cost the
// 32 KiB filters 1.05x at the median of the blocked layouts' rows (up to
// 1.18x) and classic's 1.5-2x. RunRing's steps test the flag once a step, not
// once a key (two of the ~23 instructions a key of split512's AVX2 inserts:
// 0.98x their time at 1M keys, Zen 5, the rest within 2%).

// ---- Concurrent inserts: one locked OR per 64-bit word ------------------------------
// The reference sets a key's bits with a lock-prefixed OR (relaxed fetch_or)
// per u32 word it touches; those ORs, which drain the store buffer, are what an
// atomic insert costs beyond a plain one (~10x a plain insert, Zen 3). A probe
// that declares kAtomicByWord64 instead sets the key's bits in a zeroed
// scratch block with its plain vector insert, and ORs each u64 word of the real
// block that lacks some of them once; a word a relaxed load finds holding
// them all gets no OR (bits are only ever set, so it keeps them). split256 so
// takes at most 4 locked ORs per key, not 8, and a key already present none.
// sectorized512 at k = 8 has one bit per u64 (8 ORs either way on fresh keys:
// a tie) but skips them for keys present; register64 and sectorized512 at
// k = 16 declare it too. blocked512 and classic keep the reference's ORs:
// blocked512's scattered words cost more in the scratch's round trip than they
// saved (fresh 1M-key builds, Zen 3: see the CHANGELOG). Bytes and answers as
// the reference's (tests/kernels_test.cc).
template <class P>
concept AtomicByWord64 = requires { P::kBlockShift; } && P::kAtomicByWord64;

template <class P>
class AtomicInsertProbe {
 public:
  static constexpr size_t kPrefetchKeys = AheadOf<P>();
  explicit AtomicInsertProbe(const FilterRef& f) : p_(f), f_(f) {}
  AtomicInsertProbe(const AtomicInsertProbe&) = delete;
  AtomicInsertProbe& operator=(const AtomicInsertProbe&) = delete;
  template <bool kWrite>
  HWY_INLINE void Prefetch(uint64_t h) const {
    p_.template Prefetch<kWrite>(h);
  }
  HWY_INLINE void Insert(uint64_t h) const {
    if constexpr (AtomicByWord64<P>) {
      constexpr size_t kBytes = size_t{1} << P::kBlockShift;
      static_assert(kBytes % 8 == 0 && kBytes <= sizeof(scratch_));
      constexpr size_t kWords = kBytes / 8;
      std::memset(scratch_, 0, kBytes);
      p_.InsertAt(scratch_, h);
      uint64_t* block = reinterpret_cast<uint64_t*>(p_.Block(h));
      uint64_t mask[kWords];
      std::memcpy(mask, scratch_, kBytes);
      // Which words lack bits, as a bit set: no branch per word (which words
      // lack bits is random, and a branch on it mispredicted so often that
      // blocked512's inserts ran 2x slower than the reference's).
      uint32_t lacking = 0;
      for (size_t i = 0; i < kWords; ++i) {
        const uint64_t w = std::atomic_ref<uint64_t>(block[i]).load(std::memory_order_relaxed);
        lacking |= static_cast<uint32_t>((mask[i] & ~w) != 0) << i;
      }
      for (; lacking != 0; lacking &= lacking - 1) {
        const size_t i = static_cast<size_t>(__builtin_ctz(lacking));
        std::atomic_ref<uint64_t>(block[i]).fetch_or(mask[i], std::memory_order_relaxed);
      }
    } else {
      reference::InsertHashAtomic(f_, h);
    }
  }

 private:
  P p_;
  FilterRef f_;
  alignas(64) mutable uint8_t scratch_[64];  // as the filter's blocks: every target's aligned loads
};

// ---- The pipeline -------------------------------------------------------------
// One key's probe: insert, or query into out[i] (`out` is null when inserting).
template <bool kInsert, class P>
HWY_INLINE void ProbeOne(const P& p, uint64_t h, uint8_t* out, size_t i) {
  if constexpr (kInsert) {
    (void)out;
    (void)i;
    p.Insert(h);
  } else {
    out[i] = static_cast<uint8_t>(p.Query(h));
  }
}

// The same at a block computed before (probes with HasBlockAddresses).
template <bool kInsert, class P>
HWY_INLINE void ProbeAt(const P& p, uint8_t* block, uint64_t h, uint8_t* out, size_t i) {
  if constexpr (kInsert) {
    (void)out;
    (void)i;
    p.InsertAt(block, h);
  } else {
    out[i] = static_cast<uint8_t>(p.QueryAt(block, h));
  }
}

// A query batch's hits: the ones among out[0, n) (each 0 or 1), counted after
// the probes 8 answers to a popcount, not with an add per key. 0 for inserts.
template <bool kInsert>
HWY_INLINE size_t CountHits(const uint8_t* out, size_t n) {
  if constexpr (kInsert) {
    (void)out;
    (void)n;
    return 0;
  } else {
    size_t hits = 0, i = 0;
    for (; i + 8 <= n; i += 8) {
      uint64_t w;
      std::memcpy(&w, out + i, 8);
      hits += static_cast<size_t>(__builtin_popcountll(w));
    }
    for (; i < n; ++i) hits += out[i];
    return hits;
  }
}

// One key of RunHashes: a class whose call operator is forced inline, not a
// lambda (which g++ inlines only while its per-unit budget lasts: once the key
// pipeline was instantiated for four hash kinds, the atomic inserts' per-key
// body became a call per key, register64's 1-thread atomic inserts 19% slower,
// 142-146 against 173-177 M keys/s at 100M keys, Zen 5).
template <bool kInsert, class P>
struct ProbeOneAt {
  const P& p;
  uint8_t* out;
  HWY_INLINE void operator()(size_t i, uint64_t hash) const { ProbeOne<kInsert>(p, hash, out, i); }
};

// ---- The ring pipeline ----------------------------------------------------------
// Hashing interleaved with probing, kStep keys at a time. With A the look-ahead
// and S = kStep, the step at key i hashes keys [i + A + S, i + A + 2S) (into a
// ring, and their blocks' addresses), prefetches the lines of [i + A, i + A + S)
// (hashed by the step before, so no load waits on the vector store that wrote
// its hash or address) and probes [i, i + S); the input itself is prefetched
// kKeysAhead ahead. Hashing is ALU work and probing waits on memory, so
// interleaved the core overlaps the two; hashing a 512-key chunk and then
// probing it let the look-ahead drain while the chunk hashed, and each chunk
// waited out a memory latency. Without the input's prefetch, interleaving ran
// AVX-512 slower than chunks: with the lines' prefetches filling the miss
// queue the hardware prefetcher no longer kept the key stream ahead. Steps of
// 8, 16, 32 and 128 keys: 8 best on AVX2, all within 5% on AVX-512. Figures:
// CHANGELOG.md, "Changed (speed)".
inline constexpr size_t kStep = 8;
inline constexpr size_t kKeysAhead = 512;  // 4 KiB of keys
inline constexpr size_t kRing = 4 * kPrefetchDistance;
inline constexpr size_t kRingMask = kRing - 1;
static_assert((kRing & kRingMask) == 0 && kRing % kStep == 0 && kPrefetchDistance % kStep == 0 &&
                  kPrefetchDistance + 2 * kStep <= kRing,
              "the ring holds the look-ahead and two steps, in whole steps");
static_assert(kStep * sizeof(uint64_t) == 64, "a step's keys are one line: one prefetch a step");
// Probes of the blocked layouts (FilterBlockProbe, kernels/probe-inl.h): the
// step also computes its keys' block addresses in vectors (BlockAddresses),
// once for the prefetch and the probe, instead of a multiply and two shifts per
// key in each (measured: see the CHANGELOG, "Changed (speed)").
template <class P>
concept HasBlockAddresses = requires(const P& p, uint8_t* b, uint64_t h) {
  P::kBlockShift;
  p.QueryAt(b, h);
  p.InsertAt(b, h);
};

// Probes that take a whole step at once: ProbeStep<kInsert>(addr, h, out)
// probes the kStep keys whose hashes are h[0, kStep) and whose blocks are at
// addr[0, kStep), in order (a later key's insert sees an earlier one's bits),
// writing out[0, kStep) when querying (register64: the masks of the step's keys
// computed in vector lanes, a key per lane).
template <class P>
concept HasProbeStep = requires(const P& p, const uint64_t* a, uint8_t* o) {
  p.template ProbeStep<true>(a, a, o);
  p.template ProbeStep<false>(a, a, o);
};

// Where the ring's steps get their hashes. Fill(j, len, ring, addr) makes the
// hashes of [j, j + len) (j % kStep == 0) and, for HasBlockAddresses probes,
// their blocks' addresses at addr + (j & kRingMask); Hashes(ring, i) points at
// the hash of i, the next ones following up to the ring's end. The ring and
// the addresses are the caller's arrays, not members: stores into a member
// array made g++ reload the source's other members (keys, seed, filter) on
// every step, and the key batches ran 5% slower (Zen 5).
//
// KeySource: 8-byte keys, hashed here (except "rocksdb" and "foldmul" keys and
// "xxh64" keys outside split256: CalledKeySource below). XXH3 hashes a step's keys in vectors;
// the other kinds key by key in registers (kernels/common.h HashU64With;
// "mulx" has no vector form on these targets: no 64x64 -> 128-bit multiply in
// lanes). Measured against hashing them in 512-key chunks before the probes
// (the engine's way before): the CHANGELOG, "Changed (speed)".
// kAddr false: the hashes only (RunBatch's batches beyond the L3, RunRing).
template <class P, HashKind kHash, bool kAddr = true>
class KeySource {
 public:
  static constexpr bool kAddresses = kAddr && HasBlockAddresses<P>;
  KeySource(const P& p, const FilterRef& f, const uint64_t* keys, uint64_t seed)
      : p_(p),
        bits_(f.bits),
        num_blocks_(f.num_blocks),
        keys_(keys),
        seed_const_(KeyHashConstant(kHash, seed)),
        x8_(kHash == kAesNative && AesX8Usable()) {}
  HWY_INLINE void Fill(size_t j, size_t len, uint64_t* HWY_RESTRICT ring, uint64_t* HWY_RESTRICT addr) const {
    uint64_t* HWY_RESTRICT to = ring + (j & kRingMask);
    if constexpr (kHash == HashKind::kXxh3) {
      HashU64BatchWith(keys_ + j, len, seed_const_, to);
      if constexpr (kAddresses)
        BlockAddresses<P::kBlockShift>(to, len, num_blocks_, bits_, addr + (j & kRingMask));
    } else {
      size_t i = 0;
      // "aes": eight keys at a time in VAES registers where the CPU has them
      // (kernels/aes-inl.h), their hashes stored by vector stores that
      // BlockAddresses' vector loads then forward from; the rest below.
      if constexpr (kHash == kAesNative) {
        if (x8_) {
          i = AesU64NativeRunsOf8(keys_ + j, len, seed_const_, to);
          if constexpr (kAddresses)
            BlockAddresses<P::kBlockShift>(to, i, num_blocks_, bits_, addr + (j & kRingMask));
        }
      }
      // Hashed one by one, so their addresses too: BlockAddresses' vector
      // load of hashes just stored one by one would wait for those stores to
      // retire (no forwarding from several stores into one load): 1.26-1.40x
      // slower batches, mulx on Zen 5.
      uint64_t* HWY_RESTRICT at = addr + (kAddresses ? (j & kRingMask) : 0);
      for (; i < len; ++i) {
        const uint64_t h = KeyHash<kHash>(keys_[j + i], seed_const_);
        to[i] = h;
        if constexpr (kAddresses) at[i] = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p_.Block(h)));
      }
    }
  }
  HWY_INLINE const uint64_t* Hashes(const uint64_t* ring, size_t i) const { return ring + (i & kRingMask); }

 private:
  const P& p_;
  const uint8_t* bits_;
  uint64_t num_blocks_;
  const uint64_t* keys_;
  uint64_t seed_const_;
  bool x8_;  // AesU64NativeRunsOf8 for the "aes" kind (kernels/aes-inl.h)
};

// CalledKeySource: 8-byte keys hashed with "rocksdb" or "foldmul", or with
// "xxh64" in any layout but split256 (whose pipeline inlines Parquet's hash):
// kinds hashed key by key in scalar code, one or more multiplies a key
// ("foldmul" is a kind for single keys, typed.h and Insert(key); its batches
// take this shared pipeline rather than a sixth inlined one per probe). A call of a small
// function per kind and block size (HashStep) hashes up to kCallKeys keys, with
// their blocks' addresses, a few steps ahead of the probes, so each probe type
// has one pipeline for these kinds instead of one each: of the five fused
// pipelines per probe, mode and target these were two, and the two all-target
// kernel files compiled in 134 and 137 s instead of 157 and 175 (g++ 12 -O3,
// two at once, Emerald Rapids guest). The hashing still runs beside the earlier
// steps' probes, as in KeySource. Measured against the inlined form: the
// CHANGELOG, "Changed (build time)".
using HashStepFn = void (*)(const uint64_t* HWY_RESTRICT keys, size_t len, uint64_t seed_const,
                            uint64_t* HWY_RESTRICT to, uint64_t* HWY_RESTRICT at, const uint8_t* base,
                            uint64_t num_blocks);
// to[i] = the hash of keys[i]; with kShift >= 0 also at[i] = its block's
// address, base + BlockOffset<kShift>(to[i], num_blocks).
template <HashKind kHash, int kShift>
HWY_NOINLINE void HashStep(const uint64_t* HWY_RESTRICT keys, size_t len, uint64_t seed_const,
                           uint64_t* HWY_RESTRICT to, uint64_t* HWY_RESTRICT at, const uint8_t* base,
                           uint64_t num_blocks) {
  const auto base_u64 = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(base));
  for (size_t i = 0; i < len; ++i) {
    const uint64_t h = HashU64With<kHash>(keys[i], seed_const);
    to[i] = h;
    if constexpr (kShift >= 0) at[i] = base_u64 + BlockOffset<kShift>(h, num_blocks);
  }
}
template <class P, bool kAddr = true>
class CalledKeySource {
 public:
  CalledKeySource(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash)
      : bits_(f.bits),
        num_blocks_(f.num_blocks),
        keys_(keys),
        n_(n),
        seed_const_(KeyHashConstant(hash, seed)),
        step_(StepFor(hash)) {}
  // Fills [j, j + len) and, while the ring has room, up to kCallKeys beyond
  // it, so that a call hashes several steps (RunRing asks in order, a step at a
  // time; [j - AheadOf<P>() - kStep, j) is in use by then).
  HWY_INLINE void Fill(size_t j, size_t len, uint64_t* HWY_RESTRICT ring, uint64_t* HWY_RESTRICT addr) const {
    if (j + len <= filled_) return;
    const size_t to = HWY_MAX(j + len, HWY_MIN(n_, filled_ + kCallKeys));
    while (filled_ < to) {
      const size_t at = filled_ & kRingMask;
      const size_t m = HWY_MIN(to - filled_, kRing - at);  // no wrap within a call
      step_(keys_ + filled_, m, seed_const_, ring + at, addr + (kShift >= 0 ? at : 0), bits_, num_blocks_);
      filled_ += m;
    }
  }
  HWY_INLINE const uint64_t* Hashes(const uint64_t* ring, size_t i) const { return ring + (i & kRingMask); }

 private:
  static constexpr int ShiftOf() {
    if constexpr (kAddr && HasBlockAddresses<P>) {
      return P::kBlockShift;
    } else {
      return -1;
    }
  }
  static constexpr int kShift = ShiftOf();

 public:
  static constexpr bool kAddresses = kShift >= 0;

 private:
  static constexpr size_t kCallKeys = 64;
  static HashStepFn StepFor(HashKind hash) {
    switch (hash) {
      case HashKind::kXxh64: return &HashStep<HashKind::kXxh64, kShift>;
      case HashKind::kFoldMul: return &HashStep<HashKind::kFoldMul, kShift>;
      default: break;  // "rocksdb", the one other kind RunBatch sends here
    }
    return &HashStep<HashKind::kRocksdb, kShift>;
  }
  static_assert(kPrefetchDistance + 2 * kStep + kCallKeys <= kRing, "the ring holds what a call fills ahead");
  const uint8_t* bits_;
  uint64_t num_blocks_;
  const uint64_t* keys_;
  size_t n_;
  uint64_t seed_const_;
  HashStepFn step_;
  mutable size_t filled_ = 0;  // [0, filled_) hashed
};

// HashSource: hashes the caller computed (string keys' chunks, hash batches);
// a step computes their blocks' addresses in vectors, as for keys, instead of
// one block index per hash in each of the prefetch and the probe (kAddr
// false, batches beyond the L3: it only hands the hashes out).
template <class P, bool kAddr = true>
class HashSource {
 public:
  static constexpr bool kAddresses = kAddr;
  HashSource(const FilterRef& f, const uint64_t* hashes) : bits_(f.bits), num_blocks_(f.num_blocks), hashes_(hashes) {}
  HWY_INLINE void Fill(size_t j, size_t len, uint64_t*, uint64_t* HWY_RESTRICT addr) const {
    if constexpr (kAddr) {
      BlockAddresses<P::kBlockShift>(hashes_ + j, len, num_blocks_, bits_, addr + (j & kRingMask));
    }
  }
  HWY_INLINE const uint64_t* Hashes(const uint64_t*, size_t i) const { return hashes_ + i; }

 private:
  const uint8_t* bits_;
  uint64_t num_blocks_;
  const uint64_t* hashes_;
};

// One step of kStep keys at block addresses now_addr (hashes now), each
// probe after the prefetch of the line kAhead keys later (ahead_addr), into
// the L1 if kToL1 (PrefetchLineTo).
template <bool kInsert, bool kToL1, class P>
HWY_INLINE void ProbeStepPrefetching(const P& p, const uint64_t* HWY_RESTRICT now_addr,
                                     const uint64_t* HWY_RESTRICT ahead_addr, const uint64_t* HWY_RESTRICT now,
                                     uint8_t* out, size_t i) {
  for (size_t j = 0; j < kStep; ++j) {
    PrefetchLineTo<kInsert, kToL1>(AtAddress(ahead_addr[j]));
    ProbeAt<kInsert>(p, AtAddress(now_addr[j]), now[j], out, i + j);
  }
}

// The lines of a step's kStep block addresses (ahead_addr: kAhead keys after
// the step it probes), into the L1 if to_l1 (PrefetchLineTo), else as
// PrefetchLine: one branch a step.
template <bool kInsert>
HWY_INLINE void PrefetchStep(const uint64_t* HWY_RESTRICT ahead_addr, bool to_l1) {
  if (to_l1) {
    for (size_t j = 0; j < kStep; ++j) PrefetchLineTo<kInsert, true>(AtAddress(ahead_addr[j]));
  } else {
    for (size_t j = 0; j < kStep; ++j) PrefetchLine<kInsert>(AtAddress(ahead_addr[j]));
  }
}

// The ring over n keys or hashes (`in`, prefetched ahead) taken from src;
// next[0, nnext) are the hashes of the caller's next call, whose lines the
// last keys' look-ahead prefetches. Without `prefetch` (a filter in L2) the
// ring is the same and no line is prefetched; with `to_l1` the probes with
// block addresses prefetch their lines into the L1, not the L2
// (PrefetchToL1, kernels/kernels.h).
template <bool kInsert, class P, class Source>
HWY_INLINE size_t RunRing(const P& p, const Source& src, const uint64_t* in, size_t n, const uint64_t* next,
                          size_t nnext, bool prefetch, bool to_l1, uint8_t* out) {
  constexpr size_t kAhead = AheadOf<P>();
  static_assert(kAhead % kStep == 0 && kAhead <= kPrefetchDistance);
  constexpr bool kAddresses = Source::kAddresses;
  HWY_ALIGN uint64_t ring[kRing];                    // the hashes KeySource makes (HashSource: unused)
  HWY_ALIGN uint64_t addr[kAddresses ? kRing : 1];  // addr[j & kRingMask]: key j's block address
  // Hashes (and addresses) made for [i, hashed).
  size_t hashed = n < kAhead + kStep ? n : kAhead + kStep;
  src.Fill(0, hashed, ring, addr);
  // The first look-ahead's lines, once a batch. Fill wrote addr[0, hashed):
  // g++ 12 -O3 sees reads of an uninitialized array here since the prefetch
  // became a run-time flag, a false -Wmaybe-uninitialized.
#if HWY_COMPILER_GCC_ACTUAL
  HWY_DIAGNOSTICS(push)
  HWY_DIAGNOSTICS_OFF(disable : 4701, ignored "-Wmaybe-uninitialized")
#endif
  if (prefetch) {
    if constexpr (kAddresses) {
      for (size_t j = 0; j < hashed && j < kAhead; ++j) {
        if (to_l1) {
          PrefetchLineTo<kInsert, true>(AtAddress(addr[j]));
        } else {
          PrefetchLine<kInsert>(AtAddress(addr[j]));
        }
      }
    } else {
      PrimeAhead<kAhead, kInsert>(p, src.Hashes(ring, 0), hashed);
    }
  }
#if HWY_COMPILER_GCC_ACTUAL
  HWY_DIAGNOSTICS(pop)
#endif
  size_t i = 0;
  // Steady state, hashed == i + A + S at the top: i and hashed are multiples
  // of S, so no step's slice of the ring wraps.
  for (; hashed + kStep <= n; i += kStep, hashed += kStep) {
    if (hashed + kKeysAhead < n) hwy::Prefetch(in + hashed + kKeysAhead);  // a line a step
    src.Fill(hashed, kStep, ring, addr);
    const uint64_t* HWY_RESTRICT now = src.Hashes(ring, i);
    if constexpr (kAddresses) {
      const uint64_t* HWY_RESTRICT now_addr = addr + (i & kRingMask);
      const uint64_t* HWY_RESTRICT ahead_addr = addr + ((i + kAhead) & kRingMask);
      if constexpr (HasProbeStep<P>) {
        if (prefetch) PrefetchStep<kInsert>(ahead_addr, to_l1);
        p.template ProbeStep<kInsert>(now_addr, now, kInsert ? nullptr : out + i);
      } else if (kInsert && prefetch) {
        // Each insert after one prefetch: into the L1 (PREFETCHW) the inserts
        // lost their gain at 10M keys with the step's prefetches ahead of its
        // probes; queries ran as fast either way (kernels/kernels.cc).
        if (to_l1) {
          ProbeStepPrefetching<kInsert, true>(p, now_addr, ahead_addr, now, out, i);
        } else {
          ProbeStepPrefetching<kInsert, false>(p, now_addr, ahead_addr, now, out, i);
        }
      } else {
        if (prefetch) PrefetchStep<kInsert>(ahead_addr, to_l1);
        for (size_t j = 0; j < kStep; ++j) ProbeAt<kInsert>(p, AtAddress(now_addr[j]), now[j], out, i + j);
      }
    } else {
      const uint64_t* HWY_RESTRICT ahead = src.Hashes(ring, i + kAhead);
      for (size_t j = 0; j < kStep; ++j) {
        if (prefetch) p.template Prefetch<kInsert>(ahead[j]);
        ProbeOne<kInsert>(p, now[j], out, i + j);
      }
    }
  }
  // The last keys: fewer than S left to hash, fewer than A + 2S to probe.
  if (hashed < n) src.Fill(hashed, n - hashed, ring, addr);
  for (; i < n; ++i) {
    if (prefetch && i + kAhead < n) {
      if constexpr (kAddresses) {
        if (to_l1) {
          PrefetchLineTo<kInsert, true>(AtAddress(addr[(i + kAhead) & kRingMask]));
        } else {
          PrefetchLine<kInsert>(AtAddress(addr[(i + kAhead) & kRingMask]));
        }
      } else {
        p.template Prefetch<kInsert>(src.Hashes(ring, i + kAhead)[0]);
      }
    } else if (prefetch && i + kAhead - n < nnext) {
      p.template Prefetch<kInsert>(next[i + kAhead - n]);
    }
    const uint64_t h = src.Hashes(ring, i)[0];
    if constexpr (kAddresses) {
      ProbeAt<kInsert>(p, AtAddress(addr[i & kRingMask]), h, out, i);
    } else {
      ProbeOne<kInsert>(p, h, out, i);
    }
  }
  return CountHits<kInsert>(out, n);
}

// Over 8-byte keys, hashed with kHash.
template <bool kInsert, class P, HashKind kHash, bool kAddr = true>
HWY_INLINE size_t RunKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, bool prefetch,
                          bool to_l1, uint8_t* out) {
  const P p(f);
  const KeySource<P, kHash, kAddr> src(p, f, keys, seed);
  return RunRing<kInsert>(p, src, keys, n, nullptr, 0, prefetch, to_l1, out);
}

// Over 8-byte keys hashed with "xxh64", "rocksdb" or "foldmul" (CalledKeySource).
template <bool kInsert, class P, bool kAddr = true>
HWY_INLINE size_t RunCalledKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash,
                                bool prefetch, bool to_l1, uint8_t* out) {
  const P p(f);
  const CalledKeySource<P, kAddr> src(f, keys, n, seed, hash);
  return RunRing<kInsert>(p, src, keys, n, nullptr, 0, prefetch, to_l1, out);
}

// Over precomputed hashes h[0, n), whose successor next[0, nnext) (if the
// caller streams chunks) gets its look-ahead too. Probes without block
// addresses (classic, the atomic inserts) take PrefetchAhead
// (kernels/probe-inl.h): with nothing to compute ahead, a ring only adds work.
// Batches beyond the L3 (kAddr false: RunBatch's `direct`) keep the ring's
// steps without its addresses: PrefetchAhead's loop, which does not prefetch
// the hashes themselves, ran 1.25x the minimal probe's time where the ring's
// steps ran 1.10x (split256, 100M keys, Zen 4).
template <bool kInsert, class P, bool kAddr = true>
HWY_INLINE size_t RunHashes(const FilterRef& f, const uint64_t* h, size_t n, const uint64_t* next, size_t nnext,
                            bool prefetch, bool to_l1, uint8_t* out) {
  const P p(f);
  if constexpr (HasBlockAddresses<P>) {
    const HashSource<P, kAddr> src(f, h);
    return RunRing<kInsert>(p, src, h, n, next, nnext, prefetch, to_l1, out);
  } else if (prefetch) {
    PrimeAhead<AheadOf<P>(), kInsert>(p, h, n);
    PrefetchAhead<AheadOf<P>(), kInsert>(p, h, n, next, nnext, ProbeOneAt<kInsert, P>{p, out});
    return CountHits<kInsert>(out, n);
  } else {
    PrefetchAhead<0, kInsert>(p, h, n, next, nnext, ProbeOneAt<kInsert, P>{p, out});
    return CountHits<kInsert>(out, n);
  }
}

enum class Mode { kQuery, kInsert, kInsertAtomic };

// A lambda of RunBatch that forwards to one pipeline: inlined, or g++ 12
// keeps each instantiation out of line (+12-13% of the kernels' object code, 2026-12-03).
#ifndef BLOCKBLOOM_INLINE_LAMBDA
#define BLOCKBLOOM_INLINE_LAMBDA HWY_ATTR __attribute__((always_inline))
#endif

// Layout switch and prefetch decision (PrefetchMinBytes), once per batch. `in` holds keys (hashed
// here with `hash` and `seed`) if `keys`, else hashes; next[0, nnext) are
// hashes to prefetch after them. Atomic inserts take hashes only.
template <Mode kMode>
HWY_NOINLINE size_t RunBatch(const FilterRef& f, const uint64_t* in, size_t n, const uint64_t* next, size_t nnext,
                             bool keys, uint64_t seed, HashKind hash, uint8_t* out) {
  constexpr bool kInsert = kMode != Mode::kQuery;
  constexpr bool kAvx512 = HWY_TARGET == HWY_AVX3 || HWY_TARGET == HWY_AVX3_DL;
  const uint64_t min_bytes = kMode == Mode::kInsertAtomic ? kPrefetchMinBytes
                                                          : PrefetchMinBytes(f.layout, kMode == Mode::kInsert, kAvx512);
  const uint64_t bytes = PayloadBytes(f.layout, f.num_blocks);
  const bool prefetch = ShouldPrefetch(bytes, min_bytes);
  const bool to_l1 = kMode != Mode::kInsertAtomic && PrefetchToL1(bytes);
  // A probe with a form for filters beyond the caches (FarProbe: the same
  // bytes, other instructions) takes it from FarMinBytes on, its queries and
  // atomic inserts (whose vector insert writes an L1 scratch line), and its
  // plain inserts from FarInsertMinBytes on (sooner on Zen 5).
  const bool far = bytes >= (kMode == Mode::kInsert ? FarInsertMinBytes() : FarMinBytes());
  // Queries and plain inserts beyond the L3 (FarMinBytes, for inserts too)
  // compute each line's address from its hash at the prefetch and again at
  // the probe, with no ring of block addresses (KeySource, CalledKeySource and
  // RunHashes with kAddr false): there the ring, which saves that work in the
  // caches, cost its batches 11-17% of their time. Zen 4 guest, 100M keys
  // (125 MB), `aes`, one process, 11-15 rounds of 2^22 keys, against one
  // random line read a precomputed hash 128 keys ahead: key batches
  // 1.18-1.23x that read's time with the ring, 1.02-1.07x without (split256,
  // split512, sectorized512, register64); at 1M and 10M keys (1.2 and 12 MB)
  // the ring's batches ran 0.85-0.89x the others' time, and keep it. Inserts
  // at 100M keys, peer_ab, the two forms' binaries alternating: 4.22-5.54 ->
  // 3.44-4.12 ns/key without the ring in three passes of four (the fourth
  // crossed a change of the host's speed: split256 4.31 -> 6.5).
  const bool direct = kMode != Mode::kInsertAtomic && bytes >= FarMinBytes();
  auto run = [&](auto probe_tag, auto layout_tag) -> size_t {
    using Plain = typename decltype(probe_tag)::type;
    // Parquet's layout (split256) with Parquet's hash (xxh64), the pair most
    // xxh64 batches are, keeps its pipeline with the hash inlined, unchanged.
    constexpr bool kInlineXxh64 = requires { requires decltype(layout_tag)::type::kInlineXxh64; };
    using P = std::conditional_t<kMode == Mode::kInsertAtomic, AtomicInsertProbe<Plain>, Plain>;
    // run_with(std::bool_constant<kAddr>) with kAddr = !direct where the
    // probe has block addresses to keep (the ring), else true.
    auto by_addr = [&](auto run_with) BLOCKBLOOM_INLINE_LAMBDA -> size_t {
      if constexpr (kMode != Mode::kInsertAtomic && HasBlockAddresses<P>) {
        if (direct) return run_with(std::false_type());
      }
      return run_with(std::true_type());
    };
    if constexpr (kMode != Mode::kInsertAtomic) {
      if (keys) {
        auto with = [&](auto hash_tag) HWY_ATTR -> size_t {
          constexpr HashKind kHash = decltype(hash_tag)::value;
          return by_addr([&](auto addr) BLOCKBLOOM_INLINE_LAMBDA {
            return RunKeys<kInsert, P, kHash, decltype(addr)::value>(f, in, n, seed, prefetch, to_l1, out);
          });
        };
        auto called = [&]() HWY_ATTR -> size_t {
          return by_addr([&](auto addr) BLOCKBLOOM_INLINE_LAMBDA {
            return RunCalledKeys<kInsert, P, decltype(addr)::value>(f, in, n, seed, hash, prefetch, to_l1, out);
          });
        };
        switch (hash) {
          case HashKind::kXxh64:
            if constexpr (kInlineXxh64) return with(std::integral_constant<HashKind, HashKind::kXxh64>());
            return called();
          case HashKind::kRocksdb:
          case HashKind::kFoldMul: return called();
          case HashKind::kMulx: return with(std::integral_constant<HashKind, HashKind::kMulx>());
          case HashKind::kAes:
            if (NativeAesUsable()) return with(std::integral_constant<HashKind, kAesNative>());
            // A CPU without AES instructions (a VM hiding them): the scalar reference's key batch, where the
            // rounds' software form dominates anyway (one instantiation of this pipeline fewer per target).
            if constexpr (kInsert) {
              reference::ReferenceOps().insert_keys(f, in, n, seed, hash);
              return 0;
            } else {
              return reference::ReferenceOps().query_keys(f, in, n, seed, hash, out);
            }
          case HashKind::kXxh3: break;
        }
        return with(std::integral_constant<HashKind, HashKind::kXxh3>());
      }
    }
    return by_addr([&](auto addr) BLOCKBLOOM_INLINE_LAMBDA {
      return RunHashes<kInsert, P, decltype(addr)::value>(f, in, n, next, nnext, prefetch, to_l1, out);
    });
  };
  auto run_far = [&](auto probe_tag, auto layout_tag) -> size_t {
    using Plain = typename decltype(probe_tag)::type;
    if constexpr (requires { typename Plain::FarProbe; }) {
      if (far) return run(std::type_identity<typename Plain::FarProbe>(), layout_tag);
    }
    return run(probe_tag, layout_tag);
  };
  switch (f.layout) {
#define BLOCKBLOOM_DISPATCH_CASE(Name) \
  case Layout::k##Name:                \
    return Name::Visit(f, [&](auto probe_tag) { return run_far(probe_tag, std::type_identity<Name>()); });
    BLOCKBLOOM_FOR_EACH_LAYOUT(BLOCKBLOOM_DISPATCH_CASE)
#undef BLOCKBLOOM_DISPATCH_CASE
  }
  return 0;
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
