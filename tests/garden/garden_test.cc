// SPDX-License-Identifier: Apache-2.0
// Tests of the garden (garden/include/blockbloom/garden.h): no false negatives
// where promised, each variant's formula against measurement, and the
// variant-specific behaviour (saturation, carries, aging, swaps, growth).
//
// Measured rates are held against the formulas with the exact binomial
// acceptance interval of blockbloom/verify/stats.h at 99.99% confidence: a correct
// formula fails a check with probability at most 1e-4 (and every test uses
// fixed seeds, so a run is reproducible).
#include "blockbloom/hash.h"
#include "blockbloom/garden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "blockbloom/model.h"
#include "blockbloom/verify/stats.h"

namespace blockbloom::garden {
namespace {

constexpr double kConfidence = 0.9999;
// Keys inserted are 0, 1, 2, ...; absent probes start here.
constexpr uint64_t kAbsentBase = uint64_t{1} << 40;

// Throws, and the message names `what`.
template <typename Fn>
void ExpectInvalid(Fn&& fn, const std::string& what) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one naming " << what;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("blockbloom: ", 0), 0u) << e.what();
  }
}

// False positives of `filter` over `trials` absent keys.
template <typename F>
uint64_t CountFalsePositives(const F& filter, uint64_t trials) {
  uint64_t hits = 0;
  for (uint64_t i = 0; i < trials; ++i) hits += filter.MayContain(kAbsentBase + i);
  return hits;
}

void ExpectRate(uint64_t hits, uint64_t trials, double predicted) {
  const FprCheck c = CheckFpr(hits, trials, predicted, kConfidence);
  std::printf("[ measured ] %s: %.5f (%llu/%llu), predicted %.5f\n",
              ::testing::UnitTest::GetInstance()->current_test_info()->name(), c.rate(),
              static_cast<unsigned long long>(hits), static_cast<unsigned long long>(trials), predicted);
  EXPECT_TRUE(c.pass) << "measured " << c.rate() << " (" << hits << "/" << trials << "), predicted " << predicted
                      << ", acceptance [" << c.accept.lo << ", " << c.accept.hi << "]";
}

// A fixed multiset: key x occurs 1 + (mix(x) % max_mult) times; the stream
// interleaves the occurrences in a fixed shuffled order.
struct Multiset {
  std::vector<uint64_t> stream;
  std::map<uint64_t, uint64_t> truth;
};
Multiset MakeMultiset(uint64_t distinct, uint64_t max_mult, uint64_t seed) {
  Multiset ms;
  SplitMix64 rng(seed);
  for (uint64_t x = 0; x < distinct; ++x) {
    const uint64_t f = 1 + rng.Next() % max_mult;
    ms.truth[x] = f;
    for (uint64_t i = 0; i < f; ++i) ms.stream.push_back(x);
  }
  for (size_t i = ms.stream.size(); i > 1; --i) std::swap(ms.stream[i - 1], ms.stream[rng.Next() % i]);
  return ms;
}

// ---- Common -------------------------------------------------------------------------------

TEST(GardenCommon, ProbeCellsAreDistinctInRangeAndDeterministic) {
  for (uint64_t cells : {1ull, 2ull, 7ull, 1000ull, 1ull << 33}) {
    for (uint32_t k : {1u, 3u, 8u, 32u}) {
      for (uint64_t h = 0; h < 200; ++h) {
        const uint64_t hash = HashU64(h, HashKind::kXxh3, 0);
        const Probes p = ProbeCells(hash, k, cells);
        ASSERT_GE(p.count, 1u);
        ASSERT_LE(p.count, std::min<uint64_t>(k, cells));
        std::vector<uint64_t> v(p.cell.begin(), p.cell.begin() + p.count);
        for (uint64_t c : v) ASSERT_LT(c, cells);
        std::sort(v.begin(), v.end());
        ASSERT_EQ(std::adjacent_find(v.begin(), v.end()), v.end());
        const Probes q = ProbeCells(hash, k, cells);
        ASSERT_TRUE(std::equal(p.cell.begin(), p.cell.begin() + p.count, q.cell.begin()));
      }
    }
  }
}

TEST(GardenCommon, PackedCountersHoldEveryWidth) {
  for (uint32_t w : {1u, 2u, 4u, 8u, 16u, 32u}) {
    PackedCounters c(1001, w);
    EXPECT_EQ(c.max(), (uint64_t{1} << w) - 1);
    for (uint64_t i = 0; i < c.size(); ++i) c.Set(i, (i * 2654435761u) & c.max());
    for (uint64_t i = 0; i < c.size(); ++i) ASSERT_EQ(c.Get(i), (i * 2654435761u) & c.max()) << "w=" << w;
    c.Set(500, c.max());
    c.Set(500, 0);  // neighbours untouched
    EXPECT_EQ(c.Get(499), (499 * 2654435761u) & c.max());
    EXPECT_EQ(c.Get(501), (501 * 2654435761u) & c.max());
  }
  ExpectInvalid([] { PackedCounters(10, 3); }, "width");
  ExpectInvalid([] { PackedCounters(0, 4); }, "cells");
}

TEST(GardenCommon, KeysOfBothKindsHashLikeTheEngine) {
  const KeyHasher h{HashKind::kXxh64, 9};
  EXPECT_EQ(h(uint64_t{5}), HashU64(5, HashKind::kXxh64, 9));
  EXPECT_EQ(h(5), HashU64(5, HashKind::kXxh64, 9));
  EXPECT_EQ(h(std::string("abc")), HashBytes("abc", HashKind::kXxh64, 9));
  EXPECT_EQ(h("abc"), HashBytes("abc", HashKind::kXxh64, 9));
}

// ---- CountingFilter -------------------------------------------------------------------------

