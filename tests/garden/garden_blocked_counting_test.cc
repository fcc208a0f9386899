// SPDX-License-Identifier: Apache-2.0
// BlockedCountingFilter (blockbloom/garden/blocked_counting.h): no false negatives,
// batches equal per-key calls on every target, remove round trips, merge is
// the filter of the union, saturation sticks, and the false-positive and
// counter-load models hold against measurement (99.99% binomial intervals).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>
#include <vector>

#include "blockbloom/garden.h"
#include "blockbloom/verify/stats.h"
#include "engine/src/model_internal.h"
#include "kernels/counting.h"
#include "kernels/kernels.h"

namespace blockbloom::garden {
namespace {

constexpr double kConfidence = 0.9999;
constexpr uint64_t kAbsentBase = uint64_t{1} << 40;

std::vector<uint64_t> Range(uint64_t from, uint64_t n) {
  std::vector<uint64_t> v(n);
  for (uint64_t i = 0; i < n; ++i) v[i] = from + i;
  return v;
}

// On every target, with the batches' prefetch as the size picks it (128 KiB:
// none) and forced on and off (kernels::SetPrefetchPolicy), so both of the
// pipeline's paths are checked.
TEST(GardenBlockedCounting, BatchesEqualPerKeyCallsOnEveryTarget) {
  const auto keys = Range(0, 30000);
  const auto probes = Range(kAbsentBase, 30000);
  BlockedCountingFilter one(2000, 7);
  for (uint64_t x : keys) one.Insert(x);
  for (uint64_t x = 0; x < keys.size(); x += 3) ASSERT_TRUE(one.Remove(x));
  for (const kernels::Ops* t : kernels::CompiledTargets()) {
    if (!kernels::Supported(*t)) continue;
    ASSERT_TRUE(kernels::PinTarget(t->name));
    ASSERT_STREQ(kernels::counting::ActiveCounting().name, t->name) << "the counting kernels follow the pin";
    for (kernels::PrefetchPolicy policy :
         {kernels::PrefetchPolicy::kAuto, kernels::PrefetchPolicy::kAlways, kernels::PrefetchPolicy::kNever}) {
      const kernels::ScopedPrefetchPolicy scoped(policy);
      const std::string what = std::string(t->name) + " prefetch policy " + std::to_string(static_cast<int>(policy));
      BlockedCountingFilter batch(2000, 7);
      batch.InsertBatch(keys);
      std::vector<uint64_t> gone;
      for (uint64_t x = 0; x < keys.size(); x += 3) gone.push_back(x);
      std::vector<uint8_t> removed(gone.size());
      EXPECT_EQ(batch.RemoveBatch(gone, removed), gone.size()) << what;
      EXPECT_TRUE(batch == one) << what;
      EXPECT_EQ(batch.saturations(), one.saturations()) << what;
      std::vector<uint8_t> out(probes.size()), counts(keys.size());
      const size_t hits = batch.MayContainBatch(probes, out);
      size_t expect = 0;
      for (size_t i = 0; i < probes.size(); ++i) {
        ASSERT_EQ(out[i] != 0, one.MayContain(probes[i])) << what;
        expect += out[i];
      }
      EXPECT_EQ(hits, expect) << what;
      batch.CountBatch(keys, counts);
      for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(counts[i], one.Count(keys[i])) << what;
    }
  }
  kernels::PinTarget("auto");
}

TEST(GardenBlockedCounting, StringKeysAndOtherHashesBatchLikePerKey) {
  std::vector<std::string> owned;
  for (int i = 0; i < 3000; ++i) owned.push_back("https://example.com/" + std::to_string(i));
  std::vector<std::string_view> keys(owned.begin(), owned.end());
  for (HashKind kind : kHashKinds) {
    BlockedCountingFilter a(500, 6, kind, 17), b(500, 6, kind, 17);
    a.InsertBatch(keys);
    for (std::string_view k : keys) b.Insert(k);
    EXPECT_TRUE(a == b);
    std::vector<uint64_t> ints = Range(5, 2000);
    a.InsertBatch(ints);
    for (uint64_t x : ints) b.Insert(x);
    EXPECT_TRUE(a == b);
    std::vector<uint8_t> out(keys.size());
    EXPECT_EQ(a.MayContainBatch(keys, out), keys.size());
  }
}

TEST(GardenBlockedCounting, RemoveRoundTripLeavesEveryCounterZero) {
  BlockedCountingFilter f(1000, 8);
  const auto keys = Range(0, 20000);
  f.InsertBatch(keys);
  ASSERT_EQ(f.saturations(), 0u);
  std::vector<uint8_t> out(keys.size());
  ASSERT_EQ(f.MayContainBatch(keys, out), keys.size()) << "no false negatives";
  ASSERT_EQ(f.RemoveBatch(keys, out), keys.size());
  EXPECT_EQ(f.NonZeroCells(), 0u);
  EXPECT_EQ(f.inserted(), 0u);
  EXPECT_FALSE(f.Remove(uint64_t{3})) << "a key with a zero counter is refused";
}

TEST(GardenBlockedCounting, SaturatedCountersStickAndNeverWrap) {
  BlockedCountingFilter f(4, 5);
  for (int i = 0; i < 20; ++i) f.Insert(uint64_t{77});
  EXPECT_EQ(f.Count(uint64_t{77}), 15u);
  const uint64_t distinct = f.SaturatedCells();
  EXPECT_GE(distinct, 1u);
  EXPECT_LE(distinct, 5u);
  EXPECT_EQ(f.saturations(), 5 * distinct);
  for (int i = 0; i < 20; ++i) EXPECT_TRUE(f.Remove(uint64_t{77}));
  EXPECT_EQ(f.Count(uint64_t{77}), 15u) << "saturated counters are never decremented";
}

TEST(GardenBlockedCounting, MergeIsTheFilterOfBothStreams) {
  BlockedCountingFilter a(300, 6), b(300, 6), both(300, 6);
  for (uint64_t x = 0; x < 20000; ++x) {
    // Overlapping multisets, dense enough that some counters saturate.
    const uint64_t key = x % 7000;
    (x % 2 == 0 ? a : b).Insert(key);
    both.Insert(key);
  }
  ASSERT_GT(both.SaturatedCells(), 0u);
  a.MergeFrom(b);
  EXPECT_TRUE(a == both) << "min(a + b, 15) == min(min(a,15) + min(b,15), 15)";
  BlockedCountingFilter other_k(300, 5), other_seed(300, 6, HashKind::kXxh3, 1);
  EXPECT_THROW(a.MergeFrom(other_k), std::invalid_argument);
  EXPECT_THROW(a.MergeFrom(other_seed), std::invalid_argument);
}

TEST(GardenBlockedCounting, FalsePositiveRateMatchesTheModel) {
  for (uint32_t k : {3u, 7u, 12u}) {
    BlockedCountingFilter f(4096, k);
    constexpr uint64_t kKeys = 40000;  // ~12.8 counters a key
    f.InsertBatch(Range(0, kKeys));
    constexpr uint64_t kTrials = 400000;
    std::vector<uint8_t> out(kTrials);
    const uint64_t hits = f.MayContainBatch(Range(kAbsentBase, kTrials), out);
    const double predicted = f.Fpr(kKeys);
    const FprCheck c = CheckFpr(hits, kTrials, predicted, kConfidence);
    std::printf("[ measured ] blocked counting k=%u: %.5f, predicted %.5f\n", k, c.rate(), predicted);
    EXPECT_TRUE(c.pass) << "k=" << k << " measured " << c.rate() << " predicted " << predicted;
  }
}

// The kernels pick the block from the hash's high 32 bits, so unless the
// block count divides 2^32 some blocks take one more hash value than others
// (model.h, "Block selection"); the rate is the engine's two-class mixture,
// not the equally-likely-blocks one. With 3 * 2^30 blocks a third of them
// take twice the keys of the rest, and the rate is clearly above the uniform
// form; with 2^20 blocks every block is equally likely and the two agree.
TEST(GardenBlockedCounting, TheModelPicksBlocksAsTheKernelsDo) {
  const uint32_t k = 6;
  auto uniform = [&](uint64_t blocks, uint64_t n) {
    return blockbloom::detail::LoadedBlockMixture(
        n, 1.0 / static_cast<double>(blocks), [&](uint64_t i) { return garden::BlockedCountingBlockFpr(k, i); });
  };
  const uint64_t even = uint64_t{1} << 20, uneven = uint64_t{3} << 30;
  EXPECT_NEAR(garden::BlockedCountingFpr(even, k, 10 * even), uniform(even, 10 * even), 1e-12);
  const double selecting = garden::BlockedCountingFpr(uneven, k, 10 * uneven);
  const double equal = uniform(uneven, 10 * uneven);
  EXPECT_GT(selecting, equal * 1.05) << selecting << " vs " << equal;
}

TEST(GardenBlockedCounting, CounterLoadsFollowTheBinomialModel) {
  // Counters >= j among 128 x blocks: each is Binomial(n, q / blocks); the
  // counters are negatively correlated (fixed total), so the binomial
  // acceptance interval over all counters is conservative.
  constexpr uint64_t kBlocks = 2048, kKeys = 40000;
  constexpr uint32_t kK = 6;
  BlockedCountingFilter f(kBlocks, kK);
  f.InsertBatch(Range(0, kKeys));
  const uint64_t cells = kBlocks * 128;
  for (uint64_t j : {1u, 2u, 3u, 5u}) {
    uint64_t at_least = 0;
    for (uint64_t i = 0; i < cells; ++i) at_least += f.CounterAt(i) >= j;
    const double p = BlockedCountingCounterTail(kBlocks, kK, kKeys, j);
    const CountInterval a = BinomialAcceptance(cells, p, kConfidence);
    EXPECT_GE(at_least, a.lo) << "j=" << j;
    EXPECT_LE(at_least, a.hi) << "j=" << j;
  }
  // Overflow: at this load (~20 counters a key) saturation is a ~1e-9 event per counter.
  EXPECT_LT(BlockedCountingSaturation(kBlocks, kK, kKeys) * static_cast<double>(cells), 1e-3);
  EXPECT_EQ(f.saturations(), 0u);
}

TEST(GardenBlockedCounting, ForKeysIsTheSmallestFilterMeetingTheRate) {
  for (const auto& [n, fpr] : {std::pair{uint64_t{1000000}, 0.01}, std::pair{uint64_t{10000}, 0.001}}) {
    const BlockedCountingParams p = SolveBlockedCounting(n, fpr);
    std::printf("[ measured ] ForKeys(%llu, %g): k = %u, %llu blocks (%.1f counters a key, %.2f MB), rate %.5f, "
                "expected saturated counters %.3g\n",
                static_cast<unsigned long long>(n), fpr, p.k, static_cast<unsigned long long>(p.num_blocks),
                128.0 * static_cast<double>(p.num_blocks) / static_cast<double>(n), static_cast<double>(p.num_blocks) * 64 / 1e6,
                p.fpr, BlockedCountingSaturation(p.num_blocks, p.k, n) * 128.0 * static_cast<double>(p.num_blocks));
    EXPECT_LE(BlockedCountingFpr(p.num_blocks, p.k, n), fpr);
    for (uint32_t k = 1; k <= 16; ++k) EXPECT_GT(BlockedCountingFpr(p.num_blocks - 1, k, n), fpr) << "k=" << k;
    EXPECT_LT(BlockedCountingSaturation(p.num_blocks, p.k, n) * 128.0 * static_cast<double>(p.num_blocks), 1e-6);
  }
  const BlockedCountingFilter f = BlockedCountingFilter::ForKeys(5000, 0.02);
  EXPECT_LE(f.Fpr(5000), 0.02);
  EXPECT_THROW(BlockedCountingFilter::ForKeys(0, 0.01), std::invalid_argument);
  EXPECT_THROW(BlockedCountingFilter::ForKeys(10, 1.0), std::invalid_argument);
  EXPECT_THROW(BlockedCountingFilter(0, 3), std::invalid_argument);
  EXPECT_THROW(BlockedCountingFilter(10, 17), std::invalid_argument);
}

}  // namespace
}  // namespace blockbloom::garden
