// SPDX-License-Identifier: Apache-2.0
// `blockbloom demo`: the project's main job in one command. Builds a
// cache-line-blocked filter for 10 million keys at a 1% target, then for every
// SIMD target this CPU runs: inserts the keys in batches, probes 10 million
// present and 10 million absent keys, and reports ns/key, the measured
// false-positive rate beside the model's, and the memory used.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "blockbloom/targets.h"
#include "blockbloom/filter.h"
#include "blockbloom/layout.h"
#include "blockbloom/model.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"

namespace blockbloom::cli {
namespace {

// SplitMix64's finalizer: a bijection of uint64, so distinct inputs give
// distinct keys. Present keys are Mix(2i), absent keys Mix(2i + 1): disjoint by
// construction, so every hit on an absent key is a false positive.
uint64_t Mix(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;  // floor(2^64 / phi)
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

struct Row {
  std::string target;
  double insert_ns, present_ns, absent_ns, fpr;
  bool all_present, same_bytes;
};

}  // namespace

int Targets(int argc, char** argv) {
  Args args(argc, argv, {});
  args.ExpectPositionals(0, 0, "no arguments");
  std::printf("%-10s %-10s %s\n", "target", "supported", "in use");
  for (const TargetInfo& t : CompiledTargets()) {
    std::printf("%-10.*s %-10s %s\n", static_cast<int>(t.name.size()), t.name.data(), t.supported ? "yes" : "no",
                t.name == ActiveTarget() ? "*" : "");
  }
  return 0;
}

int Demo(int argc, char** argv) {
  Args args(argc, argv, {"n", "fpr", "layout", "reps", "batch"});
  args.ExpectPositionals(0, 0, "no positional arguments");
  const uint64_t n = args.U64("n", 10'000'000, 1, kMaxKeys);
  const double target_fpr = args.Double("fpr", 0.01);
  const std::string layout_name = args.GetOr("layout", "blocked512");
  const std::optional<Layout> layout = LayoutOption(layout_name);
  const int reps = static_cast<int>(args.U64("reps", 3, 1, 100));
  const size_t batch = args.U64("batch", 65536, 1, uint64_t{1} << 30);

  const std::string pinned(ActiveTarget());
  const FilterParams params = SolveForKeys(*layout, n, target_fpr);
  std::printf("blockbloom demo: %s filter for %llu keys at a %.3g%% target\n", std::string(LayoutName(*layout)).c_str(),
              static_cast<unsigned long long>(n), target_fpr * 100);
  std::printf("  size    %llu blocks, %.2f MiB (%.2f bits/key), k = %u; model rate %.4f%%\n",
              static_cast<unsigned long long>(params.num_blocks), params.bits / 8.0 / 1048576.0,
              static_cast<double>(params.bits) / static_cast<double>(n), params.k, params.fpr * 100);
  std::printf("  target  in use: %s (best this CPU runs, unless pinned)\n\n", pinned.c_str());

  std::vector<uint64_t> present, absent;
  try {
    present.resize(n);
    absent.resize(n);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("out of memory: cannot allocate " + std::to_string(2 * n * sizeof(uint64_t)) +
                             " bytes for " + std::to_string(n) + " present and " + std::to_string(n) +
                             " absent keys (try a smaller --n)");
  }
  for (uint64_t i = 0; i < n; ++i) {
    present[i] = Mix(2 * i);
    absent[i] = Mix(2 * i + 1);
  }
  std::vector<uint8_t> out(n);

  std::vector<Row> rows;
  std::vector<uint8_t> reference_bytes;
  std::vector<std::string> targets;
  for (const TargetInfo& t : CompiledTargets()) {
    if (t.supported) targets.emplace_back(t.name);
  }
  for (const std::string& name : targets) {
    PinTarget(name);
    Filter f = Filter::WithBlocks(*layout, params.num_blocks, params.k);
    std::vector<double> ins, pres, abs;
    size_t present_hits = 0, absent_hits = 0;
    for (int r = 0; r < reps; ++r) {
      f.Clear();
      auto t0 = std::chrono::steady_clock::now();
      for (uint64_t s = 0; s < n; s += batch) {
        f.InsertBatch(std::span<const uint64_t>(present.data() + s, std::min<uint64_t>(batch, n - s)));
      }
      ins.push_back(SecondsSince(t0) * 1e9 / static_cast<double>(n));
      t0 = std::chrono::steady_clock::now();
      present_hits = 0;
      for (uint64_t s = 0; s < n; s += batch) {
        const size_t len = std::min<uint64_t>(batch, n - s);
        present_hits += f.MayContainBatch(std::span<const uint64_t>(present.data() + s, len),
                                          std::span<uint8_t>(out.data() + s, len));
      }
      pres.push_back(SecondsSince(t0) * 1e9 / static_cast<double>(n));
      t0 = std::chrono::steady_clock::now();
      absent_hits = 0;
      for (uint64_t s = 0; s < n; s += batch) {
        const size_t len = std::min<uint64_t>(batch, n - s);
        absent_hits += f.MayContainBatch(std::span<const uint64_t>(absent.data() + s, len),
                                         std::span<uint8_t>(out.data() + s, len));
      }
      abs.push_back(SecondsSince(t0) * 1e9 / static_cast<double>(n));
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const bool same = reference_bytes.empty() ||
                      std::memcmp(reference_bytes.data(), f.data(), f.byte_size()) == 0;
    if (reference_bytes.empty()) reference_bytes.assign(f.data(), f.data() + f.byte_size());
    rows.push_back({name, median(ins), median(pres), median(abs),
                    static_cast<double>(absent_hits) / static_cast<double>(n), present_hits == n, same});
  }
  PinTarget(pinned);

  std::printf("%-8s %12s %12s %12s %14s %10s %8s %10s\n", "target", "insert", "query+", "query-", "query- Mkeys/s",
              "measured", "no FN", "same bytes");
  for (const Row& r : rows) {
    std::printf("%-8s %9.2f ns %9.2f ns %9.2f ns %14.1f %9.4f%% %8s %10s\n", r.target.c_str(), r.insert_ns,
                r.present_ns, r.absent_ns, 1e3 / r.absent_ns, r.fpr * 100, r.all_present ? "yes" : "NO",
                r.same_bytes ? "yes" : "NO");
  }
  std::printf("\nmodel rate %.4f%%; memory %.2f MiB for the filter (+ %.0f MiB of keys); median of %d runs\n",
              params.fpr * 100, params.bits / 8.0 / 1048576.0, 2.0 * static_cast<double>(n) * 8 / 1048576.0, reps);
  bool ok = true;
  for (const Row& r : rows) ok = ok && r.all_present && r.same_bytes;
  if (!ok) std::printf("ERROR: a target lost a key or wrote different bytes\n");
  return ok ? 0 : 1;
}

}  // namespace blockbloom::cli
