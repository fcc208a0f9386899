// SPDX-License-Identifier: Apache-2.0
// The dispatch module (Highway's skeleton shape): this file re-includes itself
// once per target through foreach_target.h; each pass defines that target's
// Ops table, and the HWY_ONCE part collects the tables and picks one. The
// query batches, the hash and the one-key ops are defined here; the insert
// batches in kernels/kernels_insert.cc (declared in kernels/kernels-inl.h), a
// translation unit of its own so that the two compile in parallel (why: there).
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>

#include "kernels/kernels.h"
#include "kernels/registry.h"

#include "kernels/hwy_targets.h"  // before foreach_target.h

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "kernels/kernels.cc"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "kernels/aes-inl.h"
#include "kernels/highway.h"
#include "kernels/kernels-inl.h"
#include "kernels/pipeline-inl.h"
#include "kernels/xxh3-inl.h"

HWY_BEFORE_NAMESPACE();
namespace blockbloom::kernels {
namespace HWY_NAMESPACE {

void HashU64(const uint64_t* keys, size_t n, uint64_t seed, HashKind kind, uint64_t* out) {
  if (kind == HashKind::kXxh3) return HashU64Batch(keys, n, seed, out);
  const uint64_t c = KeyHashConstant(kind, seed);
  if (kind == HashKind::kAes && NativeAesUsable()) {
    // Eight keys at a time in VAES registers where the CPU has them (kernels/aes-inl.h), the rest one by one.
    size_t i = AesX8Usable() ? AesU64NativeRunsOf8(keys, n, c, out) : 0;
    for (; i < n; ++i) out[i] = AesU64Native(keys[i], c);
    return;
  }
  for (size_t i = 0; i < n; ++i) out[i] = HashU64WithConstant(keys[i], kind, c);
}
size_t QueryHashes(const FilterRef& f, const uint64_t* hashes, size_t n, uint8_t* out) {
  return RunBatch<Mode::kQuery>(f, hashes, n, nullptr, 0, false, 0, HashKind::kXxh3, out);
}
size_t QueryHashesAhead(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next, size_t nnext,
                        uint8_t* out) {
  return RunBatch<Mode::kQuery>(f, hashes, n, next, nnext, false, 0, HashKind::kXxh3, out);
}
size_t QueryKeys(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash, uint8_t* out) {
  return RunBatch<Mode::kQuery>(f, keys, n, nullptr, 0, true, seed, hash, out);
}

// ---- One key -----------------------------------------------------------------
// The batch's probe type for (layout, k), built per call from the filter's
// words and run once: what the pipeline does per key, without the pipeline.
// Queries take the words, inserts a pointer to them (OneKeyArgs, view.h).
// (H: uint64_t, or the AesHash of KeyHashOne, kernels/aes-inl.h.)
// A block probe's block is found by BlockIndex's shifts here, not by
// BlockOffset's MULX (kernels/probe-inl.h), whose AND constant a call would
// rebuild every key: peer_ab's dispatched split256 queries ran ~5% slower with
// it ("foldmul", Zen 4 guest), where typed.h's loops, which hold the constant,
// ran faster.
// The probe a single-key query runs for the batch's probe P: the split-block
// probes' one-call form, whose constant splats come from memory (Splat,
// kernels/probe-inl.h); the others as they are. Inserts keep P: with the
// splats from memory sectorized512's `aes` inserts ran 1.06-1.09x their time
// (peer_ab, Zen 4 guest, three alternating runs), its queries 0.91-0.94x.
template <class P>
struct OneCallOf {
  using type = P;
};
template <size_t kWords, size_t kZones>
struct OneCallOf<SectorProbe<kWords, kZones, false>> {
  using type = SectorProbe<kWords, kZones, false, true>;
};
template <>
struct OneCallOf<Split512ProbeT<false>> {
  using type = Split512ProbeT<false, true>;
};
template <class P>
using OneCallProbe = typename OneCallOf<P>::type;

template <class P, class H>
HWY_INLINE uint8_t* CalledBlock(const uint8_t* bits, uint64_t num_blocks, const H& hash) {
  return const_cast<uint8_t*>(bits) + (BlockIndex(static_cast<uint64_t>(hash), num_blocks) << P::kBlockShift);
}
template <class P, class H = uint64_t>
bool QueryOne(const uint8_t* bits, uint64_t num_blocks, uint32_t k, H hash) {
  const OneCallProbe<P> p(FilterRef{const_cast<uint8_t*>(bits), num_blocks, k, Layout::kBlocked512});
  if constexpr (requires { P::kBlockShift; }) {
    return p.QueryAt(CalledBlock<P>(bits, num_blocks, hash), hash);
  } else {
    return p.Query(hash);
  }
}
template <class P, class H = uint64_t>
void InsertOne(const OneKeyArgs* a, H hash) {
  const P p(RefOf(*a, Layout::kBlocked512));
  if constexpr (requires { P::kBlockShift; }) {
    InsertAloneAt(p, CalledBlock<P>(a->bits, a->num_blocks, hash), hash);
  } else {
    InsertAlone(p, hash);
  }
}
template <class P, HashKind kHash>
bool QueryKeyOne(const uint8_t* bits, uint64_t num_blocks, uint32_t k, uint64_t seed_const, uint64_t key) {
  return QueryOne<P>(bits, num_blocks, k, KeyHashOne<kHash, true>(key, seed_const));
}
template <class P, HashKind kHash>
void InsertKeyOne(const OneKeyArgs* a, uint64_t key) {
  InsertOne<P>(a, KeyHashOne<kHash, true>(key, a->seed_const));
}
// The batch's atomic probe for one key (probes with AtomicByWord64: whole u64
// words ORed, and none a relaxed load finds holding the key's bits).
template <class P>
void InsertOneAtomic(const OneKeyArgs* a, uint64_t hash) {
  static_assert(AtomicByWord64<P>, "the others take the reference's atomic insert");
  const AtomicInsertProbe<P> p(RefOf(*a, Layout::kBlocked512));
  p.Insert(hash);
}
template <class P, HashKind kHash>
OneKeyOps OneKeyWith(Layout layout, uint32_t k) {
  InsertOneFn insert_atomic = nullptr;
  if constexpr (AtomicByWord64<P>) {
    insert_atomic = &InsertOneAtomic<P>;
  } else {
    insert_atomic = reference::OneKey(layout, k, kHash == kAesNative ? HashKind::kAes : kHash).insert_atomic;
  }
  return OneKeyOps{&QueryOne<P>, &InsertOne<P>, &QueryKeyOne<P, kHash>, &InsertKeyOne<P, kHash>, insert_atomic};
}
OneKeyOps OneKey(Layout layout, uint32_t k, HashKind hash) {
  const FilterRef f{nullptr, 0, k, layout};
  auto pick = [hash, layout, k](auto probe_tag) {
    using P = typename decltype(probe_tag)::type;
    switch (hash) {
      case HashKind::kXxh64: return OneKeyWith<P, HashKind::kXxh64>(layout, k);
      case HashKind::kMulx: return OneKeyWith<P, HashKind::kMulx>(layout, k);
      case HashKind::kRocksdb: return OneKeyWith<P, HashKind::kRocksdb>(layout, k);
      case HashKind::kFoldMul: return OneKeyWith<P, HashKind::kFoldMul>(layout, k);
      case HashKind::kAes:
        // Without AES instructions: the scalar reference's probes, as its software rounds dominate.
        return NativeAesUsable() ? OneKeyWith<P, kAesNative>(layout, k) : reference::OneKey(layout, k, hash);
      case HashKind::kXxh3: break;
    }
    return OneKeyWith<P, HashKind::kXxh3>(layout, k);
  };
  switch (layout) {
#define BLOCKBLOOM_ONE_KEY_CASE(Name) \
  case Layout::k##Name:               \
    return Name::Visit(f, pick);
    BLOCKBLOOM_FOR_EACH_LAYOUT(BLOCKBLOOM_ONE_KEY_CASE)
#undef BLOCKBLOOM_ONE_KEY_CASE
  }
  return Blocked512::Visit(f, pick);
}

const Ops* GetOps() {
  static const Ops ops{HWY_TARGET,         hwy::TargetName(HWY_TARGET), kPrefetchDistance, &HashU64,
                       &InsertHashes,      &QueryHashes,                &InsertHashesAhead, &QueryHashesAhead,
                       &InsertHashesAtomic, &InsertKeys,                &QueryKeys,         &OneKey};
  return &ops;
}

}  // namespace HWY_NAMESPACE
}  // namespace blockbloom::kernels
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace blockbloom::kernels {

HWY_EXPORT(GetOps);

namespace {

const TargetRegistry<Ops>& GetRegistry() {
  static const TargetRegistry<Ops> r(HWY_DISPATCH_TABLE(GetOps));
  return r;
}

const Ops* Find(std::string_view name) {
  const std::string want = LowerAscii(name);
  for (const Ops* o : GetRegistry().all()) {
    if (want == o->name && Supported(*o)) return o;
  }
  return nullptr;
}

const Ops* Best() {
  for (const Ops* o : GetRegistry().all()) {
    if (Supported(*o)) return o;
  }
  return GetRegistry().all().back();  // the fallback runs everywhere
}

std::atomic<const Ops*> g_active{nullptr};

}  // namespace

std::span<const Ops* const> CompiledTargets() { return GetRegistry().all(); }

bool Supported(const Ops& ops) { return (hwy::SupportedTargets() & ops.target) != 0; }

const Ops& Active() {
  const Ops* a = g_active.load(std::memory_order_acquire);
  if (a != nullptr) return *a;
  const Ops* chosen = Best();
  if (const char* env = std::getenv("BLOCKBLOOM_TARGET"); env != nullptr && *env != '\0') {
    if (LowerAscii(env) != "auto") {
      if (const Ops* pinned = Find(env)) {
        chosen = pinned;
      } else {
        std::fprintf(stderr,
                     "blockbloom: BLOCKBLOOM_TARGET=%s is not a compiled target this CPU "
                     "supports; using %s\n",
                     env, chosen->name);
      }
    }
  }
  const Ops* expected = nullptr;
  g_active.compare_exchange_strong(expected, chosen, std::memory_order_acq_rel);
  return *g_active.load(std::memory_order_acquire);
}

namespace {

// A cache's size as glibc's sysconf reports it (`name`: _SC_LEVEL2_CACHE_SIZE
// or _SC_LEVEL3_CACHE_SIZE; from CPUID on x86), clamped to [lo, hi], or
// `unknown` where the C library does not say (AArch64's glibc reports 0).
uint64_t CacheBytes(int name, uint64_t lo, uint64_t hi, uint64_t unknown) {
  const long v = sysconf(name);
  if (v <= 0) return unknown;
  return std::clamp<uint64_t>(static_cast<uint64_t>(v), lo, hi);
}

// The L2 of the core this runs on, in bytes, clamped to [256 KiB, 2 MiB]
// (Sapphire Rapids has 2 MiB; a larger report is taken as 2 MiB), 1 MiB
// where unknown. So no threshold exceeds 4 MiB.
uint64_t L2Bytes() {
  static const uint64_t bytes = CacheBytes(_SC_LEVEL2_CACHE_SIZE, uint64_t{256} << 10, uint64_t{2} << 20, uint64_t{1} << 20);
  return bytes;
}

// The CPU's vendor and its family and model as CPUID leaves 0 and 1 give them
// (the extended fields folded in); kOther with zeros off x86 or where CPUID
// says nothing.
struct CpuModel {
  enum Vendor : uint8_t { kOther, kAmd, kIntel } vendor = kOther;
  unsigned family = 0;
  unsigned model = 0;
};
CpuModel ReadCpuModel() {
  CpuModel cpu;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0) return cpu;
  // The vendor string in EBX, EDX, ECX: "AuthenticAMD", "GenuineIntel".
  if (b == 0x68747541u && d == 0x69746e65u && c == 0x444d4163u) cpu.vendor = CpuModel::kAmd;
  if (b == 0x756e6547u && d == 0x49656e69u && c == 0x6c65746eu) cpu.vendor = CpuModel::kIntel;
  if (__get_cpuid(1, &a, &b, &c, &d) == 0) return CpuModel{};
  const unsigned base = (a >> 8) & 0xF;
  cpu.family = base == 0xF ? base + ((a >> 20) & 0xFF) : base;
  cpu.model = (a >> 4) & 0xF;
  if (base == 0x6 || base == 0xF) cpu.model |= ((a >> 16) & 0xF) << 4;
#endif
  return cpu;
}

// Whether this is an AMD CPU of family 1Ah (Zen 5), from CPUID leaves 0 and 1,
// read once. There a plain batch insert's 512-bit load and store of a line
// fetched from L2 or beyond, not prefetched, stall: split512's and
// sectorized512's (k = 8) inserts without prefetch ran 1.5-2.7x the time of the
// same inserts with the line as two 256-bit halves at every filter size from
// 768 KiB to 6 MiB (at 512 KiB 1.01-1.39x), while at 32 and 256 KiB the halves
// cost 6-21%: the line's load and store did not stall there (why not, a PMU
// would tell). 2-vCPU EPYC guest, family 26 model 2, avx3_dl and avx3, aes, the
// bench's --bb_preset=prefetch, medians of 2 runs of 3 repetitions,
// 2026-11-28. Prefetching the line (for writing) hides the stall too, but
// below twice the L2 the halves without prefetch ran 0.78-0.93x the time of
// the line with it; beyond the caches the two forms are even. The Zen 4 guest
// (family 19h) has no such stall: there the halves cost 4-16% below the L3
// (kernels/split512-inl.h), as they may on the CPUs not measured (Intel: none).
// What stalls is the 512-bit load before the store, not the store: the far
// form reads the halves and writes the line back with one 512-bit store
// (LineOr, kernels/probe-inl.h), and that ran 0.91-0.99x the time of two
// 256-bit read-OR-writes for split512's inserts at 10M keys, 0.90-0.98x for
// sectorized512's, 0.97-1.0x at 1M and 0.97-1.03x at 100M (the bench's Boost
// preset, aes, A/B of alternating binaries, medians of 5 repetitions in 3
// rounds, 3 in 2 at 100M, 2026-11-29). In a harness of the pipeline (RunKeys,
// prefetch into the L1, 10M keys, medians of 5) the line at once ran 1.26-1.29
// ns/key, the two halves 1.11-1.14, the halves read and the line written at
// once 1.04-1.07; queries, which only read, ran faster with the line at once
// (0.98 against 1.05). The atomic inserts, whose far probe ORs into a scratch
// line from FarMinBytes on, ran 0.78-0.85x the time at 100M keys (one and two
// threads, the same A/B). The Zen 4 guest's far form (from FarMinBytes) was
// measured with two halves written; its one store there is not measured (Zen
// 4 splits 512-bit operations into two 256-bit halves). On the Emerald Rapids
// guest (IntelSprClass below) the far form, taken for every batch in one
// process against the default in alternating rounds (medians of 21 rounds of
// the per-round ratio, avx3_dl, aes, 2026-11-29), ran 1.07-1.13x the time of
// the line at once for split512's and sectorized512's inserts at 1M and 10M
// keys (queries at 10M 1.01-1.03x), and at 100M, where it is the default, the
// line at once ran 1.04x (split512's inserts) and 0.97x (sectorized512's
// queries): from FarMinBytes there too.
bool Zen5() {
  static const bool zen5 = [] {
    const CpuModel cpu = ReadCpuModel();
    return cpu.vendor == CpuModel::kAmd && cpu.family == 0x1A;
  }();
  return zen5;
}

// Whether this is an Intel Xeon of the Sapphire Rapids class (family 6, model
// 0x8F Sapphire Rapids or 0xCF Emerald Rapids: Golden and Raptor Cove cores,
// L2 2 MiB per core), from CPUID leaves 0 and 1, read once. Its rules below
// (PrefetchMinBytes, PrefetchToL1) were measured on an Emerald Rapids guest;
// Sapphire Rapids, the same core with a smaller L3, takes them unmeasured, and
// other Intel CPUs keep the defaults.
bool IntelSprClass() {
  static const bool spr = [] {
    const CpuModel cpu = ReadCpuModel();
    return cpu.vendor == CpuModel::kIntel && cpu.family == 6 && (cpu.model == 0x8F || cpu.model == 0xCF);
  }();
  return spr;
}

}  // namespace

