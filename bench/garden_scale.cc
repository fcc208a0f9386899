// SPDX-License-Identifier: Apache-2.0
// The garden variants with a rate formula, held to measurement the streamed
// way (issue 13's last item): keys SplitMix64(i) for i < n (distinct), probes
// SplitMix64 of a disjoint index range (absent by construction), no exact set;
// probes for a +-5% acceptance interval at 99.99% (stats.h). One row per
// variant: measured, the variant's own formula, z, PASS/FAIL. Standalone (the
// garden and the CMake lists belong to others this session):
//
// after `cmake --build build/gcc --target blockbloom blockbloom_garden blockbloom_verify`, one line:
//   g++ -std=c++20 -O2 -Iengine/include -Igarden/include -Iverify/include -I. -Ibuild/gcc/generated/include bench/garden_scale.cc build/gcc/libblockbloom_garden.a build/gcc/libblockbloom_verify.a build/gcc/libblockbloom.a -lhwy -lxxhash -o build/garden_scale
//   build/garden_scale [n] [variants]   # n defaults to 10^8; variants a comma list of the names
//                                       # below (default all); all five at 10^8: ~130 s, 2 vCPU
//
// Variants and the formula each is held to (see their headers):
//   counting       CountingFilter(10 n cells, k = 7, 4-bit).Fpr(n): the classic exact rate over the cells
//   scalable       ScalableFilter(n / 64, 1%, blocked512, s = 2, r = 0.85).Fpr(): 1 - prod (1 - PredictFpr(slice))
//   a2             A2Filter(12 n bits, 1%).Fpr(): 1 - (1 - f(active)) (1 - f(passive)) after n new keys
//   stable         StableFilter(n / 10 cells, K = 3, d = 2, P = 10).StableFpr(): Deng & Rafiei's limit,
//                  after n inserts: 130 cell events per cell, far past Max = 3 (convergence)
//   blocked_counting  BlockedCountingFilter::ForKeys(n, 1%).Fpr(n) = BlockedCountingFpr(blocks, k, n): the
//                  "k anywhere in 128 counters" block rate with the probe-word term, mixed over the
//                  block loads of the kernels' 32-bit block selection (two classes of blocks, model.h
//                  "Block selection"), by the engine's own mixture (engine/src/model_internal.h).
// Count-min's formula is for over-counts, not membership; it is left to garden_test.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <chrono>
#include <string>

#include "blockbloom/garden.h"
#include "blockbloom/model.h"            // CountBlockClasses
#include "blockbloom/targets.h"          // ActiveTarget
#include "blockbloom/verify/stats.h"

namespace {

uint64_t Mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

constexpr double kConfidence = 0.9999;
constexpr double kRelative = 0.05;
const auto kStart = std::chrono::steady_clock::now();
double Elapsed() { return std::chrono::duration<double>(std::chrono::steady_clock::now() - kStart).count(); }

// Whether the variant `name` is selected by the comma list (empty: all).
bool Selected(const std::string& list, const char* name) {
  if (list.empty()) return true;
  const std::string padded = "," + list + ",";
  return padded.find("," + std::string(name) + ",") != std::string::npos;
}

template <typename F, typename Q>
void Row(const char* name, uint64_t n, F&& model, Q&& query) {
  const double p = model();
  const uint64_t probes = blockbloom::ProbesForRelativeHalfWidth(p, kRelative, kConfidence);
  uint64_t hits = 0;
  for (uint64_t j = 0; j < probes; ++j) hits += query(Mix64(n + j)) ? 1 : 0;
  const blockbloom::FprCheck c = blockbloom::CheckFpr(hits, probes, p, kConfidence);
  const double z = (static_cast<double>(hits) - static_cast<double>(probes) * p) /
                   std::sqrt(static_cast<double>(probes) * p * (1.0 - p));
  std::printf("| %s | %.3g | %.3g | %.5f%% | %.5f%% | %+.2f | [%.5f%%, %.5f%%] | %s |\n", name, static_cast<double>(n),
              static_cast<double>(probes), c.rate() * 100, p * 100, z,
              100.0 * static_cast<double>(c.accept.lo) / static_cast<double>(probes),
              100.0 * static_cast<double>(c.accept.hi) / static_cast<double>(probes), c.pass ? "PASS" : "FAIL");
  std::fflush(stdout);
  std::fprintf(stderr, "%s: done at %.1f s\n", name, Elapsed());
}

}  // namespace

