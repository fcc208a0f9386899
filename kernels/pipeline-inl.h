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

#include <type_traits>

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
// lines, within L1/L2): the larger filters need it and the smaller lose nothing.
// 48 against 128 in the kernels (A/B, medians of 2x3): 0.77-1.38x per row, no
// consistent winner within that noise.
inline constexpr size_t kPrefetchDistance = 128;
// Keys are hashed in chunks of kHashChunk (kernels.h).
inline constexpr size_t kChunk = kHashChunk;
static_assert(kPrefetchDistance <= kChunk, "look-ahead must fit in one chunk");
// Below this size the filter stays in L2 (Zen 3: 512 KiB L2 per core) and
// software prefetch only adds instructions.
inline constexpr uint64_t kPrefetchMinBytes = 512 * 1024;

// ---- Concurrent inserts: any layout's probe, with the reference's atomic OR --------
// The lock-prefixed ORs cost far less than the miss they follow, so what
// matters is that the pipeline prefetches ahead as for plain inserts.
template <class P>
class AtomicInsertProbe {
 public:
  explicit AtomicInsertProbe(const FilterRef& f) : p_(f), f_(f) {}
  template <bool kWrite>
  HWY_INLINE void Prefetch(uint64_t h) const {
    p_.template Prefetch<kWrite>(h);
  }
  HWY_INLINE void Insert(uint64_t h) const { reference::InsertHashAtomic(f_, h); }

 private:
  P p_;
  FilterRef f_;
};

// ---- The pipeline -------------------------------------------------------------
// PrefetchAhead (kernels/probe-inl.h) over one buffer of hashes `cur[0, len)`
// and its successor `next[0, nlen)`; `out` is null when inserting.
template <bool kInsert, class P>
HWY_INLINE size_t ProbeOne(const P& p, uint64_t h, uint8_t* out, size_t i) {
  if constexpr (kInsert) {
    (void)out;
    (void)i;
    p.Insert(h);
    return 0;
  } else {
    const bool r = p.Query(h);
    out[i] = static_cast<uint8_t>(r);
    return r;
  }
}

template <bool kInsert, bool kPrefetch, class P>
HWY_INLINE size_t RunChunk(const P& p, const uint64_t* HWY_RESTRICT cur, size_t len,
                           const uint64_t* HWY_RESTRICT next, size_t nlen, uint8_t* out) {
  size_t hits = 0;
  PrefetchAhead<kPrefetch ? kPrefetchDistance : 0, kInsert>(
      p, cur, len, next, nlen, [&](size_t i, uint64_t h) { hits += ProbeOne<kInsert>(p, h, out, i); });
  return hits;
}

template <bool kInsert, bool kPrefetch, class P>
HWY_INLINE void Prime(const P& p, const uint64_t* h, size_t n) {
  PrimeAhead<kPrefetch ? kPrefetchDistance : 0, kInsert>(p, h, n);
}

// Over precomputed hashes: one long chunk, whose successor (if the caller
// streams chunks) gets its look-ahead too.
template <bool kInsert, bool kPrefetch, class P>
HWY_INLINE size_t RunHashes(const FilterRef& f, const uint64_t* h, size_t n, const uint64_t* next, size_t nnext,
                            uint8_t* out) {
  const P p(f);
  Prime<kInsert, kPrefetch>(p, h, n);
  return RunChunk<kInsert, kPrefetch>(p, h, n, next, nnext, out);
}

// Over keys: hash chunk c + 1 while chunk c's probes are pending, so the
// hashes of the look-ahead window are always ready.
template <bool kInsert, bool kPrefetch, class P>
HWY_INLINE size_t RunKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed,
                          uint8_t* out) {
  const P p(f);
  HWY_ALIGN uint64_t buf[2][kChunk];
  size_t len = n < kChunk ? n : kChunk;
  HashU64Batch(keys, len, seed, buf[0]);
  Prime<kInsert, kPrefetch>(p, buf[0], len);
  size_t hits = 0;
  size_t start = 0;
  for (size_t c = 0; start < n; ++c) {
    const size_t next_start = start + len;
    const size_t nlen = next_start >= n ? 0 : (n - next_start < kChunk ? n - next_start : kChunk);
    if (nlen) HashU64Batch(keys + next_start, nlen, seed, buf[(c + 1) & 1]);
    hits += RunChunk<kInsert, kPrefetch>(p, buf[c & 1], len, buf[(c + 1) & 1], nlen,
                                         kInsert ? out : out + start);
    start = next_start;
    len = nlen;
  }
  return hits;
}

enum class Mode { kQuery, kInsert, kInsertAtomic };

// Layout switch and prefetch decision, once per batch. `in` holds keys (hashed
// here with `seed`) if `keys`, else hashes; next[0, nnext) are hashes to
// prefetch after them.
template <Mode kMode>
HWY_NOINLINE size_t RunBatch(const FilterRef& f, const uint64_t* in, size_t n, const uint64_t* next, size_t nnext,
                             bool keys, uint64_t seed, uint8_t* out) {
  constexpr bool kInsert = kMode != Mode::kQuery;
  const bool prefetch = PayloadBytes(f.layout, f.num_blocks) >= kPrefetchMinBytes;
  auto run = [&](auto probe_tag) -> size_t {
    using Plain = typename decltype(probe_tag)::type;
    using P = std::conditional_t<kMode == Mode::kInsertAtomic, AtomicInsertProbe<Plain>, Plain>;
    if (keys) {
      return prefetch ? RunKeys<kInsert, true, P>(f, in, n, seed, out)
                      : RunKeys<kInsert, false, P>(f, in, n, seed, out);
    }
    return prefetch ? RunHashes<kInsert, true, P>(f, in, n, next, nnext, out)
                    : RunHashes<kInsert, false, P>(f, in, n, next, nnext, out);
  };
  switch (f.layout) {
#define BLOCKBLOOM_DISPATCH_CASE(Name) \
  case Layout::k##Name:                \
    return Name::Visit(f, run);
    BLOCKBLOOM_FOR_EACH_LAYOUT(BLOCKBLOOM_DISPATCH_CASE)
#undef BLOCKBLOOM_DISPATCH_CASE
  }
  return 0;
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
