// SPDX-License-Identifier: Apache-2.0
// The Boost.Bloom pairs of issue 20 timed side by side on a noisy machine: one
// layout against its Boost partner, uint64 keys, 10 bits/key, blockbloom
// hashing with "aes" (or HASH). Each round draws fresh keys and runs every form
// over them in a shuffled order, so that a change of the host's load or clock hits the
// forms alike; it prints each form's median ns per key and, for each goal, the
// median over the rounds of that round's ratio, Boost's time / ours (above 1:
// blockbloom faster). The Google Benchmark rows (--bb_preset=boost) time each
// row for its own stretch of the run, so on a shared host two rows of a pair
// can see different neighbours; here no ratio mixes two moments.
//
//   cmake -S . -B build/bench -DBLOCKBLOOM_BOOST_BLOOM_INCLUDE="<bloom>/include;<container_hash>/include"
//   cmake --build build/bench --target peer_ab
//   build/bench/bench/peer_ab KEYS LAYOUT [ROUNDS [PARTNER [HASH]]]
//
// LAYOUT and its partner: split256 (fast_multiblock32<8>), sectorized512 and
// split512 (fast_multiblock64<8>), register64 (block<uint64_t, 6>). PARTNER
// names another (fmb32x8, fmb64x8, block64x6): issue 20 pairs a Boost filter
// with any layout of the same bits whose rate is no higher, such as split512
// (k = 8: 1.05% at 10 bits/key) with fast_multiblock32<8> (split256's
// structure, 1.26%); the last line prints both filters' measured rates over
// fresh keys, so the run shows whether the pair qualifies ("own": the
// layout's own partner). HASH: blockbloom's hash kind (default aes). The forms:
//   batch       Boost's insert(first, last) / may_contain(first, last, f)
//               against InsertBatch / MayContainBatch;
//   typed       Boost's per-key calls inlined in a loop against blockbloom/typed.h
//               (both compiled -O3 -march=native: bench/boost_peer_bench.cc,
//               bench/typed_bench.cc);
//   dispatched  the same Boost loop against Filter::Insert(key) /
//               FilterView::MayContain(key) in a loop, compiled as the library
//               (no -march: the run-time dispatched call a key).
// Operations: insert (keys already in, as the bench's rows), query absent
// (fresh keys), query present (inserted keys, drawn at random).
// BLOCKBLOOM_TARGET pins blockbloom's batch and dispatched target (avx2, say);
// Boost and typed.h run what -march=native gives them, or the -march of the
// CMake option BLOCKBLOOM_PEER_MARCH (haswell: both on AVX2; the header line
// names it and typed.h's static target). Built only when
// Boost.Bloom is found (bench/CMakeLists.txt); nothing of Boost is in this file.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "bench/ab_rounds.h"
#include "bench/boost_peer.h"
#include "bench/typed_rows.h"
#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "blockbloom/targets.h"

