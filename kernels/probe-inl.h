// Per-target probes (stages 2-4: pick the block, build the probe mask, test or
// set it) and the batch pipeline that drives them. Each layout is a small
// policy with Prefetch / Query / Insert of one hash; the pipeline is shared.
// The bit layout is the one of kernels/reference.cc, which defines it.
#if defined(BLOCKBLOOM_KERNELS_PROBE_INL_H_) == defined(HWY_TARGET_TOGGLE)
#ifdef BLOCKBLOOM_KERNELS_PROBE_INL_H_
#undef BLOCKBLOOM_KERNELS_PROBE_INL_H_
#else
#define BLOCKBLOOM_KERNELS_PROBE_INL_H_
#endif

#include <cstring>

#include "hwy/cache_control.h"
#include "hwy/highway.h"
#include "kernels/layout.h"
#include "kernels/reference.h"
#include "kernels/xxh3-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// ---- Look-ahead -------------------------------------------------------------
// Little's law: to hide a DRAM miss of ~100 ns while the core retires one key
// every ~0.8-1 ns, about 100-125 keys must be in flight between the prefetch
// and the probe; one Zen 3 core tracks 24 L1 misses plus L2 prefetch buffers,
// so the look-ahead is rounded up to 128 keys (8 KiB of lines, well within L1/L2).
inline constexpr size_t kPrefetchDistance = 128;
// Keys are hashed in chunks of this many (4 KiB of hashes per buffer, two
// buffers): large enough to amortize the hash loop, small enough to stay in L1.
inline constexpr size_t kChunk = 512;
static_assert(kPrefetchDistance <= kChunk, "look-ahead must fit in one chunk");
// Below this size the filter stays in L2 (Zen 3: 512 KiB L2 per core) and
// software prefetch only adds instructions.
inline constexpr uint64_t kPrefetchMinBytes = 512 * 1024;

HWY_INLINE void PrefetchRead(const void* p) { hwy::Prefetch(p); }
HWY_INLINE void PrefetchWrite(const void* p) { __builtin_prefetch(p, 1, 3); }

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

// ---- split256 and sectorized512: one bit in one word per zone ---------------
// kWords u32 words per block in kZones zones of kWords/kZones words. Lane w of
// the probe mask: zone z = w / per_zone computes x = lo32 * kSalt[z]; the lane
// gets bit x >> 27 if the word selector (x >> (27 - sel_bits)) & (per_zone - 1)
// equals w % per_zone, else nothing. One vector op sequence per key, no gather,
// every shift a compile-time constant (kZones is a template parameter).
template <size_t kWords, size_t kZones>
class SectorProbe {
  static constexpr uint32_t kPerZone = kWords / kZones;
  static constexpr int kSelBits = kPerZone == 1 ? 0 : kPerZone == 2 ? 1 : kPerZone == 4 ? 2 : kPerZone == 8 ? 3 : 4;
  static_assert((1u << kSelBits) == kPerZone, "zones must split the words evenly in powers of two");

 public:
  explicit SectorProbe(const FilterRef& f) : block0_(reinterpret_cast<uint32_t*>(f.bits)), nblocks_(f.nblocks) {
    for (uint32_t w = 0; w < kWords; ++w) {
      salt_[w] = kSalt[w / kPerZone];
      lane_sel_[w] = w % kPerZone;
    }
  }

  const void* Block(uint64_t h) const { return block0_ + BlockIndex(h, nblocks_) * kWords; }

  HWY_INLINE bool Query(uint64_t h) const {
    const uint32_t* HWY_RESTRICT block = block0_ + BlockIndex(h, nblocks_) * kWords;
    const D d;
    const size_t N = hn::Lanes(d);
    const auto lo = hn::Set(d, static_cast<uint32_t>(h));
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < kWords; v += N) {
      miss = hn::Or(miss, hn::AndNot(hn::Load(d, block + v), Mask(d, lo, v)));
    }
    return hn::AllTrue(d, hn::Eq(miss, hn::Zero(d)));
  }

  HWY_INLINE void Insert(uint64_t h) const {
    uint32_t* HWY_RESTRICT block = block0_ + BlockIndex(h, nblocks_) * kWords;
    const D d;
    const size_t N = hn::Lanes(d);
    const auto lo = hn::Set(d, static_cast<uint32_t>(h));
    for (size_t v = 0; v < kWords; v += N) {
      hn::Store(hn::Or(hn::Load(d, block + v), Mask(d, lo, v)), d, block + v);
    }
  }

 private:
  using D = hn::CappedTag<uint32_t, kWords>;

  HWY_INLINE hn::Vec<D> Mask(D d, hn::Vec<D> lo, size_t v) const {
    const auto x = hn::Mul(lo, hn::Load(d, salt_ + v));
    const auto bit = hn::Shl(hn::Set(d, 1u), hn::ShiftRight<27>(x));
    if constexpr (kSelBits == 0) {
      return bit;  // every word is its own zone (split256, sectorized512 with k = 16)
    } else {
      const auto sel = hn::And(hn::ShiftRight<27 - kSelBits>(x), hn::Set(d, kPerZone - 1));
      return hn::IfThenElseZero(hn::Eq(sel, hn::Load(d, lane_sel_ + v)), bit);
    }
  }

  uint32_t* block0_;
  uint64_t nblocks_;
  alignas(64) uint32_t salt_[kWords];
  alignas(64) uint32_t lane_sel_[kWords];
};