uint64_t FarMinBytes() {
  static const uint64_t bytes = CacheBytes(_SC_LEVEL3_CACHE_SIZE, uint64_t{16} << 20, uint64_t{64} << 20, uint64_t{32} << 20);
  return bytes;
}

uint64_t FarInsertMinBytes() { return Zen5() ? kPrefetchMinBytes : FarMinBytes(); }

// kPrefetchMinBytes (kernels/kernels.h, 512 KiB) but for four cases measured
// on the AVX-512 targets of the Zen 4 guest (L2 1 MiB per core; avx3_dl,
// xxh3; filters of 32 KiB to 3.5 MiB; each batch row with and without
// prefetch, medians of 6-8 alternating runs of 5 repetitions, 2026-11-27;
// bench/results/prefetch_threshold_zen4.md):
//   - split256's and split512's inserts, one 512-bit OR a key there, ran 4-19%
//     faster without prefetch from 512 KiB to 2 MiB (at the 1M-key filter's
//     1.19 MiB, 10-11%); from 2.5 MiB split256's ran 9-19% slower without it,
//     split512's even. Their window of keys overlaps L3's latency by itself
//     until about twice the L2.
//   - Their queries ran 1-9% faster without prefetch at 512 and 768 KiB and
//     even at 1 MiB (within 2%): prefetch from the L2's size.
//   - blocked512's inserts (k scalar ORs into the line) ran 7-11% faster with
//     prefetch at every size from 32 KiB, where the line is in L1 already.
//   - register64's inserts, one OR a key in general registers since its batch
//     probes a step of 8 keys at once (kernels/register64-inl.h), ran 11-20%
//     faster without prefetch from 384 KiB to 1.5 MiB and 4-16% slower from
//     2 MiB (the same sweep, 5 repetitions, after that change): the split rule.
// register64's queries (0.9-1.19x either way) and blocked512's gained 5-20%
// from prefetch from 768 KiB, and the rest was even at 512 KiB: the default
// for them. Pinned to avx2 (the same sweep) every layout wanted prefetch from
// 512 KiB (1-10%; 13-33% at 2 MiB; register64's inserts with the step of 8
// keys too, 0.85-0.94x from 768 KiB)
// and lost 0-7% to it below 384 KiB, blocked512's inserts too, and the split
// rule cost split512's inserts at 1M keys 1.17x their time: the other targets
// keep the default, as do the unmeasured ones (ARM). The split thresholds
// follow the L2 (Zen 3's 512 KiB, 2 MiB elsewhere), not measured but on the
// Sapphire Rapids class, which takes its own rule (below).
// classic (k lines a key, k prefetches a key) on every target: 16 keys ahead,
// prefetch cost its batches 0-44% up to 4 MiB and gained 1-3% at 6 MiB,
// 12-67% at 8-32 MiB (0.86-1.01x at 128 MiB), on avx3_dl and pinned to avx2
// alike (the bench's --bb_preset=prefetch, medians of 3, 2026-11-27;
// bench/results/prefetch_threshold_zen4.md).
//
// Zen 5 (Zen5() above) takes its own rule, on AVX2 and AVX-512 targets alike:
// there the core's window overlaps the L3's latency by itself well beyond the
// L2 (plain inserts of split512 and sectorized512 take the two halves from
// 512 KiB there, FarInsertMinBytes: what runs without prefetch). The same
// preset with `aes` keys (--bb_hash=aes), avx3_dl and pinned to avx2, 512 KiB
// to 12 MiB (2-vCPU EPYC guest, family 26 model 2, L2 1 MiB, L3 32 MiB,
// medians of 3, 2026-11-28; bench/results/prefetch_threshold_zen5.md):
//   - split256's, split512's, sectorized512's and register64's inserts ran
//     1.03-1.65x faster without prefetch up to 10 MiB on avx3_dl (1.01-1.29x
//     on avx2 up to 8 MiB; sectorized512's even there); at 12 MiB prefetch
//     was even or faster (0.83-1.06x; avx2 up to 1.96x from 10 MiB), at
//     16 MiB 2.4-3.3x faster (xxh3). From a quarter of the L3, at most 8 MiB: a
//     10M-key filter (12.5 MB) prefetches. (Since the L1 prefetch: AVX-512
//     targets' inserts from 5/16 of the L3, below.)
//   - split256's queries too: 1.06-1.57x faster without prefetch up to
//     1.25 MiB, 1.04-1.28x from 2 to 10 MiB on avx3_dl (avx2: 0.93-1.05x
//     from 2 MiB).
//   - split512's, sectorized512's and register64's queries lost 11-18% to
//     prefetch at 512 KiB on avx3_dl and were even from 1 MiB (avx2: even up
//     to 6 MiB): from the L2.
// blocked512 takes the rule above (prefetch helped blocked512 from 512 KiB on
// avx2 as well, 0.85x for its inserts).
// Once the batches prefetched into the L1 there (PrefetchToL1 below), the same
// sweep again (avx3_dl: 512 KiB to 12 MiB with medians of 3, 7 to 11.5 MiB
// inserts with medians of 5; avx2: 6 to 16 MiB, inserts and classic, medians
// of 3; 2026-11-29; bench/results/prefetch_threshold_zen5.md):
//   - On avx3_dl the four layouts' inserts still ran 1.01-1.19x faster
//     without prefetch at 8 and 9 MiB; at 10 MiB split512's and
//     sectorized512's gained (0.93-1.0x), split256's and register64's lost
//     3-16% up to 11.5 MiB and gained from 12 MiB (0.91-0.93x; the two 512-bit
//     layouts' 0.46-0.5x). Their inserts on AVX-512 targets prefetch from
//     5/16 of the L3, at most 10 MiB: earlier than 10 MiB loses, later loses
//     more (a 10M-key filter, 11.9 MiB, must prefetch). On avx2 the inserts
//     gained from 6 MiB (split512, sectorized512: 0.85-0.97x at 6-9 MiB) or
//     were even (split256, register64: 1.01-1.05x up to 9 MiB): the quarter.
//   - classic (prefetching k lines a key into the L2 on every CPU) lost 3-29%
//     to prefetch from 6 to 10 MiB on both targets (but absent queries at 8-9
//     MiB, 0.93-0.97x), as in the first sweep (6-24% from 6 to 8 MiB), and
//     gained from 11-12 MiB (inserts 0.81-0.85x; its present queries from
//     14 MiB, 0.44-0.59x, 1.04-1.1x at 12 MiB): from the same 5/16 of the L3,
//     not 6 MiB.
//
// The Sapphire Rapids class (IntelSprClass() above; L2 2 MiB per core) takes
// the opposite of the Zen 4 guest's split rule: its split layouts' batches,
// which the default leaves unprefetched up to 2 and 4 MiB, ran faster with
// prefetch from 875 KiB. Emerald Rapids guest (family 6 model 207, 2 vCPUs,
// L2 2 MiB, L3 300 MiB shared), avx3_dl, aes, 10 bits/key, each batch with
// prefetch forced on and off in one process, medians of 21 alternating rounds
// of the per-round ratio (a harness of InsertBatch/MayContainBatch,
// 2026-11-29), the time without prefetch over the time with it (into the L2):
//   - 500 KiB (400K keys): 0.83-0.93x for every layout and op: none.
//   - 875 KiB: split256's and register64's inserts 0.91-0.92x, the rest
//     1.02-1.13x; 1.19 MiB (1M keys): split256's inserts 1.04x, register64's
//     0.99x, split256's queries 1.11x, split512's inserts 1.09x and queries
//     1.27x, sectorized512's 1.15-1.27x; 1.75-2.1 MiB 1.09-1.49x; 3.1-7.5 MiB
//     1.0-1.42x. So kPrefetchMinBytes but for split256's and register64's
//     AVX-512 inserts, from half the L2.
//   - Pinned to avx2 (kPrefetchMinBytes there already) 1.02-1.24x at 1M keys.
// blocked512 and classic keep the default (blocked512's 1.09-1.48x and
// classic's 0.74-0.82x at 1M and 1.7M keys agree with it).
uint64_t PrefetchMinBytes(Layout layout, bool insert, bool avx512) {
  if (Zen5()) {
    // FarMinBytes() is the L3 (clamped to [16, 64] MiB): a quarter of it,
    // 4-8 MiB, and 5/16 of it, 5-10 MiB.
    const uint64_t l3 = FarMinBytes();
    const uint64_t quarter_l3 = std::min(l3 / 4, uint64_t{8} << 20);
    const uint64_t five_sixteenths_l3 = std::min(l3 / 16 * 5, uint64_t{10} << 20);
    if (layout == Layout::kClassic) return five_sixteenths_l3;
    const uint64_t inserts = avx512 ? five_sixteenths_l3 : quarter_l3;
    if (layout == Layout::kSplit256) return insert ? inserts : quarter_l3;
    if (layout == Layout::kSplit512 || layout == Layout::kSectorized512 || layout == Layout::kRegister64)
      return insert ? inserts : L2Bytes();
  }
  if (IntelSprClass() && (layout == Layout::kSplit256 || layout == Layout::kSplit512 ||
                          layout == Layout::kSectorized512 || layout == Layout::kRegister64)) {
    if (avx512 && insert && (layout == Layout::kSplit256 || layout == Layout::kRegister64)) return L2Bytes() / 2;
    return kPrefetchMinBytes;
  }
  if (layout == Layout::kClassic) return uint64_t{6} << 20;
  if (!avx512) return kPrefetchMinBytes;
  const bool split = layout == Layout::kSplit256 || layout == Layout::kSplit512;
  if (insert && (split || layout == Layout::kRegister64))
    return 2 * L2Bytes();
  if (split) return L2Bytes();
  if (insert && layout == Layout::kBlocked512) return 0;
  return kPrefetchMinBytes;
}