namespace {

using blockbloom::Filter;
using blockbloom::FilterView;
using blockbloom::Layout;
using blockbloom::bench::Median;
using blockbloom::bench::MedianRatio;
namespace bp = blockbloom::bench::boost_peer;
namespace typed_rows = blockbloom::bench::typed_rows;

// The i-th key of a domain (0: inserted, 1: absent): a bijective mix of
// (i, domain), so the domains never meet and no key array of KEYS is kept.
uint64_t Key(uint64_t i, uint64_t domain) {
  uint64_t z = (i << 1 | domain) + 0x9E3779B97F4A7C15ULL;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

std::string CpuName() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown CPU";
}

// The dispatched forms, each loop in a function of its own as a caller's would
// be: inlined into main's round lambda, g++ 12 kept the call's target, three of
// its five arguments and the running sum on the stack (four loads and an add to
// memory a key, the sum a chain through memory), which Boost's loops and the
// typed ones, compiled apart, never paid. The view is a local copy, as
// `FilterView view = filter.view();` before a loop (its words are the call's
// arguments; the call may write any memory the view's address could reach).
[[gnu::noinline]] uint64_t QueryDispatched(const FilterView& of, const uint64_t* keys, size_t n) {
  const FilterView view(of);
  uint64_t hits = 0;
  for (size_t i = 0; i < n; ++i) hits += view.MayContain(keys[i]);
  return hits;
}
[[gnu::noinline]] void InsertDispatched(Filter& filter, const uint64_t* keys, size_t n) {
  for (size_t i = 0; i < n; ++i) filter.Insert(keys[i]);
}

enum Form { kBoostBatch, kOursBatch, kBoostPerKey, kOursTyped, kOursDispatched, kForms };
constexpr std::array<const char*, kForms> kFormNames = {"boost batch", "ours batch", "boost per key", "ours typed",
                                                        "ours dispatched"};

int Usage() {
  std::fprintf(stderr,
               "usage: peer_ab KEYS LAYOUT [ROUNDS [PARTNER [HASH]]]\n"
               "  KEYS: keys inserted at 10 bits/key (1000 .. 10^9); LAYOUT: split256, sectorized512,\n"
               "  split512, register64; ROUNDS: 3-1001 (default 21); PARTNER: fmb32x8, fmb64x8,\n"
               "  block64x6 or own (default: the layout's own, see above); HASH: a hash kind\n"
               "  (default aes)\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || argc > 6) return Usage();
  const uint64_t n = std::strtoull(argv[1], nullptr, 10);
  const std::optional<Layout> parsed = blockbloom::ParseLayout(argv[2]);
  const long rounds = argc >= 4 ? std::strtol(argv[3], nullptr, 10) : 21;
  if (n < 1000 || n > 1000000000 || !parsed || rounds < 3 || rounds > 1001) return Usage();
  const Layout layout = *parsed;
  bp::Pair pair;
  uint32_t k = 8;
  switch (layout) {
    case Layout::kSplit256: pair = bp::Pair::kFastMultiblock32x8; break;
    case Layout::kSectorized512:
    case Layout::kSplit512: pair = bp::Pair::kFastMultiblock64x8; break;
    case Layout::kRegister64:
      pair = bp::Pair::kBlock64x6;
      k = 6;
      break;
    default: return Usage();
  }
  if (argc >= 5 && std::string_view(argv[4]) != "own") {
    const std::string_view name = argv[4];
    if (name == "fmb32x8") {
      pair = bp::Pair::kFastMultiblock32x8;
    } else if (name == "fmb64x8") {
      pair = bp::Pair::kFastMultiblock64x8;
    } else if (name == "block64x6") {
      pair = bp::Pair::kBlock64x6;
    } else {
      return Usage();
    }
  }
  if (!bp::Available() || !typed_rows::Available()) {
    std::fprintf(stderr, "peer_ab: built without Boost.Bloom or the typed rows (bench/CMakeLists.txt)\n");
    return 2;
  }

  const std::optional<blockbloom::HashKind> hash =
      argc == 6 ? blockbloom::ParseHash(argv[5]) : std::optional(blockbloom::HashKind::kAes);
  if (!hash) return Usage();
  Filter ours = Filter::WithBits(layout, n * 10, k, *hash);
  const std::unique_ptr<bp::Peer> boost = bp::Make(pair, n * 10, false);
  // Chunks of 1M keys: the rounds' key sets, and the filling of both filters.
  const size_t chunk = static_cast<size_t>(std::min<uint64_t>(n, uint64_t{1} << 20));
  std::vector<uint64_t> keys(chunk);
  for (uint64_t start = 0; start < n; start += chunk) {
    const size_t len = static_cast<size_t>(std::min<uint64_t>(chunk, n - start));
    for (size_t j = 0; j < len; ++j) keys[j] = Key(start + j, 0);
    ours.InsertBatch(std::span<const uint64_t>(keys.data(), len));
    boost->Insert(keys.data(), len, bp::Peer::Loop::kBulk);
  }

  std::printf("%s, blockbloom target %s (typed.h: %s %s), Boost and typed.h -O3 -march=%s; %s %llu keys (%.2f MiB; "
              "Boost %s, %.2f MiB), %s, %ld rounds of %zu keys\n",
              CpuName().c_str(), std::string(blockbloom::ActiveTarget()).c_str(),
              typed_rows::Simd() ? "inlined for" : "the dispatched call, static target", typed_rows::StaticTarget(),
              BLOCKBLOOM_PEER_MARCH, argv[2], static_cast<unsigned long long>(n),
              static_cast<double>(ours.byte_size()) / (1 << 20), bp::PairName(pair),
              static_cast<double>(boost->Bytes()) / (1 << 20), std::string(blockbloom::HashName(*hash)).c_str(), rounds,
              chunk);
  std::mt19937_64 rng(42);
  std::vector<uint8_t> out(chunk);
  uint64_t hits = 0, touched = 0;
  if (!typed_rows::Query(ours, keys.data(), 1, &hits)) {
    std::fprintf(stderr, "peer_ab: no typed instantiation for %s with %s (bench/typed_bench.cc)\n", argv[2],
                 std::string(blockbloom::HashName(*hash)).c_str());
    return 2;
  }
  const char* ops[] = {"insert", "query absent", "query present"};
  for (int op = 0; op < 3; ++op) {
    const auto ns = blockbloom::bench::TimeRounds<kForms>(
        rounds, rng, static_cast<double>(chunk),
        [&] {
          for (uint64_t& key : keys) key = op == 1 ? Key(n + rng() % (uint64_t{1} << 40), 1) : Key(rng() % n, 0);
        },
        // Untimed: the form's filter read end to end first. At 1M keys both filters
        // (1.19 MiB) fit the L2 but not together, and a form timed right after the
        // other library's found its own evicted: the bias followed the order of
        // the forms (the round's key draw, 8 MiB, evicts both anyway).
        [&](size_t form) {
          if (form == kBoostBatch || form == kBoostPerKey) {
            touched += boost->Touch();
          } else {
            for (size_t i = 0; i < ours.byte_size(); i += 8) {
              uint64_t word;
              std::memcpy(&word, ours.data() + i, 8);
              touched += word;
            }
          }
        },
        [&](size_t form) {
          if (op == 0) {
            switch (form) {
              case kBoostBatch: boost->Insert(keys.data(), chunk, bp::Peer::Loop::kBulk); break;
              case kOursBatch: ours.InsertBatch(keys); break;
              case kBoostPerKey: boost->Insert(keys.data(), chunk, bp::Peer::Loop::kInline); break;
              case kOursTyped: typed_rows::Insert(ours, keys.data(), chunk); break;
              default: InsertDispatched(ours, keys.data(), chunk);
            }
          } else {
            switch (form) {
              case kBoostBatch: hits += boost->Query(keys.data(), chunk, bp::Peer::Loop::kBulk); break;
              case kOursBatch: hits += ours.MayContainBatch(keys, out); break;
              case kBoostPerKey: hits += boost->Query(keys.data(), chunk, bp::Peer::Loop::kInline); break;
              case kOursTyped: typed_rows::Query(ours, keys.data(), chunk, &hits); break;
              default: hits += QueryDispatched(ours, keys.data(), chunk);
            }
          }
        });
    std::printf("  %-13s ns/key:", ops[op]);
    for (int form = 0; form < kForms; ++form) std::printf(" %s %.3g;", kFormNames[form], Median(ns[form]));
    std::printf("  Boost/ours: batch %.3gx, typed %.3gx, dispatched %.3gx\n",
                MedianRatio(ns[kBoostBatch], ns[kOursBatch]), MedianRatio(ns[kBoostPerKey], ns[kOursTyped]),
                MedianRatio(ns[kBoostPerKey], ns[kOursDispatched]));
  }
  // The rates: both filters asked for the same fresh keys, never inserted.
  uint64_t fp_ours = 0, fp_boost = 0;
  for (uint64_t start = 0; start < chunk * 4; start += chunk) {
    for (size_t j = 0; j < chunk; ++j) keys[j] = Key((uint64_t{1} << 41) + start + j, 1);
    fp_ours += ours.MayContainBatch(keys, out);
    fp_boost += boost->Query(keys.data(), chunk, bp::Peer::Loop::kBulk);
  }
  const double probes = 4.0 * static_cast<double>(chunk);
  std::printf("  rate over %.0f fresh keys: ours %.4f%%, Boost %.4f%% (hits %llu, %llu)\n", probes,
              100.0 * static_cast<double>(fp_ours) / probes, 100.0 * static_cast<double>(fp_boost) / probes,
              static_cast<unsigned long long>(hits), static_cast<unsigned long long>(touched));
  return 0;
}
