// SPDX-License-Identifier: Apache-2.0
// The Boost.Bloom pairs (issue 9), run with --bb_preset=boost: for each pair,
// key type, size, mode and op, the blockbloom row and then the Boost row, so
// the two are measured side by side in one run (interleaved, same keys, same
// 10 bits/key). blockbloom runs on the best target (or the one named by
// --bb_target=...: BLOCKBLOOM_PAIR_TARGET), Boost as compiled in
// bench/boost_peer_bench.cc (-O3 -march=native).
//
// Row names follow bench_common.h: op/layout/10bpk/<size>/<keys>/<mode>/<target>,
// layout "split256" / "sectorized512" or "split512" / "register64" at the
// pair's k (counter k), or "boost_fmb32x8" / "boost_fmb64x8" /
// "boost_block64x6", target "native".
#include <cstdio>
#include <cstdlib>
#include <span>
#include <type_traits>
#include <vector>

#include "bench/bench_common.h"
#include "bench/boost_peer.h"
#include "bench/typed_rows.h"
#include "blockbloom/inserter.h"
#include "blockbloom/model.h"
#include "blockbloom/targets.h"

namespace blockbloom::bench {
namespace {

namespace bp = boost_peer;

constexpr uint32_t kBpk = 10;

struct Side {
  Layout layout;
  uint32_t k;
};
// Our layouts of a pair, each at the rate of Boost's filter: fast_multiblock64<8>
// has two, sectorized512 at k = 8 and split512 (the same model; split512 takes
// each word's bit as one 6-bit number, a cheaper mask: issue 20).
std::vector<Side> BlockbloomSides(bp::Pair p) {
  switch (p) {
    case bp::Pair::kFastMultiblock32x8: return {{Layout::kSplit256, 8}};
    case bp::Pair::kFastMultiblock64x8: return {{Layout::kSectorized512, 8}, {Layout::kSplit512, 8}};
    case bp::Pair::kBlock64x6: return {{Layout::kRegister64, 6}};
  }
  return {{Layout::kSplit256, 8}};
}

// Calls fn(span of present keys) over the n present keys in 1M-key chunks.
template <typename Fn>
void ForPresent(KeyType type, uint64_t n, Fn&& fn) {
  constexpr uint64_t kChunk = uint64_t{1} << 20;
  for (uint64_t start = 0; start < n; start += kChunk) {
    const size_t len = static_cast<size_t>(std::min(kChunk, n - start));
    if (type == KeyType::kU64) {
      std::vector<uint64_t> keys(len);
      for (size_t j = 0; j < len; ++j) keys[j] = U64Key(Domain::kPresent, start + j);
      fn(std::span<const uint64_t>(keys), std::span<const std::string_view>());
    } else {
      const UrlSet urls = MakeUrls(len, [&](size_t j) { return std::pair{Domain::kPresent, start + j}; });
      fn(std::span<const uint64_t>(), std::span<const std::string_view>(urls.views));
    }
  }
}

struct OursCtx {
  std::unique_ptr<Filter> filter;
  double model_fpr = 0;
};
OneSlot<OursCtx> g_ours;
OneSlot<bp::Peer> g_boost;

// fold: the present keys inserted by typed_rows::InsertFold (the
// Mode::kTypedFold rows' own filter, so they find their present keys and leave
// the other rows' filter as it was).
std::shared_ptr<OursCtx> Ours(Side s, uint64_t n, KeyType type, bool fold = false) {
  const std::string key = std::string(LayoutName(s.layout)) + "/" + std::to_string(n) + "/" +
                          std::string(KeyTypeName(type)) + (fold ? "/fold" : "");
  return g_ours.Get(key, [&] {
    auto c = std::make_shared<OursCtx>();
    c->filter = std::make_unique<Filter>(Filter::WithBits(s.layout, n * kBpk, s.k, PairHash()));
    ForPresent(type, n, [&](std::span<const uint64_t> u, std::span<const std::string_view> v) {
      if (fold) {
        typed_rows::InsertFold(*c->filter, u.data(), u.size());
        return;
      }
      if (!u.empty()) c->filter->InsertBatch(u);
      if (!v.empty()) c->filter->InsertBatch(v);
    });
    c->model_fpr = PredictFpr(s.layout, c->filter->num_blocks(), s.k, n);
    return c;
  });
}

std::shared_ptr<bp::Peer> Boost(bp::Pair p, uint64_t n, KeyType type) {
  const std::string key = std::string(bp::PairName(p)) + "/" + std::to_string(n) + "/" +
                          std::string(KeyTypeName(type));
  return g_boost.Get(key, [&]() -> std::shared_ptr<bp::Peer> {
    std::shared_ptr<bp::Peer> b = bp::Make(p, n * kBpk, type == KeyType::kUrl);
    ForPresent(type, n, [&](std::span<const uint64_t> u, std::span<const std::string_view> v) {
      if (!u.empty()) b->Insert(u.data(), u.size(), bp::Peer::Loop::kBulk);
      if (!v.empty()) b->Insert(v.data(), v.size(), bp::Peer::Loop::kBulk);
    });
    return b;
  });
}

template <typename Key>
const std::vector<Key>& Pool(const Pools& p, Op op) {
  if constexpr (std::is_same_v<Key, uint64_t>) {
    return op == Op::kQueryAbsent ? p.absent : p.present;
  } else {
    return op == Op::kQueryAbsent ? p.absent_s.views : p.present_s.views;
  }
}

template <typename Key>
void OursRow(benchmark::State& st, const RowSpec& row, Side s) {
  const uint64_t n = row.size.keys;
  PinFor(row.target);
  const auto pools = GetPools(row.keys, n);
  const auto ctx = Ours(s, n, row.keys, row.mode == Mode::kTypedFold);
  Filter& f = *ctx->filter;
  const std::vector<Key>& pool = Pool<Key>(*pools, row.op);
  PoolWalker walk(pool.size(), st);
  std::vector<uint8_t> out(kIterKeys);
  uint64_t hits = 0;
  for (auto _ : st) {
    const PoolWalker::Chunk c = walk.Next();
    const std::span<const Key> keys(pool.data() + c.begin, c.len);
    if (row.mode == Mode::kTypedFold) {
      bool ok = false;  // registered for uint64 keys only
      if constexpr (std::is_same_v<Key, uint64_t>) {
        ok = row.op == Op::kInsert ? typed_rows::InsertFold(f, keys.data(), keys.size())
                                   : typed_rows::QueryFold(f, keys.data(), keys.size(), &hits);
      }
      if (!ok) {
        st.SkipWithError("no typed instantiation for this layout, k and hash (bench/typed_bench.cc)");
        break;
      }
    } else if (row.mode == Mode::kTyped) {
      const bool ok = row.op == Op::kInsert ? typed_rows::Insert(f, keys.data(), keys.size())
                                            : typed_rows::Query(f, keys.data(), keys.size(), &hits);
      if (!ok) {
        st.SkipWithError("no typed instantiation for this layout, k and hash (bench/typed_bench.cc)");
        break;
      }
    } else if (row.mode == Mode::kBuffered) {  // registered for inserts only
      BufferedInserter ins(f);
      for (const Key& k : keys) ins.Insert(k);
    } else if (row.mode == Mode::kPerKey) {
      if (row.op == Op::kInsert) {
        for (const Key& k : keys) f.Insert(k);
      } else {
        // A local sum: DoNotOptimize(hits) lets `hits` escape, and adding to it
        // after each opaque call would cost a load and a store per key.
        uint64_t h = 0;
        for (const Key& k : keys) h += f.MayContain(k);
        hits += h;
      }
    } else if (row.op == Op::kInsert) {
      f.InsertBatch(keys);
    } else {
      hits += f.MayContainBatch(keys, out);
    }
    benchmark::DoNotOptimize(hits);
    benchmark::ClobberMemory();
  }
  FinishRow(st, walk.keys(), hits, row, ctx->model_fpr);
  st.counters["k"] = benchmark::Counter(f.k(), benchmark::Counter::kAvgThreads);
  st.counters["bytes"] = benchmark::Counter(static_cast<double>(f.byte_size()), benchmark::Counter::kAvgThreads);
}

template <typename Key>
void BoostRow(benchmark::State& st, const RowSpec& row, bp::Pair p) {
  const uint64_t n = row.size.keys;
  const auto pools = GetPools(row.keys, n);
  const auto peer = Boost(p, n, row.keys);
  const std::vector<Key>& pool = Pool<Key>(*pools, row.op);
  PoolWalker walk(pool.size(), st);
  using Loop = bp::Peer::Loop;
  const Loop loop = row.mode == Mode::kBatch     ? Loop::kBulk
                    : row.mode == Mode::kPerCall ? Loop::kCalled
                                                 : Loop::kInline;
  uint64_t hits = 0;
  for (auto _ : st) {
    const PoolWalker::Chunk c = walk.Next();
    if (row.op == Op::kInsert) {
      peer->Insert(pool.data() + c.begin, c.len, loop);
    } else {
      hits += peer->Query(pool.data() + c.begin, c.len, loop);
    }
    benchmark::DoNotOptimize(hits);
    benchmark::ClobberMemory();
  }
  FinishRow(st, walk.keys(), hits, row, 0.0);
  st.counters["bytes"] = benchmark::Counter(static_cast<double>(peer->Bytes()), benchmark::Counter::kAvgThreads);
}

// Boost's row of pair p if `boost`, else ours of side s.
void Register(const RowSpec& row, bp::Pair p, Side s, bool boost) {
  auto* b = benchmark::RegisterBenchmark(row.Name().c_str(), [row, p, s, boost](benchmark::State& st) {
    if (boost) {
      row.keys == KeyType::kU64 ? BoostRow<uint64_t>(st, row, p) : BoostRow<std::string_view>(st, row, p);
    } else {
      row.keys == KeyType::kU64 ? OursRow<uint64_t>(st, row, s) : OursRow<std::string_view>(st, row, s);
    }
  });
  b->UseRealTime();
  if (row.threads > 1) b->Threads(row.threads);  // queries: each thread its own part of the pool
}

}  // namespace

void RegisterBoostPairs() {
  const bool have = boost_peer::Available();
  if (!have)
    std::fprintf(stderr, "blockbloom bench: Boost.Bloom not found at configure time "
                         "(-DBLOCKBLOOM_BOOST_BLOOM_INCLUDE=...): Boost rows skipped\n");
  const char* env = std::getenv("BLOCKBLOOM_PAIR_TARGET");
  const std::string target = env != nullptr && *env != '\0' ? env : std::string(ActiveTarget());
  struct Case {
    KeyType keys;
    SizeSpec size;
  };
  const Case cases[] = {{KeyType::kU64, {"1Mkeys", 0, 1'000'000}},
                        {KeyType::kU64, {"10Mkeys", 0, 10'000'000}},
                        // The DRAM point: >= 1.0x Boost and within 1.10x of the floor.
                        {KeyType::kU64, {"100Mkeys", 0, 100'000'000}},
                        {KeyType::kUrl, {"1Mkeys", 0, 1'000'000}},
                        {KeyType::kUrl, {"10Mkeys", 0, 10'000'000}}};
  for (const Case& c : cases) {
    // What neither side can beat, in the same run: one random line read of a
    // buffer of the filter's size per precomputed hash (any hash, any
    // library); with blockbloom's hash: XXH3 alone, and XXH3 plus the line
    // read (or read-modify-write) (bench/floor_bench.cc).
    RegisterFloorRow(RowSpec{Op::kFloorLine, "floor", kBpk, c.size, c.keys, Mode::kBatch, "auto"});
    RegisterFloorRow(RowSpec{Op::kHash, "hash", kBpk, c.size, c.keys, Mode::kBatch, "auto"});
    RegisterFloorRow(RowSpec{Op::kFloorRead, "floor", kBpk, c.size, c.keys, Mode::kBatch, "auto"});
    RegisterFloorRow(RowSpec{Op::kFloorRmw, "floor", kBpk, c.size, c.keys, Mode::kBatch, "auto"});
    // The dispatched per-key rows' bound: one empty call per key through a
    // function pointer (floor_call).
    if (c.keys == KeyType::kU64)
      RegisterFloorRow(RowSpec{Op::kFloorCall, "floor", kBpk, c.size, c.keys, Mode::kPerKey, "any"});
    // The two-thread goal's machine: the same minimal probes on two threads
    // (each its own keys), so the report can say what two threads of this
    // work reach here at all.
    if (c.keys == KeyType::kU64 && c.size.keys == 100'000'000) {
      for (Op op : {Op::kFloorLine, Op::kFloorRead})
        RegisterFloorRow(RowSpec{op, "floor", kBpk, c.size, c.keys, Mode::kBatch, "auto", 2});
    }
    for (bp::Pair p : bp::kPairs) {
      for (Mode mode : {Mode::kBatch, Mode::kPerKey, Mode::kTyped}) {
        // Typed rows (uint64 keys and strings), when compiled.
        if (mode == Mode::kTyped && !typed_rows::Available()) continue;
        for (Op op : {Op::kInsert, Op::kQueryAbsent, Op::kQueryPresent}) {
          const std::vector<Side> sides = BlockbloomSides(p);
          for (const Side& s : sides) {
            RowSpec ours{op, std::string(LayoutName(s.layout)), kBpk, c.size, c.keys, mode,
                         mode == Mode::kPerKey ? "any" : mode == Mode::kTyped ? "native" : target};
            Register(ours, p, s, false);
          }
          if (have && mode != Mode::kTyped) {
            RowSpec theirs{op, bp::PairName(p), kBpk, c.size, c.keys, mode, "native"};
            Register(theirs, p, sides.front(), true);
          }
          // The per-key insert loop through a BufferedInserter (uint64 keys
          // and strings): ours only, against Boost's per-key inserts. Its
          // batches run on the active target, so the row pins the pairs' one,
          // as the batch rows do (with "any" it ran on whatever the previous
          // row had pinned).
          if (mode == Mode::kPerKey && op == Op::kInsert) {
            for (const Side& s : sides)
              Register(RowSpec{op, std::string(LayoutName(s.layout)), kBpk, c.size, c.keys, Mode::kBuffered, target}, p,
                       s, false);
          }
          // Boost's per-key code behind one call per key: what the dispatched
          // rows' one call costs with the peer's own probe (Mode::kPerCall).
          if (have && mode == Mode::kPerKey && c.keys == KeyType::kU64) {
            Register(RowSpec{op, bp::PairName(p), kBpk, c.size, c.keys, Mode::kPerCall, "native"}, p, sides.front(),
                     true);
          }
          // The typed loop with one folded multiply as its hash: the per-key
          // rows' reference (Mode::kTypedFold), uint64 keys.
          if (mode == Mode::kTyped && c.keys == KeyType::kU64) {
            for (const Side& s : sides) {
              Register(RowSpec{op, std::string(LayoutName(s.layout)), kBpk, c.size, c.keys, Mode::kTypedFold, "native"},
                       p, s, false);
            }
          }
        }
      }
      // Issue 20's "2 threads >= 1.8x one" at the DRAM point: our batch queries
      // on two threads (the same filter, each thread its own keys), against the
      // one-thread rows above; atomic batch inserts of fresh keys on one and two
      // threads (bench/filter_bench.cc: the default hash and the solver's k,
      // since the pairs' rows have no atomic inserts).
      if (c.keys == KeyType::kU64 && c.size.keys == 100'000'000) {
        for (const Side& s : BlockbloomSides(p)) {
          const std::string layout(LayoutName(s.layout));
          for (Op op : {Op::kQueryAbsent, Op::kQueryPresent})
            Register(RowSpec{op, layout, kBpk, c.size, c.keys, Mode::kBatch, target, 2}, p, s, false);
          for (int threads : {1, 2})
            RegisterFilterRow(RowSpec{Op::kInsertAtomic, layout, kBpk, c.size, c.keys, Mode::kBatch, target, threads});
        }
      }
    }
  }
}

#ifndef BLOCKBLOOM_HAVE_TYPED_ROWS
namespace typed_rows {
bool Available() { return false; }
bool Simd() { return false; }
const char* StaticTarget() { return "none"; }
bool Insert(Filter&, const uint64_t*, size_t) { return false; }
bool Insert(Filter&, const std::string_view*, size_t) { return false; }
bool Query(const FilterView&, const uint64_t*, size_t, uint64_t*) { return false; }
bool Query(const FilterView&, const std::string_view*, size_t, uint64_t*) { return false; }
bool InsertFold(Filter&, const uint64_t*, size_t) { return false; }
bool QueryFold(const FilterView&, const uint64_t*, size_t, uint64_t*) { return false; }
}  // namespace typed_rows
#endif

#ifndef BLOCKBLOOM_HAVE_BOOST_BLOOM
namespace boost_peer {
bool Available() { return false; }
std::unique_ptr<Peer> Make(Pair, uint64_t, bool) { return nullptr; }
const char* PairName(Pair) { return "boost"; }
}  // namespace boost_peer
#endif

}  // namespace blockbloom::bench
