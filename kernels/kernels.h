// SPDX-License-Identifier: Apache-2.0
// blockbloom kernels: the only place where SIMD (Google Highway) appears.
//
// This header is plain C++: no Highway types, no intrinsics. The engine calls
// through the `Ops` table of one compiled target; which target is chosen once
// (best supported, or pinned by BLOCKBLOOM_TARGET / PinTarget) and can be
// re-pinned at any time.
//
// Stages, named the same everywhere:
//   1. hash the key          (HashU64: XXH3-64 of the key's 8 little-endian bytes)
//   2. pick the block        (BlockIndex: multiply-high "fastrange" on the high 32 bits)
//   3. build the probe mask  (from the low 32 bits of the hash, per layout)
//   4. test or set it
//
// Kernels take hashes, never keys, except the fused *_keys entry points that
// run stage 1 in L1-sized chunks right before stages 2-4.
#ifndef BLOCKBLOOM_KERNELS_KERNELS_H_
#define BLOCKBLOOM_KERNELS_KERNELS_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "blockbloom/hash.h"
#include "blockbloom/layout.h"
#include "blockbloom/view.h"

namespace blockbloom::kernels {

// Keys the engine hashes itself (strings, XXH64, atomic inserts, the
// many-filter probe) are hashed in chunks of this many: 4 KiB of hashes per
// buffer, two buffers, so both stay in L1 (32 KiB) beside the look-ahead's
// lines; large enough to amortize the loop and the dispatched call. (uint64
// keys under XXH3 are hashed inside the kernels, interleaved with the probes:
// kernels/pipeline-inl.h.)
inline constexpr size_t kHashChunk = 512;

// What a kernel sees of a filter.
//   bits:        64-byte aligned, BlockBytes(layout) * num_blocks bytes (classic:
//                the m bits rounded up to 64 bytes), zero-padded past the end.
//   num_blocks:  number of blocks, 1 <= num_blocks <= 2^32 (blocked layouts; the
//                block index is (hi32 * num_blocks) >> 32); classic: m, the number
//                of bits, 1 <= m <= 2^40 (the probe index is (x * m) >> 64 on
//                64-bit x); Traits(layout).max_blocks either way.
//                num_blocks = 0 is the empty filter of a moved-from object: every
//                index is then 0, `bits` points at one zero line, queries answer
//                false and nothing may insert.
//   k:           bits per key, LayoutAcceptsK(layout, k).
struct FilterRef {
  uint8_t* bits;
  uint64_t num_blocks;
  uint32_t k;
  Layout layout;
};

// One key at a time, no dispatch per call: the probe of one layout at one k on
// one target, chosen once (FilterView keeps the pair from its construction)
// and called through a plain function pointer with the filter's words (bits,
// num_blocks, k as in FilterRef, and the hash's seed constant; queries take
// them by value, inserts a pointer to the blockbloom::detail::OneKeyArgs that
// holds them, blockbloom/view.h says why; num_blocks = 0: the empty filter,
// `bits` one zero line, queries answer false, insert must not be called).
// Branch-free for the blocked layouts: no loop or switch over k (k is a
// template parameter of the probe where the layout allows several), so
// independent lookups overlap their misses. query_key / insert_key fuse stage 1
// for a uint64 key: hash = HashU64WithConstant(key, kind, seed_const),
// seed_const = KeyHashConstant(kind, seed) (kernels/common.h), so a lookup is
// one call from the caller's loop.
using OneKeyArgs = blockbloom::detail::OneKeyArgs;
using QueryOneFn = blockbloom::detail::QueryOneFn;
using InsertOneFn = blockbloom::detail::InsertOneFn;
using QueryKeyFn = blockbloom::detail::QueryKeyFn;
using InsertKeyFn = blockbloom::detail::InsertKeyFn;
// What an insert's probe sees of its OneKeyArgs (the kernels' and the reference's).
inline FilterRef RefOf(const OneKeyArgs& a, Layout layout) { return FilterRef{a.bits, a.num_blocks, a.k, layout}; }
struct OneKeyOps {
  QueryOneFn query;
  InsertOneFn insert;
  QueryKeyFn query_key;
  InsertKeyFn insert_key;
  // insert with relaxed atomic ORs, as reference::InsertHashAtomic (threads may
  // insert and query the filter at once): the batch's atomic probe for one key.
  InsertOneFn insert_atomic;
};

// One compiled target's kernels. Every entry point obeys the same contract on
// every target and writes the same bytes as the scalar reference
// (kernels/reference.h).
struct Ops {
  int64_t target;    // Highway target bit (HWY_AVX2, ...)
  const char* name;  // lower-case Highway name: "avx3", "avx2", "sse4", "emu128", "scalar", "neon", "sve"...
  // The batches' look-ahead: a key's line is prefetched this many keys before
  // its probe (kernels/pipeline-inl.h kPrefetchDistance; 0: no prefetch, the
  // reference). The bench's minimal probes take the same (bench/floor_bench.cc).
  size_t look_ahead;