TEST(GardenCounting, InsertRemoveRoundTripLeavesEveryCounterZero) {
  CountingFilter f(1 << 14, 5);
  constexpr uint64_t kKeys = 1500;
  for (uint64_t x = 0; x < kKeys; ++x) f.Insert(x);
  for (uint64_t x = 0; x < kKeys; ++x) ASSERT_TRUE(f.MayContain(x)) << x;
  ASSERT_EQ(f.saturations(), 0u);
  for (uint64_t x = 0; x < kKeys; x += 2) ASSERT_TRUE(f.Remove(x));
  for (uint64_t x = 1; x < kKeys; x += 2) ASSERT_TRUE(f.MayContain(x)) << "false negative after removing others";
  for (uint64_t x = 1; x < kKeys; x += 2) ASSERT_TRUE(f.Remove(x));
  for (uint64_t i = 0; i < f.cells(); ++i) ASSERT_EQ(f.CounterAt(i), 0u) << i;
  EXPECT_FALSE(f.Remove(uint64_t{3})) << "a key whose counters hold a 0 is refused";
}

TEST(GardenCounting, CountsMultiplicityAndStrings) {
  CountingFilter f(4096, 4, 8);
  for (int i = 0; i < 3; ++i) f.Insert(std::string_view("apple"));
  EXPECT_EQ(f.Count("apple"), 3u);
  EXPECT_TRUE(f.Remove("apple"));
  EXPECT_EQ(f.Count("apple"), 2u);
  EXPECT_EQ(f.Count("pear"), 0u);
}

TEST(GardenCounting, SaturatedCountersStickAndNeverWrap) {
  for (uint32_t w : {4u, 8u}) {
    CountingFilter f(1024, 4, w);
    const uint64_t max = (uint64_t{1} << w) - 1;
    const uint64_t kInserts = max + 5;
    for (uint64_t i = 0; i < kInserts; ++i) f.Insert(uint64_t{77});
    const Probes p = ProbeCells(f.hasher()(77), f.k(), f.cells());
    EXPECT_EQ(f.Count(77), max);
    EXPECT_EQ(f.SaturatedCells(), p.count);
    EXPECT_EQ(f.saturations(), 5 * p.count) << "each lost increment is counted";
    for (uint64_t i = 0; i < kInserts; ++i) EXPECT_TRUE(f.Remove(uint64_t{77}));
    EXPECT_EQ(f.Count(77), max) << "stuck counters are never decremented";
    EXPECT_TRUE(f.MayContain(77));
  }
}

// Documented hazard: removing a false-positive key can make an inserted key
// vanish. A dense filter shows it happening.
TEST(GardenCounting, RemovingANeverInsertedKeyCanCauseFalseNegatives) {
  CountingFilter base(64, 3);
  constexpr uint64_t kKeys = 20;
  for (uint64_t x = 0; x < kKeys; ++x) base.Insert(x);
  bool shown = false;
  for (uint64_t y = kAbsentBase; y < kAbsentBase + 10000 && !shown; ++y) {
    if (!base.MayContain(y)) continue;  // Remove would refuse it
    CountingFilter f = base;
    ASSERT_TRUE(f.Remove(y));
    for (uint64_t x = 0; x < kKeys; ++x) shown |= !f.MayContain(x);
  }
  EXPECT_TRUE(shown);
}

TEST(GardenCounting, OverflowBoundMatchesTheDocumentedValues) {
  // Fan et al. (the source slides' counter overflow bound): with 4-bit counters, P(max counter >= 16) <= m * 1.37e-15 at k <= (m/n) ln 2.
  EXPECT_NEAR(CounterOverflowBoundAtOptimalK(1.0, 16) / 1.37e-15, 1.0, 0.005);
  const double m = 1 << 20, n = 100000;
  const double k_opt = m / n * std::log(2.0);
  EXPECT_NEAR(CounterOverflowBound(m, n, k_opt, 16) / CounterOverflowBoundAtOptimalK(m, 16), 1.0, 1e-12);
  // Smaller k only lowers the bound, and the exact tail lies under it.
  for (double k = 1; k <= std::floor(k_opt); ++k) {
    EXPECT_LE(CounterOverflowBound(m, n, k, 16), CounterOverflowBoundAtOptimalK(m, 16));
    for (uint64_t j : {2u, 4u, 8u, 16u}) EXPECT_LE(CounterTailExact(m, n, k, j), CounterOverflowBound(m, n, k, j) / m * (1 + 1e-9));
  }
  // The exact tail sums to the complement of the head.
  EXPECT_NEAR(CounterTailExact(1000, 500, 2, 0), 1.0, 1e-12);
  EXPECT_NEAR(CounterTailExact(1000, 500, 2, 1), -std::expm1(1000 * std::log1p(-1.0 / 1000)), 1e-12);
}

TEST(GardenCounting, CounterLoadsFollowTheBinomialTail) {
  // m counters, n keys at k = floor((m/n) ln 2): the fraction of counters >= j
  // follows P[Binomial(nk, 1/m) >= j]. Counters are negatively correlated (the
  // total is fixed at nk), so the binomial acceptance interval over m counters
  // is conservative. No 4-bit counter may reach 16 (bound: m * 1.37e-15 ~ 1e-10).
  constexpr uint64_t kCells = 1 << 16, kKeys = 9000;
  const uint32_t k = static_cast<uint32_t>(std::floor(double{kCells} / kKeys * std::log(2.0)));
  CountingFilter narrow(kCells, k, 4), wide(kCells, k, 8);
  for (uint64_t x = 0; x < kKeys; ++x) {
    narrow.Insert(x);
    wide.Insert(x);
  }
  EXPECT_EQ(narrow.saturations(), 0u);
  for (uint64_t j : {2u, 3u, 4u}) {
    uint64_t at_least = 0;
    for (uint64_t i = 0; i < kCells; ++i) at_least += wide.CounterAt(i) >= j;
    const double p = CounterTailExact(kCells, kKeys, k, j);
    const CountInterval a = BinomialAcceptance(kCells, p, kConfidence);
    EXPECT_GE(at_least, a.lo) << "j=" << j;
    EXPECT_LE(at_least, a.hi) << "j=" << j;
  }
}