// ---- blocked512: k bits anywhere in 512 ---------------------------------------
// Probe i's bit is (lo32 * kGoldenPow[i]) >> 23: word bit >> 5, bit bit & 31.
// The k probes are computed together in u32 lanes (up to 16). Query: each lane
// fetches its word from the line with register permutes (one 16-lane permute
// on AVX-512; on narrower vectors one permute per vector-sized part of the
// line, merged by the word's part; a gather on 128-bit vectors). Insert is k
// scalar ORs into the line: there is no scatter below AVX-512, and building the
// whole-line mask in vectors costs more than k ORs into one L1-resident line.
class Blocked512Probe {
 public:
  explicit Blocked512Probe(const FilterRef& f)
      : block0_(reinterpret_cast<uint32_t*>(f.bits)), nblocks_(f.nblocks), k_(f.k) {
    for (uint32_t i = 0; i < 16; ++i) {
      mul_[i] = kGoldenPow[i];
      active_[i] = i < f.k ? ~0u : 0u;
    }
  }

  const void* Block(uint64_t h) const { return block0_ + BlockIndex(h, nblocks_) * 16; }

  HWY_INLINE bool Query(uint64_t h) const {
    const uint32_t* HWY_RESTRICT block = block0_ + BlockIndex(h, nblocks_) * 16;
    const D d;
    const DI di;
    const size_t N = hn::Lanes(d);
    const auto lo = hn::Set(d, static_cast<uint32_t>(h));
    auto miss = hn::Zero(d);
    for (size_t v = 0; v < k_; v += N) {
      const auto bit = hn::ShiftRight<23>(hn::Mul(lo, hn::Load(d, mul_ + v)));
      const auto word_idx = hn::BitCast(di, hn::ShiftRight<5>(bit));
      const auto mask =
          hn::And(hn::Load(d, active_ + v), hn::Shl(hn::Set(d, 1u), hn::And(bit, hn::Set(d, 31u))));
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
  alignas(64) uint32_t mul_[16];
  alignas(64) uint32_t active_[16];
};

// ---- register64: k bits in one 64-bit word -----------------------------------
class Register64Probe {
 public:
  explicit Register64Probe(const FilterRef& f)
      : word0_(reinterpret_cast<uint64_t*>(f.bits)), nblocks_(f.nblocks), k_(f.k) {}

  const void* Block(uint64_t h) const { return word0_ + BlockIndex(h, nblocks_); }

  HWY_INLINE uint64_t Mask(uint64_t h) const {
    const uint32_t lo = static_cast<uint32_t>(h);
    uint64_t mask = 0;
    ForEachProbe(k_, [&](int i) { mask |= uint64_t{1} << ((lo * kGoldenPow[i]) >> 26); });
    return mask;
  }
  HWY_INLINE bool Query(uint64_t h) const {
    const uint64_t mask = Mask(h);
    return (word0_[BlockIndex(h, nblocks_)] & mask) == mask;
  }
  HWY_INLINE void Insert(uint64_t h) const { word0_[BlockIndex(h, nblocks_)] |= Mask(h); }

 private:
  uint64_t* word0_;
  uint64_t nblocks_;
  uint32_t k_;
};

// ---- classic: k probes anywhere in m bits ----------------------------------------
class ClassicProbe {
 public:
  explicit ClassicProbe(const FilterRef& f) : bits_(f.bits), m_(f.nblocks), k_(f.k) {}

  // The classic filter touches k lines per key; the pipeline prefetches them all.
  template <bool kWrite>
  HWY_INLINE void PrefetchAll(uint64_t h) const {
    const uint64_t step = ClassicStep(h);
    uint64_t g = h;
    for (uint32_t i = 0; i < k_; ++i, g += step) {
      const uint8_t* p = bits_ + (ClassicIndex(g, m_) >> 3);
      if (kWrite) {
        PrefetchWrite(p);
      } else {
        PrefetchRead(p);
      }
    }
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

// ---- Concurrent inserts: any layout's probe, with the reference's atomic OR --------
// The lock-prefixed ORs cost far less than the miss they follow, so what
// matters is that the pipeline prefetches ahead as for plain inserts.
template <class P>
class AtomicInsertProbe {
 public:
  explicit AtomicInsertProbe(const FilterRef& f) : p_(f), f_(f) {}
  const void* Block(uint64_t h) const { return p_.Block(h); }
  template <bool kWrite>
  HWY_INLINE void PrefetchAll(uint64_t h) const;
  HWY_INLINE void Insert(uint64_t h) const { reference::InsertHashAtomic(f_, h); }

 private:
  P p_;
  FilterRef f_;
};

template <bool kWrite, class P>
HWY_INLINE void PrefetchKey(const P& p, uint64_t h) {
  if constexpr (std::is_same_v<P, ClassicProbe> || std::is_same_v<P, AtomicInsertProbe<ClassicProbe>>) {
    p.template PrefetchAll<kWrite>(h);
  } else if constexpr (kWrite) {
    PrefetchWrite(p.Block(h));
  } else {
    PrefetchRead(p.Block(h));
  }
}

template <class P>
template <bool kWrite>
HWY_INLINE void AtomicInsertProbe<P>::PrefetchAll(uint64_t h) const {
  if constexpr (std::is_same_v<P, ClassicProbe>) {
    p_.template PrefetchAll<kWrite>(h);
  } else {
    PrefetchWrite(p_.Block(h));
  }
}

// ---- The pipeline -------------------------------------------------------------
// `out` is null when inserting. Works over one buffer of hashes `cur[0, len)` whose successor `next[0, nlen)`
// is already hashed, so the look-ahead runs across the chunk boundary without a
// bubble. The first kPrefetchDistance keys of `cur` were prefetched by the
// previous call (or by Prime).
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
  size_t i = 0;
  if constexpr (kPrefetch) {
    // Two loops so that no key pays a branch on where its look-ahead lies.
    for (; i + kPrefetchDistance < len; ++i) {
      PrefetchKey<kInsert>(p, cur[i + kPrefetchDistance]);
      hits += ProbeOne<kInsert>(p, cur[i], out, i);
    }
    for (; i < len; ++i) {
      const size_t j = i + kPrefetchDistance - len;
      if (j < nlen) PrefetchKey<kInsert>(p, next[j]);
      hits += ProbeOne<kInsert>(p, cur[i], out, i);
    }
  } else {
    (void)next;
    (void)nlen;
    for (; i < len; ++i) hits += ProbeOne<kInsert>(p, cur[i], out, i);
  }
  return hits;
}

template <bool kInsert, bool kPrefetch, class P>
HWY_INLINE void Prime(const P& p, const uint64_t* h, size_t n) {
  if constexpr (kPrefetch) {
    for (size_t i = 0; i < n && i < kPrefetchDistance; ++i) PrefetchKey<kInsert>(p, h[i]);
  }
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
HWY_NOINLINE size_t Dispatch(const FilterRef& f, const uint64_t* in, size_t n, const uint64_t* next, size_t nnext,
                             bool keys, uint64_t seed, uint8_t* out) {
  constexpr bool kInsert = kMode != Mode::kQuery;
  const bool prefetch = PayloadBytes(f.layout, f.nblocks) >= kPrefetchMinBytes;
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
    case LayoutId::kBlocked512: return run(std::type_identity<Blocked512Probe>());
    case LayoutId::kSplit256: return run(std::type_identity<SectorProbe<8, 8>>());
    case LayoutId::kSectorized512:
      switch (f.k) {
        case 1: return run(std::type_identity<SectorProbe<16, 1>>());
        case 2: return run(std::type_identity<SectorProbe<16, 2>>());
        case 4: return run(std::type_identity<SectorProbe<16, 4>>());
        case 8: return run(std::type_identity<SectorProbe<16, 8>>());
        default: return run(std::type_identity<SectorProbe<16, 16>>());
      }
    case LayoutId::kRegister64: return run(std::type_identity<Register64Probe>());
    case LayoutId::kClassic: return run(std::type_identity<ClassicProbe>());
  }
  return 0;
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#endif  // include guard
