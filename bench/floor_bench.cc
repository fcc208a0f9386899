// SPDX-License-Identifier: Apache-2.0
// The memory-bound floor every filter row is held against, and the hash-only
// cost of the keys.
//
// floor_read: hash each key, then read one random 64-byte line of a buffer of the
// filter's size; floor_rmw: the same with a read-modify-write of one word of the
// line; floor_line: the line read alone, over hashes computed before the timing
// (what no filter of this size can beat on this machine, whatever its hash);
// floor_call (uint64 keys, per key): one call per key through a function
// pointer to a function that reads no memory, given an object and the key:
// what no run-time dispatched per-key call can beat, whatever its probe.
// Everything a blocked filter must do and nothing more: one hash, one
// fastrange, one cache line per key. The pipeline is the kernels' own
// (kernels/probe-inl.h): hashes computed in L1 chunks of kChunk keys, the next
// chunk hashed before the current one is probed, a prefetch as many keys ahead
// as the kernels' look-ahead (skipped below kPrefetchMinBytes; into the L1 where
// the batches ask for their lines there, kernels::PrefetchToL1), on a buffer
// mapped like a filter (2 MiB aligned, MADV_HUGEPAGE). Plain C++: __builtin_prefetch, no SIMD outside
// kernels/ (the uint64 hash is the kernels' own vectorized XXH3, the best
// target's hash_u64, so the floor is never slowed by a slower hash).
#include <atomic>
#include <span>
#include <type_traits>
#include <vector>

#include "blockbloom/hash.h"
#include "bench/bench_common.h"
#include "engine/src/hash_inline.h"
#include "kernels/kernels.h"