TEST(GardenCounting, FalsePositiveRateMatchesTheClassicFormula) {
  CountingFilter f(80000, 6);
  constexpr uint64_t kKeys = 10000;  // 8 cells per key: 2.16%
  for (uint64_t x = 0; x < kKeys; ++x) f.Insert(x);
  for (uint64_t x = 0; x < kKeys; ++x) ASSERT_TRUE(f.MayContain(x));
  constexpr uint64_t kTrials = 200000;
  ExpectRate(CountFalsePositives(f, kTrials), kTrials, f.Fpr(kKeys));
}

TEST(GardenCounting, BatchesEqualPerKeyCallsInOrder) {
  CountingFilter one(50000, 6), batch(50000, 6);
  std::vector<uint64_t> hashes;
  for (uint64_t x = 0; x < 8000; ++x) hashes.push_back(one.hasher()(x % 5000));  // repeats: counts > 1
  for (uint64_t h : hashes) one.InsertHash(h);
  batch.InsertHashBatch(hashes);
  EXPECT_TRUE(batch == one);
  std::vector<uint64_t> probes;
  for (uint64_t x = 0; x < 10000; ++x) probes.push_back(one.hasher()(x));
  std::vector<uint8_t> out(probes.size());
  std::vector<uint64_t> counts(probes.size());
  const size_t hits = batch.MayContainHashBatch(probes, out);
  batch.CountHashBatch(probes, counts);
  size_t expect = 0;
  for (size_t i = 0; i < probes.size(); ++i) {
    ASSERT_EQ(out[i] != 0, one.MayContainHash(probes[i]));
    ASSERT_EQ(counts[i], one.CountHash(probes[i]));
    expect += out[i];
  }
  EXPECT_EQ(hits, expect);
  const size_t removed = batch.RemoveHashBatch(probes, out);
  size_t expect_removed = 0;
  for (size_t i = 0; i < probes.size(); ++i) {
    const bool r = one.RemoveHash(probes[i]);
    ASSERT_EQ(out[i] != 0, r) << i;
    expect_removed += r;
  }
  EXPECT_EQ(removed, expect_removed);
  EXPECT_TRUE(batch == one);
  std::vector<uint8_t> small(3);
  ExpectInvalid([&] { batch.MayContainHashBatch(probes, small); }, "output span");
}

TEST(GardenCounting, RejectsBadParameters) {
  ExpectInvalid([] { CountingFilter(0, 3); }, "cells");
  ExpectInvalid([] { CountingFilter(100, 0); }, "k = 0");
  ExpectInvalid([] { CountingFilter(100, 33); }, "k = 33");
  ExpectInvalid([] { CountingFilter(100, 3, 5); }, "width");
}

// ---- SpectralFilter ---------------------------------------------------------------------------

using Policy = SpectralFilter::Policy;

TEST(GardenSpectral, MinimumSelectionNeverUnderCountsAndIsMostlyExact) {
  const Multiset ms = MakeMultiset(3000, 20, 1);
  SpectralFilter f(3000 * 6, 4, Policy::kMinimumSelection);
  for (uint64_t x : ms.stream) f.Insert(x);
  uint64_t inexact = 0;
  for (const auto& [x, n] : ms.truth) {
    const uint64_t c = f.Count(x);
    ASSERT_GE(c, n) << "MS under-counted key " << x;
    inexact += c != n;
  }
  // m_x != f_x iff every counter of x is also hit by another key: the Bloom
  // error of the other D - 1 distinct keys.
  const uint64_t d = ms.truth.size();
  const double p = f.primary().Fpr(d - 1);
  EXPECT_LE(inexact, BinomialAcceptance(d, p, kConfidence).hi) << "Bloom error " << p;
  EXPECT_GT(inexact, 0u) << "the filter is dense enough to show some over-counts";
}

TEST(GardenSpectral, MinimumIncreaseOverCountsNoMoreThanMinimumSelection) {
  const Multiset ms = MakeMultiset(3000, 20, 2);
  SpectralFilter sel(3000 * 4, 3, Policy::kMinimumSelection);
  SpectralFilter inc(3000 * 4, 3, Policy::kMinimumIncrease);
  for (uint64_t x : ms.stream) {
    sel.Insert(x);
    inc.Insert(x);
  }
  uint64_t over_sel = 0, over_inc = 0;
  for (const auto& [x, n] : ms.truth) {
    const uint64_t s = sel.Count(x), i = inc.Count(x);
    ASSERT_GE(i, n) << "MI under-counted key " << x;
    ASSERT_LE(i, s) << "MI over-counted key " << x << " more than MS";
    over_sel += s - n;
    over_inc += i - n;
  }
  EXPECT_LT(over_inc, over_sel);
  EXPECT_THROW(inc.Remove(uint64_t{1}), std::logic_error);
}

TEST(GardenSpectral, RecurringMinimumFindsEveryKeyAndErrsLessThanMinimumSelection) {
  const Multiset ms = MakeMultiset(3000, 20, 3);
  SpectralFilter sel(3000 * 4, 3, Policy::kMinimumSelection);
  SpectralFilter rm(3000 * 4, 3, Policy::kRecurringMinimum);
  ASSERT_NE(rm.secondary(), nullptr);
  for (uint64_t x : ms.stream) {
    sel.Insert(x);
    rm.Insert(x);
  }
  uint64_t err_sel = 0, err_rm = 0;
  for (const auto& [x, n] : ms.truth) {
    const uint64_t r = rm.Count(x);
    ASSERT_GE(r, 1u) << "RM lost key " << x;
    err_sel += sel.Count(x) - n;
    err_rm += r > n ? r - n : n - r;
  }
  EXPECT_LT(err_rm, err_sel);
}

