// SPDX-License-Identifier: Apache-2.0
// The filter rows: insert and query (present, absent, 50/50 mix), per key and
// batched, on one pinned target or the scalar reference, 1 or 2 threads.
//
// Insert rows re-insert keys the filter already holds (the present pool): the
// kernels' work does not depend on the bits they find (hash, pick the block,
// build the mask, load, OR, store), so the cost is that of a fresh insert, while
// the filter the query rows share stays exactly the filter of its n keys.
// Atomic inserts do depend on them (a word already holding a key's bits gets no
// locked OR, kernels/pipeline-inl.h), so their rows insert fresh keys (the
// absent pool: distinct, none in the filter) into an empty filter of the row's
// shape: each run is one pass over the pool from empty (the iterations fixed in
// RegisterRow), a build of min(n, 16M) keys, both threads into one filter.
#include <memory>
#include <span>
#include <vector>

#include "bench/bench_common.h"
#include "engine/src/filter_access.h"
#include "kernels/kernels.h"
#include "kernels/reference.h"

namespace blockbloom::bench {
namespace {

kernels::FilterRef RefOf(Filter& f) { return detail::FilterAccess::Ref(f); }

// The keys of a pool an op walks.
template <typename Key>
const std::vector<Key>& PoolFor(const Pools& p, Op op);
template <>
const std::vector<uint64_t>& PoolFor<uint64_t>(const Pools& p, Op op) {
  return op == Op::kQueryAbsent ? p.absent : op == Op::kQueryMix ? p.mix : p.present;
}
template <>
const std::vector<std::string_view>& PoolFor<std::string_view>(const Pools& p, Op op) {
  return op == Op::kQueryAbsent ? p.absent_s.views : op == Op::kQueryMix ? p.mix_s.views : p.present_s.views;
}

bool IsInsert(Op op) { return op == Op::kInsert || op == Op::kInsertAtomic; }

// One chunk of keys through the row's path; returns the query hits (0 for inserts).
template <typename Key>
uint64_t RunChunk(const RowSpec& row, Filter& f, std::span<const Key> keys, std::span<uint8_t> out) {
  if (row.mode == Mode::kPerKey) {
    uint64_t hits = 0;
    if (IsInsert(row.op)) {
      for (const Key& k : keys) {
        if (row.op == Op::kInsertAtomic) {
          if constexpr (std::is_same_v<Key, uint64_t>) f.InsertAtomic(k);
        } else {
          f.Insert(k);
        }
      }
    } else {
      for (const Key& k : keys) hits += f.MayContain(k);
    }
    return hits;
  }
  if (row.target == "reference") {
    // The scalar reference side by side: the same Ops entry points the engine
    // calls on a SIMD target (uint64 keys only; the engine hashes strings itself).
    const kernels::Ops& ops = kernels::reference::ReferenceOps();
    if constexpr (std::is_same_v<Key, uint64_t>) {
      if (IsInsert(row.op)) {
        ops.insert_keys(RefOf(f), keys.data(), keys.size(), f.seed(), f.hash_kind());
        return 0;
      }
      return ops.query_keys(RefOf(f), keys.data(), keys.size(), f.seed(), f.hash_kind(), out.data());
    }
    return 0;
  }
  if (row.op == Op::kInsertAtomic) {
    if constexpr (std::is_same_v<Key, uint64_t>) f.InsertBatchAtomic(keys);
    return 0;
  }
  if (row.op == Op::kInsert) {
    f.InsertBatch(keys);
    return 0;
  }
  return f.MayContainBatch(keys, out);
}

template <typename Key>
void FilterRow(benchmark::State& st, const RowSpec& row) {
  const Layout layout = *ParseLayout(row.layout);
  const uint64_t n = row.size.KeysAt(row.bpk);
  const auto pools = GetPools(row.keys, n);
  const auto ctx = GetFilter(layout, row.bpk, n, row.keys);
  PinFor(row.target);
  const bool fresh = row.op == Op::kInsertAtomic;
  const std::vector<Key>& pool = fresh ? PoolFor<Key>(*pools, Op::kQueryAbsent) : PoolFor<Key>(*pools, row.op);
  // The empty filter of an atomic row: made by thread 0 before the loop's start
  // barrier, which the other threads pass only after it.
  static std::unique_ptr<Filter> empty;
  if (fresh && st.thread_index() == 0) {
    const Filter& f = *ctx->filter;
    empty = std::make_unique<Filter>(Filter::WithBlocks(f.layout(), f.num_blocks(), f.k(), f.hash_kind(), f.seed()));
    empty->Clear();  // writes every page: no first-touch faults in the timed loop
  }
  // The sweep's rows force the prefetch choice for their own runs only (rows run one at a time).
  const kernels::ScopedPrefetchPolicy policy(row.mode == Mode::kBatchPrefetch     ? kernels::PrefetchPolicy::kAlways
                                             : row.mode == Mode::kBatchNoPrefetch ? kernels::PrefetchPolicy::kNever
                                                                                  : kernels::PrefetchPolicy::kAuto);
  PoolWalker walk(pool.size(), st);
  std::vector<uint8_t> out(kIterKeys);
  uint64_t hits = 0;
  for (auto _ : st) {
    const PoolWalker::Chunk c = walk.Next();
    hits += RunChunk<Key>(row, fresh ? *empty : *ctx->filter, std::span<const Key>(pool.data() + c.begin, c.len), out);
    benchmark::DoNotOptimize(hits);
    benchmark::ClobberMemory();
  }
  // Past the loop's stop barrier no thread touches it: free it (a full-preset row's filter can be 1 GiB).
  if (fresh && st.thread_index() == 0) empty.reset();
  FinishRow(st, walk.keys(), hits, row, ctx->model_fpr);
  st.counters["k"] = benchmark::Counter(ctx->filter->k(), benchmark::Counter::kAvgThreads);
  st.counters["bytes"] = benchmark::Counter(static_cast<double>(ctx->filter->byte_size()), benchmark::Counter::kAvgThreads);
}

}  // namespace

void RegisterFilterRow(const RowSpec& row) {
  RegisterRow(row, &FilterRow<uint64_t>, &FilterRow<std::string_view>);
}

}  // namespace blockbloom::bench
