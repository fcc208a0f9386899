// SPDX-License-Identifier: Apache-2.0
// Hash once, probe many (blockbloom/many.h) against the loop it replaces: one
// batch of keys probed against F = 1, 4, 16, 64 filters of 1M keys each
// (blocked512, 1% by the exact model: 1.2 MB per filter, so 16 and 64 filters
// spill out of a typical L2 / L3), as an LSM store probes the filters of its
// files. In its own binary (as garden_bench) so the engine report's row names
// stay as tools/scripts/report.py parses them:
//
//   cmake --build build/gcc --target many_bench && build/gcc/bench/many_bench
//
// Each row times both ways in the same run, alternating call by call so load
// and frequency changes hit them alike: `one_hash` = MayContainManyBitmap (each
// key hashed once, then every filter's hash-batch kernel over the hashes),
// `loop` = F calls of MayContainBatchBitmap (each hashing the keys again), for
// uint64 keys and URL-like strings. The row's time
// (manual) is the one-hash call's, items/s counts key-filter probes; its
// counters give both ways' ns per key-filter probe and speedup = loop / one_hash.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/many.h"

namespace {

using blockbloom::Filter;
using blockbloom::FilterView;

constexpr uint64_t kKeysPerFilter = 1'000'000;
constexpr size_t kProbes = 16'384;  // one probe batch (a query engine's vector of keys, 128 KiB)

// splitmix64: distinct keys per (filter, index), and probes no filter holds.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// The filters, built once and grown as rows ask for more (setup, untimed).
std::vector<Filter>& Filters(size_t count) {
  static std::vector<Filter> fs;
  std::vector<uint64_t> keys(kKeysPerFilter);
  while (fs.size() < count) {
    const uint64_t id = fs.size();
    for (uint64_t i = 0; i < kKeysPerFilter; ++i) keys[i] = Mix((id << 32) | i);
    fs.push_back(Filter::ForKeys(blockbloom::Layout::kBlocked512, kKeysPerFilter, 0.01));
    fs.back().InsertBatch(keys);
  }
  return fs;
}

// The probe batches: uint64 keys, or URL-like strings (about 40 bytes: a
// string's hash costs far more than a uint64's, which is where hashing once
// pays). All absent from every filter.
template <typename Key>
struct Pool;
template <>
struct Pool<uint64_t> {
  explicit Pool(size_t n) : keys(n) {
    for (size_t i = 0; i < n; ++i) keys[i] = Mix((uint64_t{0xffffffff} << 32) | i);
  }
  std::span<const uint64_t> Batch(size_t start, size_t n) const { return {keys.data() + start, n}; }
  std::vector<uint64_t> keys;
};
template <>
struct Pool<std::string_view> {
  explicit Pool(size_t n) : strings(n), views(n) {
    for (size_t i = 0; i < n; ++i) {
      strings[i] = "https://example.com/absent/" + std::to_string(Mix(i));
      views[i] = strings[i];
    }
  }
  std::span<const std::string_view> Batch(size_t start, size_t n) const { return {views.data() + start, n}; }
  std::vector<std::string> strings;
  std::vector<std::string_view> views;
};

// Both ways write one bitmap per filter (MayContainManyBitmap against F calls
// of MayContainBatchBitmap), so they do the same work but the hashing.
template <typename Key>
void BM_Many(benchmark::State& state) {
  const auto nf = static_cast<size_t>(state.range(0));
  std::vector<Filter>& all = Filters(nf);
  std::vector<const FilterView*> filters;
  for (size_t j = 0; j < nf; ++j) filters.push_back(&all[j]);
  // Fresh probes for every call (a pool of 64 batches walked in order) and
  // the order of the two calls swapped every iteration: neither way finds the
  // filter lines the other just fetched.
  constexpr size_t kBatches = 64;
  static const Pool<Key> pool(kProbes * kBatches);
  const size_t words = (kProbes + 63) / 64;
  std::vector<uint64_t> bits(words * nf);
  using Clock = std::chrono::steady_clock;
  double many_s = 0, loop_s = 0;
  size_t batch = 0;
  const auto next = [&] { return pool.Batch((batch++ % kBatches) * kProbes, kProbes); };
  const auto one_hash = [&] {
    const auto probes = next();
    const auto t0 = Clock::now();
    benchmark::DoNotOptimize(blockbloom::MayContainManyBitmap(filters, probes, bits));
    benchmark::ClobberMemory();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  const auto loop = [&] {
    const auto probes = next();
    const auto t0 = Clock::now();
    size_t hits = 0;
    for (size_t j = 0; j < nf; ++j)
      hits += filters[j]->MayContainBatchBitmap(probes, std::span<uint64_t>(bits.data() + j * words, words));
    benchmark::DoNotOptimize(hits);
    benchmark::ClobberMemory();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  bool many_first = true;
  for (auto _ : state) {
    double m, l;
    if (many_first) {
      m = one_hash();
      l = loop();
    } else {
      l = loop();
      m = one_hash();
    }
    many_first = !many_first;
    many_s += m;
    loop_s += l;
    state.SetIterationTime(m);
  }
  const double probes_done = static_cast<double>(state.iterations()) * static_cast<double>(kProbes * nf);
  state.SetItemsProcessed(static_cast<int64_t>(probes_done));
  state.counters["one_hash_ns"] = many_s * 1e9 / probes_done;
  state.counters["loop_ns"] = loop_s * 1e9 / probes_done;
  state.counters["speedup"] = many_s > 0 ? loop_s / many_s : 0;
}
BENCHMARK(BM_Many<uint64_t>)->Name("many/u64")->ArgName("filters")->Arg(1)->Arg(4)->Arg(16)->Arg(64)->UseManualTime();
BENCHMARK(BM_Many<std::string_view>)
    ->Name("many/url")
    ->ArgName("filters")
    ->Arg(1)
    ->Arg(4)
    ->Arg(16)
    ->Arg(64)
    ->UseManualTime();

}  // namespace

BENCHMARK_MAIN();