  // out[i] = blockbloom::HashU64(keys[i], kind, seed) (blockbloom/hash.h): XXH3
  // in vectors, "aes" with the CPU's AES instructions where it has them, the
  // other kinds key by key. keys[0, n) readable, out[0, n) writable; they may
  // alias exactly (out == keys).
  void (*hash_u64)(const uint64_t* keys, size_t n, uint64_t seed, HashKind kind, uint64_t* out);

  // Sets the bits of hashes[0, n). Not safe against concurrent writers.
  void (*insert_hashes)(const FilterRef& f, const uint64_t* hashes, size_t n);
  // out[i] = 1 if hashes[i] may be present, else 0; returns the number of 1s.
  // out must hold n bytes; hashes[0, n) readable.
  size_t (*query_hashes)(const FilterRef& f, const uint64_t* hashes, size_t n, uint8_t* out);

  // As insert_hashes / query_hashes, and also prefetch the blocks of
  // next[0, nnext): the hashes the caller passes in its following call. A
  // stream cut into chunks thus keeps its look-ahead across chunk boundaries.
  void (*insert_hashes_ahead)(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next,
                              size_t nnext);
  size_t (*query_hashes_ahead)(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next,
                               size_t nnext, uint8_t* out);
  // insert_hashes_ahead with an atomic OR (fetch_or) on every word it touches:
  // safe against concurrent callers and readers of the same filter.
  void (*insert_hashes_atomic)(const FilterRef& f, const uint64_t* hashes, size_t n, const uint64_t* next,
                               size_t nnext);

  // Fused: hash keys[0, n) with `hash` and seed (HashU64WithConstant with
  // KeyHashConstant(hash, seed), kernels/common.h; XXH3 vectorized as
  // hash_u64, the other kinds key by key) then insert / query, hashing
  // interleaved with the probes (kernels/pipeline-inl.h, RunKeys).
  void (*insert_keys)(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash);
  size_t (*query_keys)(const FilterRef& f, const uint64_t* keys, size_t n, uint64_t seed, HashKind hash,
                       uint8_t* out);

