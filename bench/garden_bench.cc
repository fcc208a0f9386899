// SPDX-License-Identifier: Apache-2.0
// garden_bench: every garden variant's insert and query speed at 1M keys,
// beside the engine's blocked512 batch path in the same binary and run, so
// the ratios (issue 14: "the blocked counting filter within 2x of blocked512")
// come from one run on one machine state.
//
//   build/.../bench/garden_bench --benchmark_filter='1M' --benchmark_min_time=0.5
// and the blocked counting filter's batches with prefetch forced on and off by size:
//   build/.../bench/garden_bench --benchmark_filter='^sweep/' --benchmark_repetitions=15
//                                --benchmark_enable_random_interleaving=true --benchmark_min_time=0.05
//
// Each iteration handles kChunk keys from a pool of 1M (present keys for
// inserts and "present" queries, disjoint keys for "absent"); items_per_second
// counts keys, so ns/key = 1e9 / items_per_second. Inserts re-insert keys the
// variant already holds, which costs what a fresh insert costs (the work does
// not depend on the counters' values, except at saturation, which the
// counting variants reach only after 15 passes and which adds no work).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/garden.h"
#include "kernels/kernels.h"

namespace {

namespace g = blockbloom::garden;
using blockbloom::Filter;
using blockbloom::Layout;

constexpr uint64_t kKeys = 1 << 20;  // "1M"
constexpr size_t kChunk = 1 << 14;
constexpr double kFpr = 0.01;

uint64_t Mix(uint64_t x) {  // SplitMix64's finalizer: distinct, well-spread keys
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

const std::vector<uint64_t>& Present() {
  static const std::vector<uint64_t> v = [] {
    std::vector<uint64_t> k(kKeys);
    for (uint64_t i = 0; i < kKeys; ++i) k[i] = Mix(2 * i);
    return k;
  }();
  return v;
}
const std::vector<uint64_t>& Absent() {
  static const std::vector<uint64_t> v = [] {
    std::vector<uint64_t> k(kKeys);
    for (uint64_t i = 0; i < kKeys; ++i) k[i] = Mix(2 * i + 1);
    return k;
  }();
  return v;
}

// Walks a pool in chunks, wrapping around; wrapped() is true once per pass
// (at the start of the second and later passes).
class Walk {
 public:
  explicit Walk(const std::vector<uint64_t>& pool) : pool_(pool) {}
  std::span<const uint64_t> Next() {
    wrapped_ = false;
    if (at_ + kChunk > pool_.size()) {
      at_ = 0;
      wrapped_ = true;
    }
    const std::span<const uint64_t> s(pool_.data() + at_, kChunk);
    at_ += kChunk;
    return s;
  }
  bool wrapped() const { return wrapped_; }

 private:
  const std::vector<uint64_t>& pool_;
  size_t at_ = 0;
  bool wrapped_ = false;
};

// Insert rows start every pass over the pool on an empty variant (cleared
// outside the timing), so counters never saturate from repetition: each pass
// times exactly the build of the 1M-key variant.
template <typename T>
void ClearOnWrap(benchmark::State& st, const Walk& w, T& v) {
  if (!w.wrapped()) return;
  st.PauseTiming();
  v.Clear();
  st.ResumeTiming();
}

template <typename T, typename Fill>
T& Built(Fill&& fill) {
  static std::unique_ptr<T> v = [&] {
    auto p = std::make_unique<T>(fill());
    return p;
  }();
  return *v;
}

void Finish(benchmark::State& st, uint64_t bytes) {
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(kChunk));
  st.counters["bytes"] = static_cast<double>(bytes);
}

// Batch insert and batch query (arg: present?) of the filter kFilter() builds
// once: the engine's blocked512 and the blocked counting filter alike.
template <auto kFilter>
void BM_InsertBatch(benchmark::State& st) {
  auto& f = kFilter();
  Walk w(Present());
  for (auto _ : st) {
    const auto keys = w.Next();
    ClearOnWrap(st, w, f);
    f.InsertBatch(keys);
  }
  Finish(st, f.byte_size());
}
template <auto kFilter>
void BM_QueryBatch(benchmark::State& st) {
  auto& f = kFilter();
  Walk w(st.range(0) ? Present() : Absent());
  std::vector<uint8_t> out(kChunk);
  for (auto _ : st) benchmark::DoNotOptimize(f.MayContainBatch(w.Next(), out));
  Finish(st, f.byte_size());
}

// ---- The engine: blocked512 batch, the yardstick ------------------------------------

Filter& Engine() {
  return Built<Filter>([] {
    Filter f = Filter::ForKeys(Layout::kBlocked512, kKeys, kFpr);
    f.InsertBatch(Present());
    return f;
  });
}
BENCHMARK(BM_InsertBatch<&Engine>)->Name("1M/engine_blocked512/insert_batch");
BENCHMARK(BM_QueryBatch<&Engine>)->Name("1M/engine_blocked512/query_batch")->ArgName("present")->Arg(0)->Arg(1);

// ---- Blocked counting -------------------------------------------------------------------

g::BlockedCountingFilter& Blocked() {
  return Built<g::BlockedCountingFilter>([] {
    auto f = g::BlockedCountingFilter::ForKeys(kKeys, kFpr);
    f.InsertBatch(Present());
    return f;
  });
}
// Remove then re-insert the same chunk: the filter's state is unchanged per iteration; 2 ops per key.
void BM_Blocked_RemoveInsertBatch(benchmark::State& st) {
  auto& f = Blocked();
  Walk w(Present());
  std::vector<uint8_t> removed(kChunk);
  for (auto _ : st) {
    const auto keys = w.Next();
    f.RemoveBatch(keys, removed);
    f.InsertBatch(keys);
  }
  Finish(st, f.byte_size());
}
void BM_Blocked_CountBatch(benchmark::State& st) {
  auto& f = Blocked();
  Walk w(Present());
  std::vector<uint8_t> out(kChunk);
  for (auto _ : st) {
    f.CountBatch(w.Next(), out);
    benchmark::DoNotOptimize(out.data());
  }
  Finish(st, f.byte_size());
}
void BM_Blocked_PerKey(benchmark::State& st) {
  auto& f = Blocked();
  Walk w(st.range(0) ? Present() : Absent());
  uint64_t hits = 0;
  for (auto _ : st) {
    for (uint64_t k : w.Next()) hits += f.MayContain(k);
    benchmark::DoNotOptimize(hits);
  }
  Finish(st, f.byte_size());
}
BENCHMARK(BM_InsertBatch<&Blocked>)->Name("1M/blocked_counting/insert_batch");
BENCHMARK(BM_Blocked_RemoveInsertBatch)->Name("1M/blocked_counting/remove+insert_batch");
BENCHMARK(BM_QueryBatch<&Blocked>)->Name("1M/blocked_counting/query_batch")->ArgName("present")->Arg(0)->Arg(1);
BENCHMARK(BM_Blocked_CountBatch)->Name("1M/blocked_counting/count_batch");
BENCHMARK(BM_Blocked_PerKey)->Name("1M/blocked_counting/query_per_key")->ArgName("present")->Arg(0)->Arg(1);

// Prefetch or not, by size: the blocked counting filter's batches prefetch from
// kernels::kPrefetchMinBytes (kernels/counting-inl.h); these rows force it on
// and off (kernels::SetPrefetchPolicy, for the row's runs) at 16K-1M keys.
// Args: keys, prefetch (1 on, 0 off), query (1: absent keys, 0: inserts, each
// pass over the row's keys into an emptied filter).
void BM_Blocked_Prefetch(benchmark::State& st) {
  const uint64_t n = static_cast<uint64_t>(st.range(0));
  static std::map<uint64_t, std::pair<std::vector<uint64_t>, std::unique_ptr<g::BlockedCountingFilter>>> built;
  auto& [keys, filter] = built[n];
  if (!filter) {
    keys.assign(Present().begin(), Present().begin() + static_cast<std::ptrdiff_t>(n));
    filter = std::make_unique<g::BlockedCountingFilter>(g::BlockedCountingFilter::ForKeys(n, kFpr));
    filter->InsertBatch(keys);
  }
  g::BlockedCountingFilter& f = *filter;
  const blockbloom::kernels::ScopedPrefetchPolicy policy(st.range(1) ? blockbloom::kernels::PrefetchPolicy::kAlways
                                                                      : blockbloom::kernels::PrefetchPolicy::kNever);
  if (st.range(2)) {
    Walk w(Absent());
    std::vector<uint8_t> out(kChunk);
    for (auto _ : st) benchmark::DoNotOptimize(f.MayContainBatch(w.Next(), out));
  } else {
    Walk w(keys);
    for (auto _ : st) {
      const auto chunk = w.Next();
      ClearOnWrap(st, w, f);
      f.InsertBatch(chunk);
    }
    f.Clear();  // past the timed loop: leave the filter of its keys for the next row of this size
    f.InsertBatch(keys);
  }
  Finish(st, f.byte_size());
}
BENCHMARK(BM_Blocked_Prefetch)
    ->Name("sweep/blocked_counting")
    ->ArgNames({"keys", "prefetch", "query"})
    ->ArgsProduct({{1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19, 1 << 20}, {1, 0}, {0, 1}});

// ---- Classic counting: per key and the prefetched hash batches ----------------------------

g::CountingFilter& Counting() {
  return Built<g::CountingFilter>([] {
    // The classic optimum for 1M keys at 1%: 9.59 cells a key, k = 7 (4.8 MB of 4-bit counters).
    g::CountingFilter f(9585059, 7);
    for (uint64_t k : Present()) f.Insert(k);
    return f;
  });
}
std::vector<uint64_t> HashesOf(std::span<const uint64_t> keys, const g::KeyHasher& h) {
  std::vector<uint64_t> out(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) out[i] = h(keys[i]);
  return out;
}
void BM_Counting_Insert(benchmark::State& st) {
  auto& f = Counting();
  Walk w(Present());
  for (auto _ : st) {
    const auto keys = w.Next();
    ClearOnWrap(st, w, f);
    if (st.range(0)) {
      f.InsertHashBatch(HashesOf(keys, f.hasher()));
    } else {
      for (uint64_t k : keys) f.Insert(k);
    }
  }
  Finish(st, f.byte_size());
}
void BM_Counting_Query(benchmark::State& st) {
  auto& f = Counting();
  Walk w(Absent());
  std::vector<uint8_t> out(kChunk);
  uint64_t hits = 0;
  for (auto _ : st) {
    if (st.range(0)) {
      hits += f.MayContainHashBatch(HashesOf(w.Next(), f.hasher()), out);
    } else {
      for (uint64_t k : w.Next()) hits += f.MayContain(k);
    }
    benchmark::DoNotOptimize(hits);
  }
  Finish(st, f.byte_size());
}
BENCHMARK(BM_Counting_Insert)->Name("1M/counting/insert")->ArgName("batch")->Arg(0)->Arg(1);
BENCHMARK(BM_Counting_Query)->Name("1M/counting/query_absent")->ArgName("batch")->Arg(0)->Arg(1);

// ---- Count-min at eps = 1e-5 (11 MB) ---------------------------------------------------------

g::CountMinSketch& CountMin() {
  return Built<g::CountMinSketch>([] {
    auto s = g::CountMinSketch::ForError(1e-5, 0.01);
    for (uint64_t k : Present()) s.Add(k);
    return s;
  });
}
void BM_CountMin_Add(benchmark::State& st) {
  auto& s = CountMin();
  Walk w(Present());
  for (auto _ : st) {
    const auto keys = w.Next();
    ClearOnWrap(st, w, s);
    if (st.range(0)) {
      s.AddHashBatch(HashesOf(keys, s.hasher()));
    } else {
      for (uint64_t k : keys) s.Add(k);
    }
  }
  Finish(st, s.width() * s.depth() * 8);
}
void BM_CountMin_Estimate(benchmark::State& st) {
  auto& s = CountMin();
  Walk w(Present());
  std::vector<uint64_t> out(kChunk);
  uint64_t sum = 0;
  for (auto _ : st) {
    if (st.range(0)) {
      s.EstimateHashBatch(HashesOf(w.Next(), s.hasher()), out);
      sum += out[0];
    } else {
      for (uint64_t k : w.Next()) sum += s.Estimate(k);
    }
    benchmark::DoNotOptimize(sum);
  }
  Finish(st, s.width() * s.depth() * 8);
}
BENCHMARK(BM_CountMin_Add)->Name("1M/count_min/add")->ArgName("batch")->Arg(0)->Arg(1);
BENCHMARK(BM_CountMin_Estimate)->Name("1M/count_min/estimate")->ArgName("batch")->Arg(0)->Arg(1);

// ---- The per-key variants -------------------------------------------------------------------

template <typename T, typename Make>
void PerKeyInsertQuery(benchmark::State& st, Make&& make, uint64_t bytes) {
  static std::unique_ptr<T> v;
  if (!v) {
    v = std::make_unique<T>(make());
    for (uint64_t k : Present()) v->Insert(k);
  }
  Walk w(st.range(0) ? Present() : Absent());
  uint64_t hits = 0;
  for (auto _ : st) {
    if (st.range(1)) {
      const auto keys = w.Next();
      ClearOnWrap(st, w, *v);
      for (uint64_t k : keys) v->Insert(k);
    } else {
      for (uint64_t k : w.Next()) hits += v->MayContain(k);
    }
    benchmark::DoNotOptimize(hits);
  }
  Finish(st, bytes);
}

// 16-bit counters, 9.59 cells a key, k = 7: 19 MB (RM: +50% for its secondary).
void BM_SpectralMS(benchmark::State& st) {
  PerKeyInsertQuery<g::SpectralFilter>(
      st, [] { return g::SpectralFilter(9585059, 7, g::SpectralFilter::Policy::kMinimumSelection); }, 9585059 * 2);
}
void BM_SpectralMI(benchmark::State& st) {
  PerKeyInsertQuery<g::SpectralFilter>(
      st, [] { return g::SpectralFilter(9585059, 7, g::SpectralFilter::Policy::kMinimumIncrease); }, 9585059 * 2);
}
void BM_SpectralRM(benchmark::State& st) {
  PerKeyInsertQuery<g::SpectralFilter>(
      st, [] { return g::SpectralFilter(9585059, 7, g::SpectralFilter::Policy::kRecurringMinimum); }, 9585059 * 3);
}
void BM_Bitwise(benchmark::State& st) {
  PerKeyInsertQuery<g::BitwiseFilter>(st, [] { return g::BitwiseFilter(3, {9585059, 7, 4}); }, 3 * 9585059 / 2);
}
void BM_Stable(benchmark::State& st) {
  PerKeyInsertQuery<g::StableFilter>(st, [] { return g::StableFilter(9585059, 7, 3, 10, 1); }, 9585059 / 4);
}
void BM_A2(benchmark::State& st) {
  PerKeyInsertQuery<g::A2Filter>(st, [] { return g::A2Filter(uint64_t{24} << 20, kFpr); }, 3 << 20);
}
void BM_Scalable(benchmark::State& st) {
  PerKeyInsertQuery<g::ScalableFilter>(st, [] { return g::ScalableFilter(1 << 16, kFpr); }, 0);
}
// Args: present?, insert?
BENCHMARK(BM_SpectralMS)->Name("1M/spectral_ms")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});
BENCHMARK(BM_SpectralMI)->Name("1M/spectral_mi")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});
BENCHMARK(BM_SpectralRM)->Name("1M/spectral_rm")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});
BENCHMARK(BM_Bitwise)->Name("1M/bitwise")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});
BENCHMARK(BM_Stable)->Name("1M/stable")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});
BENCHMARK(BM_A2)->Name("1M/a2")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});
BENCHMARK(BM_Scalable)->Name("1M/scalable")->ArgNames({"present", "insert"})->Args({1, 1})->Args({0, 0});

}  // namespace

BENCHMARK_MAIN();