TEST(GardenSpectral, RemoveUndoesInsertUnderSelectionAndRecurringMinimum) {
  for (Policy policy : {Policy::kMinimumSelection, Policy::kRecurringMinimum}) {
    const Multiset ms = MakeMultiset(500, 5, 4);
    SpectralFilter f(500 * 8, 4, policy);
    for (uint64_t x : ms.stream) f.Insert(x);
    for (uint64_t x : ms.stream) ASSERT_TRUE(f.Remove(x));
    for (uint64_t i = 0; i < f.primary().cells(); ++i) ASSERT_EQ(f.primary().CounterAt(i), 0u);
    for (const auto& [x, n] : ms.truth) ASSERT_EQ(f.Count(x), 0u);
  }
}

// ---- CountMinSketch ---------------------------------------------------------------------------

TEST(GardenCountMin, SizingFollowsEpsilonAndDelta) {
  const CountMinSketch s = CountMinSketch::ForError(0.01, 0.01);
  EXPECT_EQ(s.width(), 272u);  // ceil(e / 0.01)
  EXPECT_EQ(s.depth(), 5u);    // ceil(ln 100)
  EXPECT_LE(s.epsilon(), 0.01);
  EXPECT_LE(s.delta(), 0.01);
  ExpectInvalid([] { CountMinSketch::ForError(0, 0.1); }, "eps");
  ExpectInvalid([] { CountMinSketch::ForError(0.1, 1e-20); }, "delta");
  ExpectInvalid([] { CountMinSketch(0, 3); }, "width");
  ExpectInvalid([] { CountMinSketch(10, 40); }, "depth");
}

TEST(GardenCountMin, ErrorStaysWithinEpsilonNForAllButDeltaOfQueries) {
  CountMinSketch s = CountMinSketch::ForError(0.005, 0.05);
  const Multiset ms = MakeMultiset(5000, 40, 5);
  for (uint64_t x : ms.stream) s.Add(x);
  s.Add(std::string_view("heavy"), 5000);
  const double bound = s.epsilon() * static_cast<double>(s.total());
  uint64_t beyond = 0;
  for (const auto& [x, n] : ms.truth) {
    const uint64_t e = s.Estimate(x);
    ASSERT_GE(e, n) << "count-min never under-counts";
    beyond += static_cast<double>(e - n) > bound;
  }
  EXPECT_GE(s.Estimate("heavy"), 5000u);
  // Each query exceeds eps N with probability <= delta (Markov, per row, then
  // the rows): at most the acceptance bound of Binomial(queries, delta).
  EXPECT_LE(beyond, BinomialAcceptance(ms.truth.size(), s.delta(), kConfidence).hi);
  uint64_t absent_beyond = 0;
  for (uint64_t i = 0; i < 5000; ++i) absent_beyond += static_cast<double>(s.Estimate(kAbsentBase + i)) > bound;
  EXPECT_LE(absent_beyond, BinomialAcceptance(5000, s.delta(), kConfidence).hi);
}

// ---- BitwiseFilter ------------------------------------------------------------------------------

TEST(GardenBitwise, CountsAreExactAcrossCarries) {
  // One key counted to 1000 through 1-bit digits: every carry chain up to 2^9.
  BitwiseFilter f(12, {1 << 10, 3, 1});
  EXPECT_EQ(f.MaxCount(), 4095u);
  for (uint64_t i = 1; i <= 1000; ++i) {
    f.Insert(uint64_t{42});
    ASSERT_EQ(f.Count(42), i);
  }
  // Mixed widths: digits of 1, 2 and 4 bits.
  const BitwiseFilter::Level levels[] = {{1 << 10, 3, 1}, {1 << 10, 3, 2}, {1 << 10, 3, 4}, {1 << 10, 3, 4}};
  BitwiseFilter g(levels);
  EXPECT_EQ(g.MaxCount(), 2047u);
  for (uint64_t i = 1; i <= 700; ++i) {
    g.Insert(std::string_view("k"));
    ASSERT_EQ(g.Count("k"), i);
  }
}

TEST(GardenBitwise, CountsOfKeysWithUnsharedCellsAreExact) {
  // 300 keys x 3 cells per level in 2^17 cells: each of a key's 12 cells is
  // shared with probability 1 - (1 - 2^-17)^(3 * 299) ~ 0.7%, so about
  // 300 * 0.993^12 ~ 276 keys have no shared cell; those must count exactly.
  BitwiseFilter f(4, {1 << 17, 3, 2});
  const Multiset ms = MakeMultiset(300, 60, 6);
  for (uint64_t x : ms.stream) f.Insert(x);
  // Which cells each level's keys use.
  std::vector<std::map<uint64_t, int>> users(f.levels());
  auto probes = [&](uint64_t x, size_t i) {
    return ProbeCells(DeriveHash(KeyHasher{}(x), static_cast<uint32_t>(i)), f.level(i).k(), f.level(i).cells());
  };
  for (const auto& [x, n] : ms.truth) {
    for (size_t i = 0; i < f.levels(); ++i) {
      const Probes p = probes(x, i);
      for (uint32_t c = 0; c < p.count; ++c) ++users[i][p.cell[c]];
    }
  }
  uint64_t unshared = 0;
  for (const auto& [x, n] : ms.truth) {
    bool alone = true;
    for (size_t i = 0; i < f.levels(); ++i) {
      const Probes p = probes(x, i);
      for (uint32_t c = 0; c < p.count; ++c) alone &= users[i][p.cell[c]] == 1;
    }
    if (!alone) continue;
    ++unshared;
    ASSERT_EQ(f.Count(x), n) << "key " << x;
  }
  EXPECT_GT(unshared, 250u);
  EXPECT_EQ(f.Count(kAbsentBase), 0u);
  EXPECT_FALSE(f.MayContain(kAbsentBase));
}

