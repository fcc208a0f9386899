// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the garden's sizing and stats paths with arbitrary counts,
// each input held to a time bound. Built only with -DBLOCKBLOOM_FUZZ=ON and
// clang, under ASan and UBSan (tools/ci/fuzz.sh). Two modes, by the first byte:
//
//   sizing  n (any uint64) and a rate (any double's bits, or a uniform one in
//           [0, 1)) into every garden sizer: SolveCounting, SolveBlockedCounting
//           (and ForKeys when small), A2Filter::ParamsFor, CountMinSketch::
//           ForError and ScalableFilter when small, and BlockedCountingFpr /
//           BlockedCountingSaturation at any blocks, k and n.
//   header  a valid garden file of each type whose counts (inserted,
//           saturations, total N, decrements, active/passive counts, slice
//           loads) come from the input, checksum resealed, through the loader
//           and then everything garden-stats computes from it (the models at
//           those counts included).
//
// Every input must finish within kInputBudget: the sizing of n = 1e11 and a
// header claiming 2^63 keys once ran for minutes (the blocked counting
// mixture walked the whole binomial). Answers must be sane: parameters within
// their limits, rates within [0, 1], a solved size the smallest for its k.
//
//   ./garden_sizing_fuzzer -max_total_time=15 -timeout=10 corpus_dir
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <numbers>
#include <stdexcept>
#include <utility>
#include <vector>

#include "blockbloom/garden.h"
#include "blockbloom/model.h"
#include "engine/src/bytes.h"

namespace {

using blockbloom::FormatError;
namespace g = blockbloom::garden;

// Per input, under ASan and UBSan: the worst sizing measured natively is
// ~60 ms (SolveBlockedCounting at n = 2^40, fpr = 0.99), so this leaves a
// wide margin for the sanitizers while catching any walk that grows with n.
constexpr double kInputBudget = 2.0;  // seconds

void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "garden_sizing_fuzzer: broken invariant: %s\n", what);
    std::abort();
  }
}
void CheckRate(double r, const char* what) { Check(r >= 0.0 && r <= 1.0, what); }  // false for NaN

// The input as a stream of little-endian words (zeros past its end).
class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint64_t U64() {
    uint8_t b[8] = {};
    for (size_t i = 0; i < 8 && pos_ < size_; ++i) b[i] = data_[pos_++];
    return blockbloom::detail::LoadLE(b, 8);
  }
  // Half the time any double (NaN, infinities, subnormals), else uniform in [0, 1).
  double Rate() {
    const uint64_t x = U64();
    return (x & 1) ? std::bit_cast<double>(U64()) : static_cast<double>(x >> 11) * 0x1p-53;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// ---- Sizing -----------------------------------------------------------------------------

template <typename F>
void Refusable(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
  } catch (const std::length_error&) {
  }
}

void Sizing(Input& in) {
  const uint64_t n = in.U64();
  const double fpr = in.Rate();
  Refusable([&] {
    const g::CountingParams p = g::SolveCounting(n, fpr);
    Check(p.cells >= 1 && p.cells <= (uint64_t{1} << 52) && p.k >= 1 && p.k <= g::kMaxProbes, "SolveCounting range");
  });
  Refusable([&] {
    const g::BlockedCountingParams p = g::SolveBlockedCounting(n, fpr);
    Check(p.num_blocks >= 1 && p.num_blocks <= g::BlockedCountingFilter::kMaxBlocks && p.k >= 1 &&
              p.k <= g::BlockedCountingFilter::kMaxK,
          "SolveBlockedCounting range");
    Check(p.fpr <= fpr && p.fpr == g::BlockedCountingFpr(p.num_blocks, p.k, n), "SolveBlockedCounting rate");
    Check(p.num_blocks == 1 || g::BlockedCountingFpr(p.num_blocks - 1, p.k, n) > fpr, "SolveBlockedCounting is smallest");
    if (p.num_blocks <= 4096) {
      const g::BlockedCountingFilter f = g::BlockedCountingFilter::ForKeys(n, fpr);
      Check(f.num_blocks() == p.num_blocks && f.k() == p.k && f.Fpr(n) <= fpr, "ForKeys agrees with the solver");
    }
  });
  Refusable([&] {
    const g::A2Filter::Params p = g::A2Filter::ParamsFor(n, fpr);
    Check(p.k >= 1 && p.capacity >= 1, "A2 ParamsFor range");
    CheckRate(p.vector_fpr, "A2 vector rate");
  });
  // Sizers that allocate: only where the result is small.
  const double eps = in.Rate(), delta = in.Rate();
  if (eps > 1e-4 && eps < 1.0 && delta > 1e-9 && delta < 1.0) {
    Refusable([&] {
      const g::CountMinSketch s = g::CountMinSketch::ForError(eps, delta);
      Check(s.epsilon() <= eps * (1 + 1e-12) && s.delta() <= delta * (1 + 1e-12), "ForError meets its bounds");
    });
  }
  g::ScalableFilter::Options o;
  o.growth = static_cast<uint32_t>(in.U64() % 20);       // 0 and > 16 refused
  o.tightening = in.Rate();
  o.layout = static_cast<blockbloom::Layout>(in.U64() % std::size(blockbloom::kAllLayouts));
  Refusable([&] {
    const g::ScalableFilter f(n % 4096 + (n >> 63), fpr, o);  // n0 = 0 too, refused
    CheckRate(f.Fpr(), "scalable rate");
  });
  // The model at any shape and load.
  const uint64_t blocks = in.U64() % g::BlockedCountingFilter::kMaxBlocks + 1;
  const auto k = static_cast<uint32_t>(in.U64() % g::BlockedCountingFilter::kMaxK + 1);
  const uint64_t load = in.U64();
  CheckRate(g::BlockedCountingFpr(blocks, k, load), "BlockedCountingFpr");
  CheckRate(g::BlockedCountingSaturation(blocks, k, load), "BlockedCountingSaturation");
}

