// SPDX-License-Identifier: Apache-2.0
// Where a batch's prefetches go, measured on a noisy machine: one filter's
// InsertBatch or MayContainBatch (uint64 keys, `aes`, 10 bits/key) timed with
// its lines prefetched into the L2, into the L1, not at all, and as the
// library decides (kernels::PrefetchToL1, kernels::PrefetchMinBytes), the four
// in a shuffled order in each round, so that a change of the host's load or
// clock hits them alike; it prints the medians over the rounds of each form's
// ns per key and of each round's ratio to the L2 form. In its own binary, as
// many_bench, so the bench's row names stay as tools/scripts/report.py parses
// them:
//
//   cmake --build build/gcc --target prefetch_ab
//   build/gcc/bench/prefetch_ab KEYS LAYOUT insert|query [ROUNDS]
//
// LAYOUT: blocked512, split256, split512, sectorized512, register64, classic;
// BLOCKBLOOM_TARGET pins the target (avx2, say). What the Sapphire Rapids
// class's rule rests on (kernels/kernels.cc) was measured this way:
// bench/results/prefetch_intel_emr.md.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "bench/ab_rounds.h"
#include "blockbloom/filter.h"
#include "kernels/kernels.h"

namespace {

using blockbloom::Filter;
using blockbloom::Layout;
using blockbloom::bench::Median;
using blockbloom::bench::MedianRatio;
namespace kernels = blockbloom::kernels;

struct Form {
  const char* name;
  kernels::PrefetchPolicy policy;
  kernels::PrefetchLevel level;
};
constexpr std::array<Form, 4> kForms = {{
    {"L2", kernels::PrefetchPolicy::kAlways, kernels::PrefetchLevel::kL2},
    {"L1", kernels::PrefetchPolicy::kAlways, kernels::PrefetchLevel::kL1},
    {"none", kernels::PrefetchPolicy::kNever, kernels::PrefetchLevel::kL2},
    {"auto", kernels::PrefetchPolicy::kAuto, kernels::PrefetchLevel::kAuto},
}};

int Usage() {
  std::fprintf(stderr,
               "usage: prefetch_ab KEYS LAYOUT insert|query [ROUNDS]\n"
               "  KEYS: keys inserted at 10 bits/key (>= 1000); LAYOUT: blocked512, split256, split512,\n"
               "  sectorized512, register64, classic; ROUNDS: 3-1001 (default 21)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4 || argc > 5) return Usage();
  const uint64_t n = std::strtoull(argv[1], nullptr, 10);
  const std::optional<Layout> parsed = blockbloom::ParseLayout(argv[2]);
  if (n < 1000 || !parsed) return Usage();
  const Layout layout = *parsed;
  const std::string_view op = argv[3];
  if (op != "insert" && op != "query") return Usage();
  const bool insert = op == "insert";
  const long rounds = argc == 5 ? std::strtol(argv[4], nullptr, 10) : 21;
  if (rounds < 3 || rounds > 1001) return Usage();
  const uint32_t k = layout == Layout::kRegister64 ? 6 : layout == Layout::kClassic ? 7 : 8;

  Filter f = Filter::WithBits(layout, n * 10, k, blockbloom::HashKind::kAes);
  std::mt19937_64 rng(42);
  std::vector<uint64_t> keys(n);
  for (uint64_t& key : keys) key = rng();
  f.InsertBatch(keys);
  // A round's keys: inserted ones again (inserts), or fresh ones (absent queries).
  const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, uint64_t{1} << 20));
  std::vector<uint64_t> probe(chunk);
  std::vector<uint8_t> out(chunk);
  size_t hits = 0;
  const auto ns = blockbloom::bench::TimeRounds<kForms.size()>(
      rounds, rng, 3.0 * static_cast<double>(chunk),
      [&] {
        for (uint64_t& key : probe) key = insert ? keys[rng() % n] : rng();
      },
      [&](size_t m) {
        kernels::SetPrefetchPolicy(kForms[m].policy);
        kernels::SetPrefetchLevel(kForms[m].level);
      },
      [&](size_t) {
        for (int rep = 0; rep < 3; ++rep) {
          if (insert) {
            f.InsertBatch(probe);
          } else {
            hits += f.MayContainBatch(probe, out);
          }
        }
      });
  kernels::SetPrefetchPolicy(kernels::PrefetchPolicy::kAuto);
  kernels::SetPrefetchLevel(kernels::PrefetchLevel::kAuto);
  std::printf("%s %s, %llu keys (%.2f MiB), %ld rounds; ns/key and /L2:", argv[2], argv[3],
              static_cast<unsigned long long>(n), static_cast<double>(f.byte_size()) / (1 << 20), rounds);
  for (size_t m = 0; m < kForms.size(); ++m)
    std::printf("  %s %.3f (%.3f)", kForms[m].name, Median(ns[m]), MedianRatio(ns[m], ns[0]));
  // auto's level; whether it prefetches depends on the target too (kernels::PrefetchMinBytes).
  std::printf("  [auto: into the %s; hits %zu]\n", kernels::PrefetchToL1(f.byte_size()) ? "L1" : "L2", hits);
  return 0;
}