TEST(GardenBitwise, TopLevelSaturates) {
  BitwiseFilter f(3, {256, 2, 1});
  for (int i = 0; i < 10; ++i) f.Insert(uint64_t{1});
  EXPECT_EQ(f.Count(1), 7u);
  EXPECT_EQ(f.saturations(), 3u);
  ExpectInvalid([] { BitwiseFilter(0, {256, 2, 1}); }, "levels");
  ExpectInvalid([] { BitwiseFilter(2, {256, 2, 3}); }, "bitwise level 0");
}

// ---- StableFilter ----------------------------------------------------------------------------------

TEST(GardenStable, ZeroFractionConvergesToTheStablePoint) {
  // m = 2^14 cells, K = 3, P = 10, Max = 3 (d = 2): Z = 0.4551.
  // After N = 50000 inserts each cell has seen about N (P + K) / m = 40 set or
  // decrement events, far above Max = 3, so the chain is at its stationary
  // distribution (the initial state's weight is below e^-30). Each cell is then 0
  // with probability Z; the cells are slightly negatively correlated (exactly P
  // distinct decrements and K sets per insert), so the count of zero cells
  // varies no more than Binomial(m, Z) and its 99.99% acceptance interval is a
  // conservative bound. The formula's own approximation (K/m for a set) is
  // O(K/m) = 2e-4 relative, below the interval's ~2.4%.
  StableFilter f(1 << 14, 3, /*max_value=*/3, 10, /*rng_seed=*/11);
  EXPECT_NEAR(f.StableZeroFraction(), 0.4551, 5e-4);
  for (uint64_t x = 0; x < 50000; ++x) f.Insert(x);
  const CountInterval a = BinomialAcceptance(f.cells(), f.StableZeroFraction(), kConfidence);
  EXPECT_GE(f.ZeroCells(), a.lo);
  EXPECT_LE(f.ZeroCells(), a.hi);
  // Given the cells, a fresh key is a false positive when its K cells are all
  // non-zero: ((m - zeros) / m)^K for distinct cells drawn uniformly.
  const double nonzero = 1.0 - static_cast<double>(f.ZeroCells()) / static_cast<double>(f.cells());
  constexpr uint64_t kTrials = 100000;
  ExpectRate(CountFalsePositives(f, kTrials), kTrials, std::pow(nonzero, f.k()));
  EXPECT_NEAR(f.StableFpr(), std::pow(1 - f.StableZeroFraction(), 3), 1e-15);
}

TEST(GardenStable, TheNewestKeyIsFoundAndOldKeysFade) {
  StableFilter f(4096, 4, /*max_value=*/3, 20, /*rng_seed=*/3);
  for (uint64_t x = 0; x < 20000; ++x) {
    f.Insert(x);
    ASSERT_TRUE(f.MayContain(x)) << "the key just inserted must be found";
  }
  uint64_t forgotten = 0;
  for (uint64_t x = 0; x < 1000; ++x) forgotten += !f.MayContain(x);
  EXPECT_GT(forgotten, 500u) << "false negatives by design: old keys fade to about the false-positive rate";
}

TEST(GardenStable, TheRandomStreamIsReproducibleFromItsSeed) {
  StableFilter a(1000, 3, 15, 7, 99), b(1000, 3, 15, 7, 99), c(1000, 3, 15, 7, 100);
  for (uint64_t x = 0; x < 500; ++x) {
    a.Insert(x);
    b.Insert(x);
    c.Insert(x);
  }
  bool same = true, differ = false;
  for (uint64_t i = 0; i < a.cells(); ++i) {
    same &= a.CellAt(i) == b.CellAt(i);
    differ |= a.CellAt(i) != c.CellAt(i);
  }
  EXPECT_TRUE(same);
  EXPECT_TRUE(differ);
  ExpectInvalid([] { StableFilter(100, 3, 256, 1); }, "max value Max = 256");
  ExpectInvalid([] { StableFilter(100, 3, 0, 1); }, "max value Max = 0");
  ExpectInvalid([] { StableFilter(100, 3, 2, 101); }, "decrements P");
}

TEST(GardenStable, AnyMaxUpTo255IsKeptInTheSmallestCells) {
  for (const auto& [max, bits] : {std::pair{1u, 1u}, std::pair{2u, 2u}, std::pair{3u, 2u}, std::pair{5u, 4u},
                                  std::pair{7u, 4u}, std::pair{100u, 8u}, std::pair{255u, 8u}}) {
    StableFilter f(512, 3, max, 4, 1);
    EXPECT_EQ(f.max_value(), max);
    EXPECT_EQ(f.cell_bits(), bits);
    for (uint64_t x = 0; x < 300; ++x) f.Insert(x);
    uint64_t at_max = 0;
    for (uint64_t i = 0; i < f.cells(); ++i) {
      ASSERT_LE(f.CellAt(i), max);
      at_max += f.CellAt(i) == max;
    }
    EXPECT_GT(at_max, 0u) << "sets write Max itself, not 2^d - 1";
  }
}

TEST(GardenStable, DecrementsHitDistinctCells) {
  // P = m: every insert decrements every cell exactly once (with replacement,
  // about 1/e of the cells would be missed). Max = 5 so the ages are visible.
  StableFilter f(64, 1, 5, 64, 7);
  f.Insert(uint64_t{1});  // one cell at 5
  for (uint64_t i = 0; i < f.cells(); ++i) ASSERT_LE(f.CellAt(i), 5u);
  const Probes p = ProbeCells(f.hasher()(uint64_t{1}), 1, f.cells());
  f.Insert(uint64_t{2});  // every cell decremented once, then key 2's cell set
  const Probes q = ProbeCells(f.hasher()(uint64_t{2}), 1, f.cells());
  if (p.cell[0] != q.cell[0]) {
    EXPECT_EQ(f.CellAt(p.cell[0]), 4u) << "decremented exactly once";
  }
  uint64_t nonzero = 0;
  for (uint64_t i = 0; i < f.cells(); ++i) nonzero += f.CellAt(i) != 0;
  EXPECT_EQ(nonzero, p.cell[0] == q.cell[0] ? 1u : 2u);
  // Large P takes the hash-set path of the sampler: still P distinct cells.
  StableFilter big(1000, 1, 1, 1000, 5);
  big.Insert(uint64_t{9});
  big.Insert(uint64_t{10});  // decrements all 1000 cells once: key 9's cell goes back to 0
  uint64_t set = 0;
  for (uint64_t i = 0; i < big.cells(); ++i) set += big.CellAt(i);
  EXPECT_EQ(set, 1u) << "P = m clears every cell before the set";
  // Smaller P: the model's zero fraction still holds (distinct draws are what it assumes).
  StableFilter g(1 << 14, 3, 5, 40, 3);
  for (uint64_t x = 0; x < 60000; ++x) g.Insert(x);
  const CountInterval a = BinomialAcceptance(g.cells(), g.StableZeroFraction(), kConfidence);
  EXPECT_GE(g.ZeroCells(), a.lo);
  EXPECT_LE(g.ZeroCells(), a.hi);
}

