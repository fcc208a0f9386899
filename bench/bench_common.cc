// SPDX-License-Identifier: Apache-2.0
#include "bench/bench_common.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>

#include "blockbloom/targets.h"
#include "blockbloom/model.h"
#include "engine/src/memory.h"

namespace blockbloom::bench {

namespace {
HashKind g_pair_hash = HashKind::kXxh3;
HashKind g_row_hash = HashKind::kXxh3;
}  // namespace
HashKind PairHash() { return g_pair_hash; }
void SetPairHash(HashKind h) { g_pair_hash = h; }
HashKind RowHash() { return g_row_hash; }
void SetRowHash(HashKind h) { g_row_hash = h; }

std::string_view OpName(Op op) {
  switch (op) {
    case Op::kInsert: return "insert";
    case Op::kInsertAtomic: return "insert_atomic";
    case Op::kQueryPresent: return "query_present";
    case Op::kQueryAbsent: return "query_absent";
    case Op::kQueryMix: return "query_mix";
    case Op::kFloorRead: return "floor_read";
    case Op::kFloorRmw: return "floor_rmw";
    case Op::kFloorLine: return "floor_line";
    case Op::kHash: return "hash";
    case Op::kFloorCall: return "floor_call";
  }
  return "?";
}

std::string_view KeyTypeName(KeyType t) { return t == KeyType::kU64 ? "u64" : "url"; }

std::string RowSpec::Name() const {
  std::string s;
  s.append(OpName(op)).append("/").append(layout).append("/").append(std::to_string(bpk)).append("bpk/");
  s.append(size.label).append("/").append(KeyTypeName(keys)).append("/");
  s.append(mode == Mode::kBatch    ? "batch"
           : mode == Mode::kPerKey ? "perkey"
           : mode == Mode::kTyped  ? "typed"
           : mode == Mode::kPerCall ? "percall"
           : mode == Mode::kBatchPrefetch ? "batchpf"
           : mode == Mode::kBatchNoPrefetch ? "batchnopf"
           : mode == Mode::kBuffered ? "buffered"
                                   : "typedfold")
      .append("/")
      .append(target);
  return s;
}

// ---- URLs ---------------------------------------------------------------------------

namespace {
// Short hosts keep the fixed prefix ("https://" + host + "/" + domain letter + up
// to 8 hex digits of the index + "/") at most 30 bytes, the shortest key.
constexpr std::string_view kHosts[] = {"a.io", "ex.com", "cdn.net", "web.org", "img.co", "api.dev", "m.tv", "go.to"};
constexpr size_t kUrlMin = 30;  // issue 5: URL-like keys of 30..80 bytes
constexpr size_t kUrlMax = 80;
constexpr char kHex[] = "0123456789abcdef";
}  // namespace

void AppendUrl(Domain d, uint64_t i, std::string& arena) {
  uint64_t r = Mix64(i * 2 + static_cast<uint64_t>(d) + 0x5bd1e995);  // per-key random stream
  const size_t len = kUrlMin + r % (kUrlMax - kUrlMin + 1);
  const size_t start = arena.size();
  arena.append("https://").append(kHosts[(r >> 8) % std::size(kHosts)]).append("/");
  arena.push_back(d == Domain::kPresent ? 'p' : 'q');
  uint64_t x = i;
  do {
    arena.push_back(kHex[x & 15]);
    x >>= 4;
  } while (x != 0);
  arena.push_back('/');
  while (arena.size() - start < len) {
    r = Mix64(r + 1);
    arena.push_back(static_cast<char>('a' + r % 26));
  }
}

UrlSet MakeUrls(size_t n, const std::function<std::pair<Domain, uint64_t>(size_t)>& key) {
  UrlSet set;
  set.arena.reserve(n * (kUrlMin + kUrlMax) / 2 + kUrlMax);
  std::vector<size_t> ends(n);
  for (size_t j = 0; j < n; ++j) {
    const auto [d, i] = key(j);
    AppendUrl(d, i, set.arena);
    ends[j] = set.arena.size();
  }
  // Views only once the arena stops growing.
  set.views.reserve(n);
  size_t begin = 0;
  for (size_t j = 0; j < n; ++j) {
    set.views.emplace_back(set.arena.data() + begin, ends[j] - begin);
    begin = ends[j];
  }
  return set;
}

// ---- Pools ----------------------------------------------------------------------------

namespace {
OneSlot<const Pools> g_pools;

// Random indices into [0, n): fastrange (Lemire) of the high 32 bits of a mixed
// counter, seeded per use; uniform for n <= 2^32 (the largest filter here holds
// 1.07G keys, 1 GiB at 8 bits/key).
std::vector<uint64_t> RandomIndices(size_t count, uint64_t n, uint64_t seed) {
  if (n > (uint64_t{1} << 32)) throw std::invalid_argument("blockbloom: bench key count n > 2^32 is unsupported");
  std::vector<uint64_t> idx(count);
  for (size_t j = 0; j < count; ++j) idx[j] = ((Mix64(seed + j) >> 32) * n) >> 32;
  return idx;
}
}  // namespace

size_t PoolCount(KeyType type, uint64_t n) {
  const uint64_t cap = type == KeyType::kU64 ? kPoolCapU64 : kPoolCapUrl;
  // At least one iteration's worth of probes, at most the cap; present probes
  // repeat only when the filter holds fewer keys than that (L1 sizes).
  return static_cast<size_t>(std::min<uint64_t>(std::max<uint64_t>(n, kIterKeys), cap));
}

std::shared_ptr<const Pools> GetPools(KeyType type, uint64_t n) {
  const std::string key = std::string(KeyTypeName(type)) + "/" + std::to_string(n);
  return g_pools.Get(key, [&]() -> std::shared_ptr<const Pools> {
    auto p = std::make_shared<Pools>();
    p->type = type;
    p->n = n;
    const size_t count = PoolCount(type, n);
    const std::vector<uint64_t> present_idx = RandomIndices(count, n, 0x1000);
    // mix: key j is present (a fresh random index) or absent (index count + j),
    // each with probability 1/2 from one bit of a mixed counter.
    const std::vector<uint64_t> mix_idx = RandomIndices(count, n, 0x2000);
    if (type == KeyType::kU64) {
      p->present.resize(count);
      p->absent.resize(count);
      p->mix.resize(count);
      for (size_t j = 0; j < count; ++j) {
        p->present[j] = U64Key(Domain::kPresent, present_idx[j]);
        p->absent[j] = U64Key(Domain::kAbsent, j);
        p->mix[j] = (Mix64(0x3000 + j) & 1) ? U64Key(Domain::kPresent, mix_idx[j])
                                             : U64Key(Domain::kAbsent, count + j);
      }
    } else {
      p->present_s = MakeUrls(count, [&](size_t j) { return std::pair{Domain::kPresent, present_idx[j]}; });
      p->absent_s = MakeUrls(count, [&](size_t j) { return std::pair{Domain::kAbsent, uint64_t{j}}; });
      p->mix_s = MakeUrls(count, [&](size_t j) {
        return (Mix64(0x3000 + j) & 1) ? std::pair{Domain::kPresent, mix_idx[j]}
                                       : std::pair{Domain::kAbsent, uint64_t{count + j}};
      });
    }
    return p;
  });
}

// ---- Filters -----------------------------------------------------------------------------

namespace {
OneSlot<FilterCtx> g_filter;
// Keys generated and inserted per fill step: 1M u64 keys (8 MiB) or URLs.
constexpr uint64_t kFillChunk = uint64_t{1} << 20;
}  // namespace

std::shared_ptr<FilterCtx> GetFilter(Layout layout, uint32_t bpk, uint64_t n, KeyType type) {
  const std::string key = std::string(LayoutName(layout)) + "/" + std::to_string(bpk) + "/" + std::to_string(n) +
                          "/" + std::string(KeyTypeName(type));
  return g_filter.Get(key, [&] {
    auto c = std::make_shared<FilterCtx>();
    const uint64_t bits = n * bpk;
    const uint64_t block = LayoutBlockBits(layout);
    const uint64_t blocks = (bits + block - 1) / block;
    const FilterParams best = SolveForSize(layout, blocks, n);
    c->filter = std::make_unique<Filter>(Filter::WithBlocks(layout, blocks, best.k, RowHash()));
    c->n = n;
    c->model_fpr = PredictFpr(layout, blocks, best.k, n);
    PinTarget("auto");
    std::vector<uint64_t> keys;
    for (uint64_t start = 0; start < n; start += kFillChunk) {
      const size_t len = static_cast<size_t>(std::min(kFillChunk, n - start));
      if (type == KeyType::kU64) {
        keys.resize(len);
        for (size_t j = 0; j < len; ++j) keys[j] = U64Key(Domain::kPresent, start + j);
        c->filter->InsertBatch(std::span<const uint64_t>(keys));
      } else {
        const UrlSet urls = MakeUrls(len, [&](size_t j) { return std::pair{Domain::kPresent, start + j}; });
        c->filter->InsertBatch(std::span<const std::string_view>(urls.views));
      }
    }
    return c;
  });
}

// ---- HugeBuffer -------------------------------------------------------------------------------

HugeBuffer::HugeBuffer(uint64_t bytes) {
  // The filter's own allocator (engine/src/memory.h): same alignment, same pages.
  const detail::LineMemory m = detail::AllocateLines((bytes + 63) / 64 * 64);
  p_ = m.data;
  bytes_ = m.bytes;
  mmapped_ = m.mapped;
  // A pattern with about half the bits set, so a read floor's "hit" is data-dependent.
  for (uint64_t i = 0; i < bytes_; i += 8) {
    const uint64_t w = Mix64(i);
    std::memcpy(p_ + i, &w, 8);
  }
}

HugeBuffer::~HugeBuffer() { detail::FreeLines({p_, bytes_, mmapped_}); }

// ---- Helpers ------------------------------------------------------------------------------------

void FinishRow(benchmark::State& st, uint64_t keys, uint64_t hits, const RowSpec& row, double model_fpr) {
  st.SetItemsProcessed(static_cast<int64_t>(keys));
  // Keys over all threads and iterations: with `iterations` and cpu_time it gives
  // the on-CPU ns/key that tools/scripts/report.py prints for 1-thread rows (robust when
  // other processes share the cores; 2-thread rows use real time).
  st.counters["keys"] = benchmark::Counter(static_cast<double>(keys));
  // Per iteration too: an aggregate row (--benchmark_repetitions) reports the
  // repetitions as its iterations, so only this gives its ns/key.
  st.counters["keys_per_iter"] =
      benchmark::Counter(st.iterations() ? static_cast<double>(keys) / static_cast<double>(st.iterations()) : 0);
  st.counters["hit_rate"] = benchmark::Counter(keys ? static_cast<double>(hits) / static_cast<double>(keys) : 0,
                                                benchmark::Counter::kAvgThreads);
  if (row.op == Op::kQueryAbsent) {
    // Every absent probe is a key never inserted, so every hit is a false positive.
    st.counters["fpr"] = benchmark::Counter(keys ? static_cast<double>(hits) / static_cast<double>(keys) : 0,
                                            benchmark::Counter::kAvgThreads);
    st.counters["fpr_model"] = benchmark::Counter(model_fpr, benchmark::Counter::kAvgThreads);
    st.counters["probes"] = benchmark::Counter(static_cast<double>(keys));
  }
}

void RegisterRow(const RowSpec& row, RowFn u64, RowFn url) {
  auto* b = benchmark::RegisterBenchmark(row.Name().c_str(), [row, u64, url](benchmark::State& st) {
    (row.keys == KeyType::kU64 ? u64 : url)(st, row);
  });
  b->UseRealTime();
  if (row.threads > 1) b->Threads(row.threads);
  // Atomic inserts: one pass over the fresh keys per run (bench/filter_bench.cc says why).
  if (row.op == Op::kInsertAtomic) {
    const size_t iters = PoolCount(row.keys, row.size.KeysAt(row.bpk)) / kIterKeys / static_cast<size_t>(row.threads);
    b->Iterations(static_cast<benchmark::IterationCount>(std::max<size_t>(iters, 1)));
  }
}

void PinFor(const std::string& target) {
  // "native": the typed rows, whose code is compiled for this CPU (no dispatch).
  if (target == "any" || target == "c" || target == "reference" || target == "native") return;
  PinTarget(target);
}

}  // namespace blockbloom::bench