namespace blockbloom::bench {
namespace {

// The kernels' chunk of keys hashed at a time (kernels/probe-inl.h; that header
// is Highway code and cannot be included here). Their look-ahead, in keys, is
// the active target's (kernels::Ops::look_ahead: 128 on every target since
// 4bb15fb), read once a row. The filter size below which they do not prefetch by
// default is kernels::kPrefetchMinBytes (kernels/kernels.h, plain C++).
constexpr size_t kChunk = 512;
using kernels::kPrefetchMinBytes;
constexpr size_t kLine = 64;

struct Buf {
  uint8_t* p;
  uint64_t lines;
  uint8_t* Line(uint64_t h) const { return p + (((h >> 32) * lines) >> 32) * kLine; }  // fastrange, as BlockIndex
};

enum class LineOp { kRead, kRmw, kRmwAtomic };

template <LineOp kOp>
inline uint64_t Touch(const Buf& b, uint64_t h) {
  uint64_t* w = reinterpret_cast<uint64_t*>(b.Line(h));
  const uint64_t bit = uint64_t{1} << (h & 63);
  if constexpr (kOp == LineOp::kRead) {
    return (*w & bit) != 0;
  } else if constexpr (kOp == LineOp::kRmw) {
    *w |= bit;
  } else {
    std::atomic_ref<uint64_t>(*w).fetch_or(bit, std::memory_order_relaxed);
  }
  return 0;
}

// Into the L2 (locality 2), or into the L1 where kToL1 (locality 3), as the
// filters' batches ask for their lines (kernels/probe-inl.h PrefetchLineTo,
// kernels::PrefetchToL1: into the L1 on Zen 5, and within the L2 on the
// Sapphire Rapids class): the minimal probe of the same work.
template <LineOp kOp, bool kToL1>
inline void Prefetch(const Buf& b, uint64_t h) {
  __builtin_prefetch(b.Line(h), kOp == LineOp::kRead ? 0 : 1, kToL1 ? 3 : 2);
}

// Hashes keys[begin, begin + len) into out.
template <typename Key>
void HashChunk(const Key* keys, size_t len, uint64_t* out) {
  if constexpr (std::is_same_v<Key, uint64_t>) {
    kernels::Active().hash_u64(keys, len, 0, HashKind::kXxh3, out);
  } else {
    for (size_t i = 0; i < len; ++i) out[i] = detail::HashBytesInline(keys[i].data(), keys[i].size(), HashKind::kXxh3, 0);
  }
}

// The floor over keys[0, n): the kernels' two-chunk pipeline.
template <LineOp kOp, bool kToL1, typename Key>
uint64_t FloorRun(const Buf& b, const Key* keys, size_t n, bool prefetch, size_t ahead) {
  alignas(64) uint64_t h[2][kChunk];
  uint64_t hits = 0;
  size_t len = std::min(kChunk, n);
  HashChunk(keys, len, h[0]);
  if (prefetch)
    for (size_t i = 0; i < std::min(ahead, len); ++i) Prefetch<kOp, kToL1>(b, h[0][i]);
  for (size_t start = 0, c = 0; start < n; start += len, c ^= 1) {
    len = std::min(kChunk, n - start);
    const uint64_t* cur = h[c];
    const size_t nlen = std::min(kChunk, n - start - len);
    if (nlen) HashChunk(keys + start + len, nlen, h[c ^ 1]);
    for (size_t i = 0; i < len; ++i) {
      if (prefetch) {
        const size_t j = i + ahead;
        if (j < len) {
          Prefetch<kOp, kToL1>(b, cur[j]);
        } else if (j - len < nlen) {
          Prefetch<kOp, kToL1>(b, h[c ^ 1][j - len]);
        }
      }
      hits += Touch<kOp>(b, cur[i]);
    }
  }
  return hits;
}

// floor_line: one random line read per precomputed hash, the same look-ahead;
// hashes past h[n) (the rest of the pool) are only prefetched.
template <bool kToL1>
uint64_t LineRun(const Buf& b, const uint64_t* h, size_t n, size_t avail, bool prefetch, size_t ahead) {
  uint64_t hits = 0;
  for (size_t i = 0; i < n; ++i) {
    if (prefetch && i + ahead < avail) Prefetch<LineOp::kRead, kToL1>(b, h[i + ahead]);
    hits += Touch<LineOp::kRead>(b, h[i]);
  }
  return hits;
}

// floor_call: the least a run-time dispatched one-key call can be. The callee
// takes the filter object and the key in registers and reads no memory; it is
// reached through a pointer read once (volatile, so the call stays an indirect
// call), as Boost's per-call reference rows call theirs (bench/boost_peer_bench.cc).
// Filter::MayContain(key) passes five words instead, reloaded after each call.
__attribute__((noinline)) bool EmptyProbe(const void*, uint64_t key) { return (key & 1) != 0; }
using EmptyProbeFn = bool (*)(const void*, uint64_t);
EmptyProbeFn volatile g_empty_probe = &EmptyProbe;

__attribute__((noinline)) uint64_t CallRun(const void* filter, const uint64_t* keys, size_t n) {
  const EmptyProbeFn call = g_empty_probe;
  uint64_t hits = 0;
  for (size_t i = 0; i < n; ++i) hits += call(filter, keys[i]);
  return hits;
}

// f(std::true_type) if to_l1, else f(std::false_type): the floor's runs with
// their prefetch level (kToL1) chosen once a row, as the batches choose theirs.
template <class F>
uint64_t AtLevel(bool to_l1, F&& f) {
  return to_l1 ? f(std::true_type{}) : f(std::false_type{});
}

OneSlot<HugeBuffer> g_buffer;

template <typename Key>
const std::vector<Key>& AbsentPool(const Pools& p);
template <>
const std::vector<uint64_t>& AbsentPool<uint64_t>(const Pools& p) { return p.absent; }
template <>
const std::vector<std::string_view>& AbsentPool<std::string_view>(const Pools& p) { return p.absent_s.views; }

template <typename Key>
void FloorRow(benchmark::State& st, const RowSpec& row) {
  const uint64_t n = row.size.KeysAt(row.bpk);
  const auto pools = GetPools(row.keys, n);
  // The buffer of a 512-bit-block filter of this size: whole 64-byte lines.
  const uint64_t bytes = (row.size.BitsAt(row.bpk) + 511) / 512 * kLine;
  const auto buf = g_buffer.Get(std::to_string(bytes), [&] { return std::make_shared<HugeBuffer>(bytes); });
  PinFor(row.target);
  const size_t ahead = kernels::Active().look_ahead;
  const Buf b{buf->data(), bytes / kLine};
  const bool prefetch = kernels::ShouldPrefetch(bytes, kPrefetchMinBytes);
  const bool to_l1 = kernels::PrefetchToL1(bytes);
  const std::vector<Key>& pool = AbsentPool<Key>(*pools);
  PoolWalker walk(pool.size(), st);
  std::vector<uint64_t> hbuf(kIterKeys);
  std::vector<uint64_t> pool_hashes;  // floor_line: the whole pool, hashed before the timing
  if (row.op == Op::kFloorLine) {
    pool_hashes.resize(pool.size());
    for (size_t i = 0; i < pool.size(); i += kChunk) HashChunk(pool.data() + i, std::min(kChunk, pool.size() - i), &pool_hashes[i]);
  }
  uint64_t hits = 0;
  for (auto _ : st) {
    const PoolWalker::Chunk c = walk.Next();
    const Key* k = pool.data() + c.begin;
    const size_t len = c.len;
    switch (row.op) {
      case Op::kFloorRead:
        hits += AtLevel(to_l1, [&](auto l1) { return FloorRun<LineOp::kRead, l1()>(b, k, len, prefetch, ahead); });
        break;
      case Op::kFloorLine:
        hits += AtLevel(to_l1, [&](auto l1) {
          return LineRun<l1()>(b, pool_hashes.data() + c.begin, len, pool.size() - c.begin, prefetch, ahead);
        });
        break;
      case Op::kFloorRmw:
        AtLevel(to_l1, [&](auto l1) {
          return st.threads() > 1 ? FloorRun<LineOp::kRmwAtomic, l1()>(b, k, len, prefetch, ahead)
                                  : FloorRun<LineOp::kRmw, l1()>(b, k, len, prefetch, ahead);
        });
        break;
      case Op::kFloorCall:
        if constexpr (std::is_same_v<Key, uint64_t>) hits += CallRun(&b, k, len);
        break;
      default: {  // kHash: the hash-only cost of the same keys
        HashChunk(k, len, hbuf.data());
        hits += hbuf[len - 1] & 1;
      }
    }
    benchmark::DoNotOptimize(hits);
    benchmark::ClobberMemory();
  }
  FinishRow(st, walk.keys(), hits, row, 0);
  st.counters["bytes"] = benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kAvgThreads);
}

}  // namespace

void RegisterFloorRow(const RowSpec& row) {
  RegisterRow(row, &FloorRow<uint64_t>, &FloorRow<std::string_view>);
}

}  // namespace blockbloom::bench