// ---- Clear() on every type ------------------------------------------------------------------------

TEST(GardenClear, EveryTypeReturnsToItsEmptyState) {
  CountingFilter c(1000, 3);
  SpectralFilter s(1000, 3, SpectralFilter::Policy::kRecurringMinimum);
  CountMinSketch cm(100, 4);
  BitwiseFilter b(3, {256, 2, 2});
  StableFilter st(1000, 3, 3, 5, 42), st_fresh(1000, 3, 3, 5, 42);
  A2Filter a2(1 << 12, 0.05);
  ScalableFilter sc(50, 0.01);
  for (uint64_t x = 0; x < 500; ++x) {
    c.Insert(x);
    s.Insert(x);
    cm.Add(x);
    b.Insert(x);
    st.Insert(x);
    a2.Insert(x);
    sc.Insert(x);
  }
  ASSERT_GT(sc.slices(), 1u);
  ASSERT_GT(a2.swaps(), 0u);
  c.Clear();
  s.Clear();
  cm.Clear();
  b.Clear();
  st.Clear();
  a2.Clear();
  sc.Clear();
  for (uint64_t x = 0; x < 500; ++x) {
    ASSERT_FALSE(c.MayContain(x));
    ASSERT_EQ(s.Count(x), 0u);
    ASSERT_EQ(cm.Estimate(x), 0u);
    ASSERT_EQ(b.Count(x), 0u);
    ASSERT_FALSE(st.MayContain(x));
    ASSERT_FALSE(a2.MayContain(x));
    ASSERT_FALSE(sc.MayContain(x));
  }
  EXPECT_EQ(cm.total(), 0u);
  EXPECT_EQ(sc.slices(), 1u);
  EXPECT_EQ(sc.inserted(), 0u);
  EXPECT_EQ(a2.swaps(), 0u);
  EXPECT_EQ(st.inserted(), 0u);
  // The stable filter's random stream restarts: it replays like a fresh one.
  for (uint64_t x = 0; x < 100; ++x) {
    st.Insert(x);
    st_fresh.Insert(x);
  }
  for (uint64_t i = 0; i < st.cells(); ++i) ASSERT_EQ(st.CellAt(i), st_fresh.CellAt(i));
}

// ---- Count-min: overflow and conservative update -------------------------------------------------

TEST(GardenCountMin, OverflowIsRefusedAndChangesNothing) {
  CountMinSketch cm(64, 3);
  cm.Add(uint64_t{1}, UINT64_MAX - 5);
  EXPECT_THROW(cm.Add(uint64_t{2}, 6), std::overflow_error);
  EXPECT_EQ(cm.total(), UINT64_MAX - 5);
  EXPECT_EQ(cm.Estimate(uint64_t{2}), cm.Estimate(uint64_t{2}));
  EXPECT_EQ(cm.Estimate(uint64_t{1}), UINT64_MAX - 5) << "no counter wrapped";
  cm.Add(uint64_t{2}, 5);
  EXPECT_EQ(cm.total(), UINT64_MAX);
  const std::vector<uint64_t> h = {cm.hasher()(uint64_t{3})};
  EXPECT_THROW(cm.AddHashBatch(h), std::overflow_error);
  CountMinSketch other(64, 3);
  other.Add(uint64_t{4});
  EXPECT_THROW(cm.MergeFrom(other), std::overflow_error);
  EXPECT_EQ(cm.Estimate(uint64_t{4}), cm.Estimate(uint64_t{4}));
  EXPECT_EQ(cm.total(), UINT64_MAX);
}

TEST(GardenCountMin, ConservativeUpdateNeverUnderCountsAndErrsLess) {
  const Multiset ms = MakeMultiset(20000, 30, 5);
  CountMinSketch::Options cu;
  cu.conservative = true;
  CountMinSketch plain(2000, 4), cons(2000, 4, cu);
  for (uint64_t x : ms.stream) {
    plain.Add(x);
    cons.Add(x);
  }
  uint64_t err_plain = 0, err_cons = 0;
  for (const auto& [x, f] : ms.truth) {
    ASSERT_GE(cons.Estimate(x), f) << x;
    ASSERT_LE(cons.Estimate(x), plain.Estimate(x)) << "each CU counter is <= the plain one";
    err_plain += plain.Estimate(x) - f;
    err_cons += cons.Estimate(x) - f;
  }
  EXPECT_LT(err_cons, err_plain / 2) << err_cons << " vs " << err_plain;
  EXPECT_EQ(cons.total(), ms.stream.size());
}