// ---- Header counts through the loader and the stats ----------------------------------------

// What garden-stats computes (tools/cli/garden_cmds.cc), and the models.
void Stats(const g::CountingFilter& f, uint64_t n) {
  uint64_t nonzero = 0;
  for (uint64_t i = 0; i < f.cells(); ++i) nonzero += f.CounterAt(i) != 0;
  Check(f.SaturatedCells() <= f.cells() && nonzero <= f.cells(), "counting cells");
  CheckRate(f.Fpr(n), "counting Fpr");
}
void Stats(const g::BlockedCountingFilter& f, uint64_t) {
  CheckRate(f.Fpr(f.inserted()), "blocked counting Fpr(inserted)");
  CheckRate(g::BlockedCountingSaturation(f.num_blocks(), f.k(), f.inserted()), "blocked counting saturation");
  Check(f.NonZeroCells() <= 128 * f.num_blocks() && f.SaturatedCells() <= f.NonZeroCells(), "blocked counting cells");
}
void Stats(const g::CountMinSketch& s, uint64_t) {
  Check(std::isfinite(s.epsilon() * static_cast<double>(s.total())), "count-min error bound");
  Check(s.Estimate(uint64_t{1}) <= s.total(), "count-min estimate <= N");
}
void Stats(const g::StableFilter& f, uint64_t) {
  CheckRate(f.StableFpr(), "stable Fpr");
  Check(f.ZeroCells() <= f.cells(), "stable cells");
}
void Stats(const g::A2Filter& f, uint64_t) {
  CheckRate(f.Fpr(), "A2 Fpr");
  CheckRate(f.FprAtCapacity(), "A2 FprAtCapacity");
}
void Stats(const g::ScalableFilter& f, uint64_t) {
  CheckRate(f.Fpr(), "scalable Fpr");
  (void)f.inserted();
}

// v's file with parameter words replaced ({index, value}), resealed, loaded,
// and its stats taken; a refusal must name a byte within the file.
template <typename T>
void ThroughFile(const T& v, std::initializer_list<std::pair<size_t, uint64_t>> params, uint64_t n) {
  std::vector<uint8_t> b = g::SerializeGarden(v);
  for (const auto& [i, value] : params) {
    const size_t at = g::kGardenHeaderBytes + 8 * i;
    if (at + 8 <= b.size()) blockbloom::detail::StoreLE(b.data() + at, value, 8);
  }
  blockbloom::detail::StoreLE(
      b.data() + 40, blockbloom::detail::HeaderBodyChecksum(b.data(), 40, b.data() + 64, b.size() - 64), 8);
  try {
    Stats(g::DeserializeGarden<T>(b, "fuzz"), n);
  } catch (const FormatError& e) {
    Check(e.offset() <= b.size(), "refusal offset within the file");
  }
}

// Half the values small (so bounded counts pass the loader and reach the
// stats), half anything (so the loader's bounds are tried too).
uint64_t Count(uint64_t x) { return (x >> 63) ? x : x % 256; }

void Headers(Input& in) {
  const uint64_t a = in.U64(), b = in.U64(), c = in.U64(), d = in.U64();
  // Parameter words of each type: garden_format.cc's GardenCodec.
  ThroughFile(g::CountingFilter(64, 3), {{3, a}}, b);  // saturations
  const uint64_t blocks = c % 64 + 1;
  const auto k = static_cast<uint32_t>(d % g::BlockedCountingFilter::kMaxK + 1);
  ThroughFile(g::BlockedCountingFilter(blocks, k), {{2, a}, {3, b}}, 0);  // inserted, saturations
  ThroughFile(g::CountMinSketch(16, 3, g::CountMinSketch::Options{blockbloom::HashKind::kXxh3, 0, true}),
              {{3, a}}, 0);  // total N (conservative: counters 0 <= N)
  ThroughFile(g::StableFilter(64, 3, 3, 2), {{3, Count(c)}, {5, b}, {6, a}}, 0);  // decrements, rng state, inserted
  ThroughFile(g::A2Filter(1024, 0.1), {{5, Count(a)}, {6, Count(b)}, {7, c}}, 0);  // active, passive counts, swaps
  ThroughFile(g::ScalableFilter(100, 0.01), {{0, Count(d) + 1}, {8, Count(a)}}, 0);  // n0, slice 0 inserted
}

}  // namespace

// The classic vectors' model (A2, the counting filters) tabulates its probe
// distribution once per k per process (blockbloom/model.h,
// ClassicDistinctProbes): a fixed cost, not one that grows with an input, so
// it is paid here rather than inside the first input's budget.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const uint32_t max_k = blockbloom::LayoutMaxK(blockbloom::Layout::kClassic);
  for (uint32_t k = 1; k <= max_k; ++k) (void)blockbloom::ClassicDistinctProbes(1000, k);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto start = std::chrono::steady_clock::now();
  Input in(data + 1, size - 1);
  if (data[0] % 2 == 0) {
    Sizing(in);
  } else {
    Headers(in);
  }
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (took > kInputBudget) {
    std::fprintf(stderr, "garden_sizing_fuzzer: one input took %.2f s: expected at most %.1f s\n", took, kInputBudget);
    std::abort();
  }
  return 0;
}
