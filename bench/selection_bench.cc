// SPDX-License-Identifier: Apache-2.0
// Block selection from 32 vs 64 hash bits (issue 13): what a uniform 64-bit
// multiply-high would cost. A standalone Google Benchmark program (its own
// main; not in blockbloom_bench, whose CMake list others own):
//
//   g++ -std=c++20 -O2 -mavx2 -I. bench/selection_bench.cc -lbenchmark -lpthread -o selection_bench
//   ./selection_bench --benchmark_min_time=0.5
//
// Variants of the block index of a 64-bit hash h into b <= 2^32 - 1 blocks:
//   hi32    ((h >> 32) * b) >> 32            what the kernels do (kernels/common.h): one
//                                            32x32->64 multiply, a SIMD lane op (vpmuludq)
//   mulhi64 (h * b) >> 64 as 2 products       (hh b + ((hl b) >> 32)) >> 32 with h = hh 2^32 + hl:
//                                            exact for b < 2^32 and built from 32x32->64
//                                            multiplies only, so SIMD-friendly (2 vpmuludq)
//   u128    (unsigned __int128)(h) * b >> 64  the scalar way (one mulx)
// The 64-bit variants also remix the in-block bits (lo32 of h * an odd
// constant, one more multiply), so they stay independent of the block choice.
//
// Rows: Index/* computes the indices of 4096 hashes (L1-resident; the compiler
// vectorizes what it can, as the Highway kernels would); Query/* is a scalar
// blocked512 k = 6 query (probe bits as in kernels/reference.cc) over a filter
// of 32 KiB (L1), 1 MiB (L2) or 256 MiB (DRAM), so the index's share of a whole
// query is visible. Run on the project's machine: see docs/layouts-and-model.md, "The model at scale".
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr uint32_t kGoldenPow[6] = {0x00000001, 0x9e3779b9, 0xe35e67b1, 0x734297e9, 0x35fbe861, 0xdeb7c719};
constexpr uint64_t kRemix = 0x9FB21C651E98DF25ULL;  // XXH3's rrmxmx multiplier

enum class Sel { kHi32, kMulhi64, kU128 };

uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

template <Sel kSel>
inline uint64_t Block(uint64_t h, uint64_t b) {
  if constexpr (kSel == Sel::kHi32) {
    return ((h >> 32) * b) >> 32;
  } else if constexpr (kSel == Sel::kMulhi64) {
    return (((h >> 32) * b) + (((h & 0xffffffffULL) * b) >> 32)) >> 32;
  } else {
    __extension__ using U128 = unsigned __int128;
    return static_cast<uint64_t>((static_cast<U128>(h) * b) >> 64);
  }
}

template <Sel kSel>
inline uint32_t InBlock(uint64_t h) {
  if constexpr (kSel == Sel::kHi32) {
    return static_cast<uint32_t>(h);
  } else {
    return static_cast<uint32_t>((h * kRemix) >> 32);
  }
}

std::vector<uint64_t> Hashes(size_t n) {
  std::vector<uint64_t> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = Mix64(i);
  return h;
}

template <Sel kSel>
void BM_Index(benchmark::State& state) {
  const std::vector<uint64_t> h = Hashes(4096);
  std::vector<uint64_t> block(h.size());
  std::vector<uint32_t> lo(h.size());
  const uint64_t b = 156'250'000;
  for (auto _ : state) {
    for (size_t i = 0; i < h.size(); ++i) {
      block[i] = Block<kSel>(h[i], b);
      lo[i] = InBlock<kSel>(h[i]);
    }
    benchmark::DoNotOptimize(block.data());
    benchmark::DoNotOptimize(lo.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * h.size()));
}

template <Sel kSel>
void BM_Query(benchmark::State& state) {
  const uint64_t bytes = static_cast<uint64_t>(state.range(0));
  const uint64_t num_blocks = bytes / 64;
  std::vector<uint32_t> filter(bytes / 4);
  // Fill to about half (10 bits/key, k = 6): set each bit with probability 1/2.
  for (size_t i = 0; i < filter.size(); ++i) filter[i] = static_cast<uint32_t>(Mix64(i ^ 0xabcdef));
  const std::vector<uint64_t> h = Hashes(1 << 16);
  size_t hits = 0;
  for (auto _ : state) {
    for (uint64_t x : h) {
      const uint32_t* blk = filter.data() + Block<kSel>(x, num_blocks) * 16;
      const uint32_t lo = InBlock<kSel>(x);
      bool all = true;
      for (uint32_t i = 0; i < 6; ++i) {
        const uint32_t bit = (lo * kGoldenPow[i]) >> 23;
        all &= (blk[bit >> 5] >> (bit & 31)) & 1;
      }
      hits += all;
    }
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * h.size()));
}

BENCHMARK(BM_Index<Sel::kHi32>)->Name("Index/hi32");
BENCHMARK(BM_Index<Sel::kMulhi64>)->Name("Index/mulhi64_2x32");
BENCHMARK(BM_Index<Sel::kU128>)->Name("Index/mulhi64_u128");
BENCHMARK(BM_Query<Sel::kHi32>)->Name("Query/hi32")->Arg(32 << 10)->Arg(1 << 20)->Arg(256 << 20);
BENCHMARK(BM_Query<Sel::kMulhi64>)->Name("Query/mulhi64_2x32")->Arg(32 << 10)->Arg(1 << 20)->Arg(256 << 20);
BENCHMARK(BM_Query<Sel::kU128>)->Name("Query/mulhi64_u128")->Arg(32 << 10)->Arg(1 << 20)->Arg(256 << 20);

}  // namespace

BENCHMARK_MAIN();