TEST(GardenCountMin, BatchesEqualPerKeyCallsAndMergeAddsWithWeights) {
  const Multiset ms = MakeMultiset(5000, 10, 9);
  for (bool conservative : {false, true}) {
    CountMinSketch::Options o;
    o.conservative = conservative;
    CountMinSketch one(997, 5, o), batch(997, 5, o);
    std::vector<uint64_t> hashes;
    for (uint64_t x : ms.stream) {
      one.Add(x);
      hashes.push_back(batch.hasher()(x));
    }
    batch.AddHashBatch(hashes);
    std::vector<uint64_t> est(hashes.size());
    batch.EstimateHashBatch(hashes, est);
    for (size_t i = 0; i < hashes.size(); ++i) ASSERT_EQ(est[i], one.EstimateHash(hashes[i]));
    for (uint32_t r = 0; r < 5; ++r)
      for (uint64_t c = 0; c < 997; ++c) ASSERT_EQ(one.CounterAt(r, c), batch.CounterAt(r, c));
  }
  CountMinSketch a(500, 4), b(500, 4), both(500, 4);
  for (uint64_t x = 0; x < 3000; ++x) {
    (x % 3 == 0 ? a : b).Add(x, x % 7 + 1);
    both.Add(x, x % 3 == 0 ? x % 7 + 1 : 3 * (x % 7 + 1));
  }
  a.MergeFrom(b, 3);
  for (uint32_t r = 0; r < 4; ++r)
    for (uint64_t c = 0; c < 500; ++c) ASSERT_EQ(a.CounterAt(r, c), both.CounterAt(r, c));
  EXPECT_EQ(a.total(), both.total());
  ExpectInvalid([&] { a.MergeFrom(CountMinSketch(501, 4)); }, "width");
}

// ---- A2Filter -----------------------------------------------------------------------------------------

// Both vectors of M bits full at n keys: 1 - (1 - f_c)^2.
double A2BothFull(uint64_t m, uint64_t n, uint32_t k) {
  const double fc = ClassicDoubleHashingFpr(m, k, static_cast<double>(n));
  return 1.0 - (1.0 - fc) * (1.0 - fc);
}

TEST(GardenA2, CapacityIsTheLargestThatMeetsTheTargetOverEveryK) {
  for (const auto& [bits, f] : {std::pair{uint64_t{1} << 20, 0.01}, std::pair{uint64_t{1} << 20, 0.02},
                                std::pair{uint64_t{1} << 20, 0.001}, std::pair{uint64_t{1} << 16, 0.01}}) {
    const A2Filter::Params p = A2Filter::ParamsFor(bits, f);
    const uint64_t m = bits / 2;
    std::printf("[ measured ] A2 m = %llu, f = %g: k_a = %u, capacity %llu, both full %.6f\n",
                static_cast<unsigned long long>(bits), f, p.k, static_cast<unsigned long long>(p.capacity),
                A2BothFull(m, p.capacity, p.k));
    EXPECT_LE(A2BothFull(m, p.capacity, p.k), f) << "the target holds at capacity";
    EXPECT_NEAR(p.vector_fpr, ClassicDoubleHashingFpr(m, p.k, static_cast<double>(p.capacity)), 1e-15);
    // No k holds one key more within the target.
    for (uint32_t k = 1; k <= kMaxProbes; ++k) EXPECT_GT(A2BothFull(m, p.capacity + 1, k), f) << "k=" << k;
  }
  // The article's sizing at m = 2^20, f = 1%: k_a = floor(-log2(1 - sqrt(0.99))) = 7 and
  // (m / 14) ln 2 = 51,915 keys, which reach 1.56%; 7 probes meet 1% only up to 47,449
  // (47,450 by the textbook rate, which sized files written before 2026-11-28).
  const uint64_t m = 1 << 19;
  EXPECT_GT(A2BothFull(m, 51915, 7), 0.015);
  EXPECT_LE(A2BothFull(m, 47449, 7), 0.01);
  EXPECT_GT(A2BothFull(m, 47450, 7), 0.01);
  EXPECT_GE(A2Filter::ParamsFor(1 << 20, 0.01).capacity, 47449u);
  ExpectInvalid([] { A2Filter::ParamsFor(1, 0.01); }, "bits");
  ExpectInvalid([] { A2Filter::ParamsFor(1 << 16, 1.0); }, "fpr");
  ExpectInvalid([] { A2Filter::ParamsFor(8, 1e-6); }, "holds no key");
  // A rate so small that the bits it needs exceed 2^64 (a hostile garden file's
  // target rate, found by the fuzzer): a clear error, not a float-to-int overflow.
  ExpectInvalid([] { A2Filter::ParamsFor(1024, 1e-300); }, "expected at least about 4e+300 bits");
}

TEST(GardenA2, MeetsItsTargetWithBothVectorsAtCapacity) {
  constexpr double kTarget = 0.01;
  A2Filter f(1 << 18, kTarget);
  uint64_t x = 0;
  while (f.swaps() == 0 || f.active_count() < f.capacity()) f.Insert(x++);
  ASSERT_EQ(f.passive_count(), f.capacity());
  ASSERT_EQ(f.active_count(), f.capacity());
  EXPECT_NEAR(f.Fpr(), f.FprAtCapacity(), 1e-15);
  EXPECT_LE(f.FprAtCapacity(), kTarget);
  constexpr uint64_t kTrials = 1000000;
  const uint64_t hits = CountFalsePositives(f, kTrials);
  ExpectRate(hits, kTrials, f.FprAtCapacity());
  EXPECT_LT(ClopperPearson(hits, kTrials, kConfidence).lo, kTarget) << "measured rate significantly above the target";
}

TEST(GardenA2, SwapsWhenTheActiveVectorIsFull) {
  A2Filter f(1 << 16, 0.01);
  const uint64_t cap = f.capacity();
  uint64_t added = 0, x = 0;
  while (added < cap) added += f.Insert(x++);  // a key already in the active vector is not added
  EXPECT_EQ(f.swaps(), 0u);
  EXPECT_EQ(f.active_count(), cap);
  EXPECT_FALSE(f.Insert(uint64_t{0})) << "already in the active vector";
  const Filter full = f.active();
  while (!f.Insert(x)) ++x;
  EXPECT_EQ(f.swaps(), 1u);
  EXPECT_EQ(f.active_count(), 1u);
  EXPECT_EQ(f.passive_count(), cap);
  EXPECT_TRUE(f.passive() == full) << "the full vector became the passive one";
  EXPECT_TRUE(f.MayContain(uint64_t{0}));
}