  // This target's single-key probe of `layout` at `k` (LayoutAcceptsK(layout, k)),
  // its fused forms hashing with `hash`.
  OneKeyOps (*one_key)(Layout layout, uint32_t k, HashKind hash);
};

// Every target compiled into this binary, best first (including the ones this
// CPU cannot run; see Supported()).
std::span<const Ops* const> CompiledTargets();
// Whether this CPU can run `ops`.
bool Supported(const Ops& ops);

// The target in use: the pinned one if any, else the BLOCKBLOOM_TARGET
// environment variable (read once, at first use), else the best supported.
// Thread-safe; the returned reference stays valid for the program's lifetime.
const Ops& Active();

// Pins the target named `name` (as in Ops::name, case-insensitive; "auto"
// unpins). Returns false and changes nothing if no compiled target of that
// name is supported by this CPU.
bool PinTarget(std::string_view name);

// Below this payload size a filter stays in L2 (Zen 3: 512 KiB per core) and
// software prefetch only adds instructions: the default threshold of the batch
// pipelines (PrefetchMinBytes below varies it by layout and target), of the
// garden's blocked counting filter (kernels/counting-inl.h; its own sweep on
// the Zen 4 guest put the crossover between 347 and 694 KiB) and of the bench's
// minimal probe (bench/floor_bench.cc).
inline constexpr uint64_t kPrefetchMinBytes = 512 * 1024;

// The payload size (bytes) from which a batch of `layout` prefetches its lines
// (kernels/pipeline-inl.h, RunBatch): `insert` for plain inserts, else for
// queries; `avx512` if the batch runs on an AVX-512 target (avx3, avx3_dl).
// Atomic inserts take kPrefetchMinBytes whatever the layout. Below it a batch
// probes in order and the core's window overlaps the cache's latency by
// itself. Depends on this CPU's L2 and L3 sizes and on whether it is a Zen 5
// or of the Sapphire Rapids class, read once (kernels/kernels.cc says what
// was measured); at most 10 MiB. It never changes what a batch writes or
// answers.
uint64_t PrefetchMinBytes(Layout layout, bool insert, bool avx512);

// The payload size (bytes) from which a batch counts its filter as beyond the
// caches, in memory: a probe with a form for that (FarProbe, kernels/
// pipeline-inl.h; split512 and sectorized512 on AVX-512: a 512-bit line read
// as two 256-bit halves) takes it there for its queries and atomic inserts. This
// CPU's L3 size, read once, clamped to [16 MiB, 64 MiB] (32 MiB where the C
// library does not say). It never changes what a batch writes or answers.
uint64_t FarMinBytes();
// The same for plain insert batches: FarMinBytes(), but kPrefetchMinBytes on
// a CPU where a 512-bit load and store of a line not held in L1 stall (AMD
// family 1Ah, Zen 5; kernels/kernels.cc says what was measured), read once
// from CPUID.
uint64_t FarInsertMinBytes();

// Whether batches that prefetch (below; plain inserts and queries) ask for
// their blocked layouts' lines into the L1 (inserts with PREFETCHW, queries
// with PREFETCHT0; kernels/probe-inl.h PrefetchLineTo) instead of into the L2
// (PREFETCHT1), for a filter of `bytes` of payload: on Zen 5 (AMD family 1Ah)
// at every size, on the Sapphire Rapids class (Intel family 6 models 0x8F,
// 0xCF) while `bytes` fits in the L2, both read once from CPUID, unless
// SetPrefetchLevel below says otherwise; kernels/kernels.cc says what was
// measured. Batches ask once each. It never changes what a batch writes or
// answers.
bool PrefetchToL1(uint64_t bytes);

// Whether a batch over a payload of `bytes` prefetches its lines, given its
// threshold `min_bytes` (PrefetchMinBytes, or kPrefetchMinBytes): under the
// default policy, bytes >= min_bytes. Every batch pipeline decides through it
// once per batch, as does the bench's minimal probe.
bool ShouldPrefetch(uint64_t bytes, uint64_t min_bytes);

// The bench's prefetch sweep (blockbloom_bench --bb_preset=prefetch) times
// each batch row with prefetch and without it in one binary, side by side:
// kAlways and kNever override every threshold above for every batch of this
// process until kAuto (the default) is set again. A tuning aid, not a
// setting: the library never calls it. Either path writes and answers
// exactly what the other does (tests/kernels_test.cc checks both on every
// target); only the time differs.
enum class PrefetchPolicy : uint8_t { kAuto, kAlways, kNever };
void SetPrefetchPolicy(PrefetchPolicy policy);
// Sets `policy` for its scope, then kAuto again (the bench's rows, the tests).
class ScopedPrefetchPolicy {
 public:
  explicit ScopedPrefetchPolicy(PrefetchPolicy policy) { SetPrefetchPolicy(policy); }
  ~ScopedPrefetchPolicy() { SetPrefetchPolicy(PrefetchPolicy::kAuto); }
  ScopedPrefetchPolicy(const ScopedPrefetchPolicy&) = delete;
  ScopedPrefetchPolicy& operator=(const ScopedPrefetchPolicy&) = delete;
};

// The same for where those prefetches go: kL2 and kL1 override PrefetchToL1's
// CPU rule for every batch of this process until kAuto (the default) is set
// again (the tests run both forms on every CPU; the bench can time them side
// by side). A tuning aid, not a setting: the library never calls it.
enum class PrefetchLevel : uint8_t { kAuto, kL2, kL1 };
void SetPrefetchLevel(PrefetchLevel level);
// Sets `level` for its scope, then kAuto again.
class ScopedPrefetchLevel {
 public:
  explicit ScopedPrefetchLevel(PrefetchLevel level) { SetPrefetchLevel(level); }
  ~ScopedPrefetchLevel() { SetPrefetchLevel(PrefetchLevel::kAuto); }
  ScopedPrefetchLevel(const ScopedPrefetchLevel&) = delete;
  ScopedPrefetchLevel& operator=(const ScopedPrefetchLevel&) = delete;
};

}  // namespace blockbloom::kernels

#endif  // BLOCKBLOOM_KERNELS_KERNELS_H_