namespace {
std::atomic<PrefetchPolicy> g_prefetch_policy{PrefetchPolicy::kAuto};
}  // namespace

bool ShouldPrefetch(uint64_t bytes, uint64_t min_bytes) {
  switch (g_prefetch_policy.load(std::memory_order_relaxed)) {
    case PrefetchPolicy::kAlways: return true;
    case PrefetchPolicy::kNever: return false;
    case PrefetchPolicy::kAuto: break;
  }
  return bytes >= min_bytes;
}

void SetPrefetchPolicy(PrefetchPolicy policy) { g_prefetch_policy.store(policy, std::memory_order_relaxed); }

namespace {
std::atomic<PrefetchLevel> g_prefetch_level{PrefetchLevel::kAuto};
}  // namespace

// Zen 5's batches, where they prefetch, ask for their lines into the L1
// (PREFETCHW for plain inserts, PREFETCHT0 for queries), the opposite of the
// Zen 4 guest's finding (kernels/probe-inl.h PrefetchLine). Measured A/B of the
// bench (--bb_preset=boost, aes, uint64 keys, 10 bits/key; a2505a7 against
// this rule, alternating binaries, medians of 8 runs of 3 repetitions, 3 at
// 100M; 2-vCPU EPYC guest, family 26 model 2, avx3_dl, 2026-11-28;
// bench/results/prefetch_l1_zen5.md), the time with it over the time before:
//   - 100M keys: inserts 0.83-0.89x (split256 2.99 -> 2.53 ns/key, split512
//     2.94 -> 2.61), queries 0.86-0.88x (split256 2.94 -> 2.55), two threads'
//     queries 0.86-0.91x (sectorized512's absent 0.98x).
//   - 10M: inserts 0.93-0.95x (split512 1.21 -> 1.13), queries 0.93-0.97x.
//   - 1M: the queries that prefetch there (split512, sectorized512,
//     register64) 0.94-0.96x; the rest do not prefetch (within 1%).
//   - Pinned to avx2, 1M and 10M: 0.89-1.02x (10M inserts 0.94-0.97x).
// Boost.Bloom's rows moved 0.98-1.03x between the two binaries. The inserts
// issue each line's PREFETCHW just before their probe of the line a look-ahead
// (128 keys then) earlier (a step's 8 prefetches ahead of its 8 probes lost the gain at 10M:
// split512 0.99x, split256 1.01x); the queries prefetch a step's lines first,
// into the L2 as well (the same gain into the L1 either way, and one copy of
// the probe loop: with a second copy for the L2, split256's queries without
// prefetch ran 1.03-1.05x slower at 1M, code placement). Into the L2 that
// order measured 0.98-1.02x at 10M keys and 1.0-1.05x at 100M (blocked512's
// 1.05x) on this guest with the L2 forced, in a harness of the pipeline
// (RunKeys, aes, medians of 7); other CPUs keep the L2, unmeasured here.
//
// The Sapphire Rapids class (IntelSprClass() above) asks for the L1 while the
// filter fits in the L2, the L2 beyond. Its batches into the L1 over into the
// L2, the same harness and rounds as its prefetch rule (PrefetchMinBytes):
//   - avx3_dl, up to 2.1 MiB (400K-1.7M keys): 0.81-1.0x for the four layouts
//     of that rule (split512's queries at 1M keys 0.88x, 1.4M 0.81x), and
//     blocked512's 0.95-0.98x; pinned to avx2 0.92-1.04x (1M, 1.7M keys).
//   - beyond: 3.1-7.5 MiB inserts 1.04-1.09x, queries 0.95-1.05x; 10M keys
//     inserts 1.11-1.19x (blocked512's 0.90x), queries 1.01-1.13x; 100M
//     1.18-1.39x (avx2 at 10M 1.06-1.23x). Classic (lines into the L2
//     whatever the rule) 1.0-1.02x either way.
bool PrefetchToL1(uint64_t bytes) {
  switch (g_prefetch_level.load(std::memory_order_relaxed)) {
    case PrefetchLevel::kL2: return false;
    case PrefetchLevel::kL1: return true;
    case PrefetchLevel::kAuto: break;
  }
  if (IntelSprClass()) return bytes <= L2Bytes();
  return Zen5();
}

void SetPrefetchLevel(PrefetchLevel level) { g_prefetch_level.store(level, std::memory_order_relaxed); }

bool PinTarget(std::string_view name) {
  if (LowerAscii(name) == "auto") {
    g_active.store(Best(), std::memory_order_release);
    return true;
  }
  const Ops* o = Find(name);
  if (o == nullptr) return false;
  g_active.store(o, std::memory_order_release);
  return true;
}

}  // namespace blockbloom::kernels
#endif  // HWY_ONCE