TEST(GardenA2, RecentKeysAreAlwaysFoundAndTheRateMatchesTheModel) {
  A2Filter f(1 << 15, 0.02);
  const uint64_t cap = f.capacity();
  const uint64_t total = 5 * cap;
  for (uint64_t x = 0; x < total; ++x) {
    f.Insert(x);
    if (x % 101 == 0 || x + 1 == total) {
      for (uint64_t y = x + 1 >= cap ? x + 1 - cap : 0; y <= x; ++y) ASSERT_TRUE(f.MayContain(y)) << y << " at " << x;
    }
  }
  EXPECT_GE(f.swaps(), 4u);
  uint64_t forgotten = 0;
  for (uint64_t y = 0; y < cap; ++y) forgotten += !f.MayContain(y);
  EXPECT_GT(forgotten, cap / 2) << "the oldest generation has been flushed";
  constexpr uint64_t kTrials = 200000;
  ExpectRate(CountFalsePositives(f, kTrials), kTrials, f.Fpr());
  EXPECT_LE(f.Fpr(), f.FprAtCapacity());
}

// ---- ScalableFilter -------------------------------------------------------------------------------------

TEST(GardenScalable, SlicesGrowAsSpecifiedAndTheRateStaysUnderTheOverallBound) {
  for (Layout layout : {Layout::kBlocked512, Layout::kClassic}) {
    ScalableFilter::Options o;
    o.layout = layout;
    o.growth = 2;
    o.tightening = 0.85;
    constexpr uint64_t kFirst = 1000;
    constexpr double kP = 0.01;  // the overall bound; P_0 = P (1 - r) = 0.0015
    ScalableFilter f(kFirst, kP, o);
    EXPECT_NEAR(f.first_slice_fpr(), kP * 0.15, 1e-15);
    constexpr uint64_t kKeys = 14000;  // slices of 1000, 2000, 4000, 8000
    for (uint64_t x = 0; x < kKeys; ++x) f.Insert(x);
    for (uint64_t x = 0; x < kKeys; ++x) ASSERT_TRUE(f.MayContain(x)) << "false negative " << x;
    ASSERT_EQ(f.slices(), 4u);
    for (size_t i = 0; i < f.slices(); ++i) {
      const Filter& s = f.slice(i);
      EXPECT_EQ(f.SliceCapacity(i), kFirst << i);
      EXPECT_NEAR(f.SliceFpr(i), kP * 0.15 * std::pow(0.85, i), 1e-15);
      EXPECT_LE(PredictFpr(layout, s.num_blocks(), s.k(), f.SliceCapacity(i)), f.SliceFpr(i));
      if (i + 1 < f.slices()) {
        EXPECT_EQ(s.inserted(), f.SliceCapacity(i)) << "full slice " << i;
      }
      if (i > 0) {
        EXPECT_GT(s.bit_count(), f.slice(i - 1).bit_count());
      }
    }
    EXPECT_LE(f.inserted(), kKeys) << "keys the filter already reported were not added";
    EXPECT_LE(f.Fpr(), ScalableCompoundFpr(f.first_slice_fpr(), 0.85, 4));
    EXPECT_LT(ScalableCompoundFpr(f.first_slice_fpr(), 0.85, 4), kP);
    EXPECT_NEAR(ScalableFprLimit(f.first_slice_fpr(), 0.85), kP, 1e-15);
    constexpr uint64_t kTrials = 400000;
    const uint64_t hits = CountFalsePositives(f, kTrials);
    ExpectRate(hits, kTrials, f.Fpr());
    EXPECT_LT(ClopperPearson(hits, kTrials, kConfidence).hi, kP) << LayoutName(layout);
  }
}

TEST(GardenScalable, ImpossibleSlicesAreRefusedClearlyAndChangeNothing) {
  // Growth 1 keeps every slice at n_0 keys while its rate tightens by 0.85:
  // blocked512 soon cannot reach it (it used to throw bad_alloc at slice 198).
  ScalableFilter::Options o;
  o.growth = 1;
  ScalableFilter f(100, 0.01, o);
  uint64_t x = 0;
  std::string message;
  try {
    for (; x < 100 * 200; ++x) f.Insert(x);
  } catch (const std::length_error& e) {
    message = e.what();
  }
  ASSERT_FALSE(message.empty()) << "no refusal after " << f.slices() << " slices";
  std::printf("[ measured ] refused at slice %zu: %s\n", f.slices(), message.c_str());
  EXPECT_NE(message.find("slice " + std::to_string(f.slices())), std::string::npos) << message;
  EXPECT_EQ(message.rfind("blockbloom: scalable filter: ", 0), 0u) << message;
  const uint64_t before = f.inserted();
  EXPECT_THROW(f.Insert(x), std::length_error);
  EXPECT_EQ(f.inserted(), before) << "a refused insert changes nothing";
  for (uint64_t y = 0; y < x; ++y) ASSERT_TRUE(f.MayContain(y));
}

TEST(GardenScalable, DuplicatesDoNotUseCapacityAndStringsWork) {
  ScalableFilter f(100, 0.001);
  EXPECT_TRUE(f.Insert(std::string_view("a")));
  EXPECT_FALSE(f.Insert(std::string_view("a")));
  EXPECT_EQ(f.inserted(), 1u);
  EXPECT_TRUE(f.MayContain("a"));
  ExpectInvalid([] { ScalableFilter(0, 0.01); }, "initial capacity");
  ExpectInvalid([] { ScalableFilter(10, 1.5); }, "fpr");
  ScalableFilter::Options o;
  o.tightening = 1.0;
  ExpectInvalid([&] { ScalableFilter(10, 0.01, o); }, "tightening");
}

}  // namespace
}  // namespace blockbloom::garden