int main(int argc, char** argv) {
  using namespace blockbloom;
  using namespace blockbloom::garden;
  const uint64_t n = argc > 1 ? static_cast<uint64_t>(std::strtod(argv[1], nullptr)) : 100'000'000;
  const std::string only = argc > 2 ? argv[2] : "";
  std::fprintf(stderr, "target %.*s, n %llu\n", static_cast<int>(ActiveTarget().size()), ActiveTarget().data(),
               static_cast<unsigned long long>(n));
  std::printf("| variant | n | probes | measured | formula | z | 99.99%% interval | result |\n");
  std::printf("| --- | --- | --- | --- | --- | --- | --- | --- |\n");
  if (Selected(only, "counting")) {
    CountingFilter f(10 * n, 7);
    for (uint64_t i = 0; i < n; ++i) f.Insert(Mix64(i));
    Row("counting (10 cells/key, k = 7, 4-bit)", n, [&] { return f.Fpr(n); }, [&](uint64_t key) { return f.MayContain(key); });
  }
  if (Selected(only, "scalable")) {
    ScalableFilter::Options o;
    ScalableFilter f(std::max<uint64_t>(1, n / 64), 0.01, o);
    for (uint64_t i = 0; i < n; ++i) f.Insert(Mix64(i));
    std::fprintf(stderr, "scalable: %zu slices, %llu keys added\n", f.slices(), static_cast<unsigned long long>(f.inserted()));
    Row("scalable (n0 = n/64, 1%, s = 2, r = 0.85)", n, [&] { return f.Fpr(); }, [&](uint64_t key) { return f.MayContain(key); });
  }
  if (Selected(only, "a2")) {
    A2Filter f(12 * n, 0.01);
    for (uint64_t i = 0; i < n; ++i) f.Insert(Mix64(i));
    std::fprintf(stderr, "a2: k %u capacity %llu swaps %llu active %llu passive %llu\n", f.k(),
                 static_cast<unsigned long long>(f.capacity()), static_cast<unsigned long long>(f.swaps()),
                 static_cast<unsigned long long>(f.active_count()), static_cast<unsigned long long>(f.passive_count()));
    Row("a2 (12 bits/key, 1%)", n, [&] { return f.Fpr(); }, [&](uint64_t key) { return f.MayContain(key); });
  }
  if (Selected(only, "stable")) {
    StableFilter f(std::max<uint64_t>(1000, n / 10), 3, 2, 10);
    for (uint64_t i = 0; i < n; ++i) f.Insert(Mix64(i));
    Row("stable (n/10 cells, K = 3, d = 2, P = 10)", n, [&] { return f.StableFpr(); },
        [&](uint64_t key) { return f.MayContain(key); });
  }
  if (Selected(only, "blocked_counting")) {
    auto f = BlockedCountingFilter::ForKeys(n, 0.01);
    for (uint64_t i = 0; i < n; ++i) f.Insert(Mix64(i));
    std::fprintf(stderr,
                 "blocked_counting: blocks %llu k %u (%.2f counters/key, %.1f MB), inserted %llu, saturations %llu, "
                 "saturated cells %llu; Fpr(n) %.6f%%\n",
                 static_cast<unsigned long long>(f.num_blocks()), f.k(),
                 128.0 * static_cast<double>(f.num_blocks()) / static_cast<double>(n), f.byte_size() / 1e6,
                 static_cast<unsigned long long>(f.inserted()), static_cast<unsigned long long>(f.saturations()),
                 static_cast<unsigned long long>(f.SaturatedCells()), f.Fpr(n) * 100);
    Row("blocked counting (ForKeys(n, 1%), 4-bit)", n, [&] { return f.Fpr(n); },
        [&](uint64_t key) { return f.MayContain(key); });
  }
  std::fprintf(stderr, "total %.1f s\n", Elapsed());
  return 0;
}
