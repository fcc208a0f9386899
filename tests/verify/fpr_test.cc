// SPDX-License-Identifier: Apache-2.0
// Measured false-positive rates against the exact model (model.h), for every
// layout: each point's measured rate must lie in the model's 99.99% binomial
// acceptance interval, with enough absent probes that the interval's half-width
// is within 5% of the rate. Two negative controls (deliberately broken hashes)
// must FAIL the same check, so the check is known to bite. The full grid runs
// in `blockbloom verify`.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "blockbloom/targets.h"
#include "blockbloom/filter.h"
#include "blockbloom/layout.h"
#include "blockbloom/verify/measure.h"
#include "blockbloom/model.h"
#include "blockbloom/verify/stats.h"
#include "kernels/common.h"

namespace blockbloom {
namespace {

constexpr double kConfidence = 0.9999;
// Half-width of the acceptance interval relative to the rate: the issue asks
// for 5%; probes are sized for 4.5% so that present probes and duplicate keys
// (which lower the absent count and n) still leave it within 5%.
constexpr double kRelativeHalfWidth = 0.05;
constexpr double kProbeSizingWidth = 0.045;

struct Point {
  Layout layout;
  double bits_per_key;
  uint32_t k;
  uint64_t inserts;
  KeyStream stream;
  double duplicate_fraction;
  double present_fraction;
  uint64_t blocks = 0;    // 0: from bits_per_key
  // Independent filters the probes are spread over; 0: as many as
  // SuggestedReplicas asks for (blockbloom/verify/measure.h), as `blockbloom verify` does.
  uint64_t replicas = 0;
};

std::string Describe(const Point& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s %.1f bits/key k=%u n=%llu %s dup=%.2f present=%.2f",
                std::string(LayoutName(p.layout)).c_str(), p.bits_per_key, p.k,
                static_cast<unsigned long long>(p.inserts), std::string(KeyStreamName(p.stream)).c_str(),
                p.duplicate_fraction, p.present_fraction);
  return buf;
}

uint64_t BlocksFor(const Point& p) {
  if (p.blocks != 0) return p.blocks;
  const double bits = p.bits_per_key * static_cast<double>(p.inserts);
  return std::max<uint64_t>(1, static_cast<uint64_t>(bits / LayoutBlockBits(p.layout) + 0.5));
}

Measurement Measure(const Point& p, uint64_t (*hash)(std::string_view) = nullptr, uint64_t family = 1) {
  Filter f = Filter::WithBlocks(p.layout, BlocksFor(p), p.k);
  // Size the probes for the rate at the expected distinct count: duplicates
  // repeat earlier keys, so n = inserts (1 - duplicate fraction) on average.
  const auto distinct = static_cast<uint64_t>(static_cast<double>(p.inserts) * (1.0 - p.duplicate_fraction));
  const uint64_t n = std::max<uint64_t>(1, distinct);
  const double expected = PredictFpr(p.layout, f.num_blocks(), p.k, n);
  MeasureSpec spec;
  spec.stream = p.stream;
  spec.family = family;
  spec.inserts = p.inserts;
  spec.duplicate_fraction = p.duplicate_fraction;
  spec.present_fraction = p.present_fraction;
  spec.probes = static_cast<uint64_t>(static_cast<double>(ProbesForRelativeHalfWidth(expected, kProbeSizingWidth, kConfidence)) /
                                      (1.0 - p.present_fraction));
  spec.replicas = p.replicas != 0 ? p.replicas
                                  : std::min(spec.probes, SuggestedReplicas(p.layout, f.num_blocks(), p.k, n, spec.probes));
  spec.confidence = kConfidence;
  spec.hash = hash;
  return MeasureFpr(f, spec);
}

void ExpectMatchesModel(const Point& p) {
  const Measurement m = Measure(p);
  const FprCheck& c = m.check;
  SCOPED_TRACE(Describe(p));
  EXPECT_EQ(m.false_negatives, 0u);
  // The interval is tight enough to mean something.
  const double half_width = static_cast<double>(c.accept.hi - c.accept.lo) / 2.0 / static_cast<double>(c.trials);
  EXPECT_LE(half_width, kRelativeHalfWidth * c.predicted) << "too few probes: " << c.trials;
  EXPECT_TRUE(c.pass) << "measured " << c.rate() << " (" << c.hits << " of " << c.trials << "), model "
                      << c.predicted << ", accepted counts [" << c.accept.lo << ", " << c.accept.hi << "]";
  if (p.duplicate_fraction > 0) {
    EXPECT_LT(m.distinct_keys, p.inserts);
  }
  if (p.present_fraction > 0) {
    EXPECT_GT(m.present_probes, 0u);
  }
}

// One grid per layout: rates from ~10% down to ~0.1%, all three key streams,
// with and without duplicate inserts and present probes.
const std::vector<Point>& Grid(Layout l) {
  static const std::vector<Point> blocked512 = {
      {Layout::kBlocked512, 4.0, 3, 50'000, KeyStream::kRandomU64, 0, 0},
      {Layout::kBlocked512, 10.0, 6, 200'000, KeyStream::kUrls, 0.1, 0.05},
      {Layout::kBlocked512, 16.0, 11, 100'000, KeyStream::kSequentialU64, 0, 0},
      {Layout::kBlocked512, 8.0, 1, 100'000, KeyStream::kRandomU64, 0, 0},
  };
  static const std::vector<Point> split256 = {
      {Layout::kSplit256, 6.0, 8, 100'000, KeyStream::kSequentialU64, 0, 0},
      {Layout::kSplit256, 10.5, 8, 200'000, KeyStream::kUrls, 0.1, 0.05},
      {Layout::kSplit256, 16.9, 8, 50'000, KeyStream::kRandomU64, 0, 0},
  };
  static const std::vector<Point> sectorized512 = {
      {Layout::kSectorized512, 4.0, 2, 100'000, KeyStream::kRandomU64, 0, 0},
      {Layout::kSectorized512, 8.0, 4, 100'000, KeyStream::kUrls, 0.1, 0.05},
      {Layout::kSectorized512, 12.0, 8, 100'000, KeyStream::kSequentialU64, 0, 0},
      {Layout::kSectorized512, 20.0, 16, 50'000, KeyStream::kRandomU64, 0, 0},
      {Layout::kSectorized512, 6.0, 1, 50'000, KeyStream::kRandomU64, 0, 0},
  };
  static const std::vector<Point> register64 = {
      {Layout::kRegister64, 4.0, 2, 100'000, KeyStream::kSequentialU64, 0, 0},
      {Layout::kRegister64, 10.0, 5, 200'000, KeyStream::kUrls, 0.1, 0.05},
      {Layout::kRegister64, 16.0, 8, 100'000, KeyStream::kRandomU64, 0, 0},
  };
  static const std::vector<Point> classic = {
      {Layout::kClassic, 4.0, 3, 100'000, KeyStream::kRandomU64, 0, 0},
      {Layout::kClassic, 10.0, 7, 200'000, KeyStream::kUrls, 0.1, 0.05},
      {Layout::kClassic, 14.0, 10, 100'000, KeyStream::kSequentialU64, 0, 0},
      // Small filters with many probes, where double hashing's steps near
      // multiples of 2^64 / D (D < k) put probes on one bit: 1.43x and 1.32x the
      // textbook rate (1 - (1 - 1/m)^(kn))^k, far outside the interval.
      {Layout::kClassic, 16.0, 14, 100, KeyStream::kRandomU64, 0, 0},
      {Layout::kClassic, 15.0, 14, 100, KeyStream::kSequentialU64, 0, 0},
  };
  static const std::vector<Point> split512 = {
      {Layout::kSplit512, 6.0, 8, 100'000, KeyStream::kSequentialU64, 0, 0},
      {Layout::kSplit512, 10.0, 8, 200'000, KeyStream::kUrls, 0.1, 0.05},
      {Layout::kSplit512, 16.0, 8, 100'000, KeyStream::kRandomU64, 0, 0},
  };
  switch (l) {
    case Layout::kSplit512: return split512;
    case Layout::kBlocked512: return blocked512;
    case Layout::kSplit256: return split256;
    case Layout::kSectorized512: return sectorized512;
    case Layout::kRegister64: return register64;
    case Layout::kClassic: break;
  }
  return classic;
}

class FprGrid : public ::testing::TestWithParam<Layout> {};

TEST_P(FprGrid, MeasuredRateWithinModelInterval) {
  for (const Point& p : Grid(GetParam())) ExpectMatchesModel(p);
}

// Small filters: 512 to 8192 bits, where the binomial (not Poisson) load
// distribution, the finite block count and 1/m terms matter. One small filter's
// realized rate scatters widely around the model's expectation, so the probes
// are spread over many independent filters, bits/32 probes each: then
// probes-per-filter * rate * k^2 / bits stays below ~0.15 (see measure.h).
TEST_P(FprGrid, SmallFiltersMatchModel) {
  const Layout l = GetParam();
  const uint32_t k = l == Layout::kSplit256 || l == Layout::kSplit512 ? 8 : l == Layout::kSectorized512 ? 4 : 3;
  for (uint64_t bits : {512u, 2048u, 8192u}) {
    constexpr double kBitsPerKey = 8.0;
    const uint64_t blocks = bits / LayoutBlockBits(l);
    const uint64_t n = static_cast<uint64_t>(static_cast<double>(bits) / kBitsPerKey);
    const double expected = PredictFpr(l, blocks, k, n);
    const uint64_t probes_per_filter = bits / 32;
    const uint64_t replicas = ProbesForRelativeHalfWidth(expected, kProbeSizingWidth, kConfidence) / probes_per_filter + 1;
    ExpectMatchesModel({l, kBitsPerKey, k, n, KeyStream::kRandomU64, 0, 0, blocks, replicas});
  }
}

// One filter's realized rate scatters around the model over key sets by
// RealizedRateVariance (blockbloom/verify/measure.h): measured over 40 key families at points
// where the block loads' part dominates (sectorized512 k = 16: 12x the
// binomial variance; the bits' part alone predicts 1.9x) or is about even
// with the bits' (blocked512 k = 11). The sample variance of 40 rates has a
// relative standard error of ~23%; the bounds are three of them wide.
TEST(FprScatter, FilterScatterMatchesPrediction) {
  for (const Point& p : {Point{Layout::kSectorized512, 20.0, 16, 50'000, KeyStream::kRandomU64, 0, 0, 0, 1},
                         Point{Layout::kBlocked512, 16.0, 11, 100'000, KeyStream::kRandomU64, 0, 0, 0, 1}}) {
    SCOPED_TRACE(Describe(p));
    constexpr int kFamilies = 40;
    std::vector<Measurement> ms;
    for (uint64_t family = 1; family <= kFamilies; ++family) ms.push_back(Measure(p, nullptr, family));
    double mean = 0.0, var = 0.0;
    for (const Measurement& m : ms) mean += m.check.rate() / kFamilies;
    for (const Measurement& m : ms) var += (m.check.rate() - mean) * (m.check.rate() - mean) / (kFamilies - 1);
    const FprCheck& c = ms.front().check;  // every family: the same point, so the same model rate and probes
    const double binomial = c.predicted * (1.0 - c.predicted) / static_cast<double>(c.trials);
    const double predicted = RealizedRateVariance(p.layout, BlocksFor(p), p.k, p.inserts) + binomial;
    EXPECT_GT(var, 0.3 * predicted) << "scatter " << var << ", predicted " << predicted;
    EXPECT_LT(var, 1.7 * predicted) << "scatter " << var << ", predicted " << predicted;
  }
}

// Every SIMD target this CPU runs measures the same: one point per layout
// (the byte-equality tests in kernels_test.cc cover the rest).
TEST_P(FprGrid, EveryTargetMatchesModel) {
  const Point p = Grid(GetParam())[0];
  for (const TargetInfo& t : CompiledTargets()) {
    if (!t.supported) continue;
    SCOPED_TRACE(std::string(t.name));
    PinTarget(t.name);
    ASSERT_EQ(ActiveTarget(), t.name);
    ExpectMatchesModel(p);
  }
  PinTarget("auto");
}

INSTANTIATE_TEST_SUITE_P(Layouts, FprGrid, ::testing::ValuesIn(kAllLayouts),
                         [](const ::testing::TestParamInfo<Layout>& param) { return std::string(LayoutName(param.param)); });

// ---- Negative controls: broken hashes must fail the check -------------------------

// Uses only the low 32 bits of a good hash, copied into the high half: the block
// index and the probe bits then come from the same 32 bits (the "32-bit hash"
// mistake), so keys in one block share their first probes.
uint64_t HalfHash(std::string_view key) {
  const uint64_t lo = HashBytes(key, HashKind::kXxh3, 0) & 0xffffffffULL;
  return lo | (lo << 32);
}

// Fibonacci (multiplicative) hashing of the first 8 key bytes: for sequential
// keys it spreads keys over blocks far more evenly than chance, so the measured
// rate is BELOW the model's: the interval is two-sided and must catch that too.
// The first 8 key bytes, little-endian (a uint64 key's value).
uint64_t First8Bytes(std::string_view key) {
  uint64_t x = 0;
  for (size_t i = 0; i < key.size() && i < 8; ++i) x |= static_cast<uint64_t>(static_cast<unsigned char>(key[i])) << (8 * i);
  return x;
}
uint64_t MultiplicativeHash(std::string_view key) {
  return First8Bytes(key) * 0x9e3779b97f4a7c15ULL;  // floor(2^64 / phi), odd
}

// A broken hash on sequential keys: still no false negatives, but the rate
// leaves the model's (two-sided) interval at the layout's first grid point.
void ExpectFailsOnSequentialKeys(std::span<const Layout> layouts, uint64_t (*hash)(std::string_view)) {
  for (Layout l : layouts) {
    Point p = Grid(l)[0];
    p.stream = KeyStream::kSequentialU64;
    SCOPED_TRACE(Describe(p));
    const Measurement bad = Measure(p, hash);
    EXPECT_EQ(bad.false_negatives, 0u);
    EXPECT_FALSE(bad.check.pass) << "measured " << bad.check.rate() << ", model " << bad.check.predicted;
  }
}

// HalfHash bites where a probe takes the top bits of lo32 directly (probe 0 of
// blocked512 and register64 is lo32 >> 23 resp. >> 26, nearly constant across a
// block whose keys share the top bits of lo32): blocked512 k = 1 at 8 bits/key
// (1,562 blocks: the one probe is fixed by the block; measured 8.5x the model)
// and register64 k = 2 at 4 bits/key (1.46-1.48x). At blocked512's k = 3, 4
// bits/key it moved the rate by only 4-8%, by key family: no control. The zone
// layouts multiply lo32 by a salt first, which re-spreads a narrow lo32 range:
// at these sizes their rates moved by only ~1.5%, inside the interval, so they
// are left to the multiplicative control below.
TEST(FprNegativeControl, HalfHashFails) {
  for (const Point& p : {Point{Layout::kBlocked512, 8.0, 1, 100'000, KeyStream::kRandomU64, 0, 0},
                         Point{Layout::kRegister64, 4.0, 2, 100'000, KeyStream::kSequentialU64, 0, 0}}) {
    SCOPED_TRACE(Describe(p));
    const Measurement good = Measure(p);
    const Measurement bad = Measure(p, HalfHash);
    EXPECT_TRUE(good.pass());
    EXPECT_EQ(bad.false_negatives, 0u);  // still a Bloom filter: no false negatives
    EXPECT_FALSE(bad.check.pass) << "measured " << bad.check.rate() << ", model " << bad.check.predicted;
    EXPECT_GT(bad.check.rate(), 1.3 * bad.check.predicted);
  }
}

TEST(FprNegativeControl, MultiplicativeHashOnSequentialKeysFails) {
  ExpectFailsOnSequentialKeys(kAllLayouts, MultiplicativeHash);
}

// ---- The fast integer hashes (HashKind::kMulx, kAes, kFoldMul) meet the model too ---

template <HashKind kKind>
uint64_t KindHash(std::string_view key) {
  return HashBytes(key, kKind, 0);
}

// Every grid point of every layout, sequential and random uint64 keys (URL
// keys hash with XXH3 under mulx, aes and foldmul): the measured rate is
// inside the model's interval. One fold is not enough (the control below): why
// mulx folds twice and foldmul multiplies the fold once more; nor are two AES
// rounds (the strided control): why aes takes three.
TEST(FprHashes, FastIntegerHashesMatchModelOnEveryGridPoint) {
  for (auto [name, hash] :
       {std::pair{"mulx", &KindHash<HashKind::kMulx>}, std::pair{"aes", &KindHash<HashKind::kAes>},
        std::pair{"foldmul", &KindHash<HashKind::kFoldMul>}}) {
    for (Layout l : kAllLayouts) {
      for (Point p : Grid(l)) {
        if (p.stream == KeyStream::kUrls) continue;
        for (KeyStream st : {KeyStream::kSequentialU64, KeyStream::kRandomU64}) {
          p.stream = st;
          SCOPED_TRACE(Describe(p) + " " + name);
          const Measurement m = Measure(p, hash);
          EXPECT_EQ(m.false_negatives, 0u);
          EXPECT_TRUE(m.check.pass) << "measured " << m.check.rate() << ", model " << m.check.predicted;
        }
      }
    }
  }
}

// One folded product (Boost.Bloom's mulx64 mixing of integer keys): on
// sequential keys it spreads them more evenly than chance, so rates fall below
// the model (measured 0 against 11.7% for blocked512 k = 1 at 8 bits/key).
uint64_t SingleFoldHash(std::string_view key) {
  return kernels::MulxFold(First8Bytes(key), kernels::kMulxMultiplier);  // mulx's first fold alone
}
TEST(FprNegativeControl, SingleFoldOnSequentialKeysFails) {
  const Layout layouts[] = {Layout::kBlocked512, Layout::kSplit256, Layout::kRegister64};
  ExpectFailsOnSequentialKeys(layouts, SingleFoldHash);
}

// ---- Strided keys: the patterns where one multiply leaves the model -----------------
// The sequential stream's keys x, stored as x << 20, 1000 x or x (2^32 + 1)
// (spaced ids, ids in fixed-point, a 32-bit id copied into both halves).
template <HashKind kKind, uint64_t (*kStride)(uint64_t)>
uint64_t KindOfStrided(std::string_view key) {
  return HashU64(kStride(First8Bytes(key)), kKind, 0);
}
template <uint64_t (*kStride)(uint64_t)>
uint64_t SingleFoldOfStrided(std::string_view key) {
  return kernels::MulxFold(kStride(First8Bytes(key)), kernels::kMulxMultiplier);
}
// The "aes" kind with two rounds instead of three (kernels/common.h).
template <uint64_t (*kStride)(uint64_t)>
uint64_t TwoAesRoundsOfStrided(std::string_view key) {
  return kernels::AesRoundsU64(kStride(First8Bytes(key)), 0, 2);
}
uint64_t Shift12(uint64_t x) { return x << 12; }
uint64_t Shift20(uint64_t x) { return x << 20; }
uint64_t Shift23(uint64_t x) { return x << 23; }
uint64_t Times1000(uint64_t x) { return x * 1000; }
uint64_t BothHalves(uint64_t x) { return x * 0x100000001ULL; }

// Each layout at 10 bits/key (blocked512 k = 1 at 8 too), sequential keys.
std::vector<Point> StridedPoints() {
  std::vector<Point> points;
  for (auto [l, bpk, k] : {std::tuple{Layout::kBlocked512, 8.0, 1u}, std::tuple{Layout::kBlocked512, 10.0, 7u},
                           std::tuple{Layout::kSplit256, 10.0, 8u}, std::tuple{Layout::kSectorized512, 10.0, 8u},
                           std::tuple{Layout::kSplit512, 10.0, 8u}, std::tuple{Layout::kRegister64, 10.0, 6u},
                           std::tuple{Layout::kClassic, 10.0, 7u}}) {
    // One filter each: a stride of 2^24 or more shifts the key family (bits 40
    // and up) out of the key, so replicas would be copies of one filter.
    points.push_back(Point{l, bpk, k, 100'000, KeyStream::kSequentialU64, 0, 0, 0, 1});
  }
  return points;
}

// mulx (two folds) and aes (three rounds) meet the model on strided keys at
// every layout, aes also on the strides where two rounds leave it.
template <HashKind kKind>
void ExpectMatchesModelOnStridedKeys() {
  for (const Point& p : StridedPoints()) {
    for (auto [name, hash] : {std::pair{"x << 12", &KindOfStrided<kKind, Shift12>},
                              std::pair{"x << 20", &KindOfStrided<kKind, Shift20>},
                              std::pair{"x << 23", &KindOfStrided<kKind, Shift23>},
                              std::pair{"1000 x", &KindOfStrided<kKind, Times1000>},
                              std::pair{"x (2^32 + 1)", &KindOfStrided<kKind, BothHalves>}}) {
      SCOPED_TRACE(Describe(p) + " " + std::string(HashName(kKind)) + " keys " + name);
      const Measurement m = Measure(p, hash);
      EXPECT_EQ(m.false_negatives, 0u);
      EXPECT_TRUE(m.check.pass) << "measured " << m.check.rate() << ", model " << m.check.predicted;
    }
  }
}
TEST(FprHashes, MulxMatchesModelOnStridedKeys) { ExpectMatchesModelOnStridedKeys<HashKind::kMulx>(); }
TEST(FprHashes, AesMatchesModelOnStridedKeys) { ExpectMatchesModelOnStridedKeys<HashKind::kAes>(); }
TEST(FprHashes, FoldMulMatchesModelOnStridedKeys) { ExpectMatchesModelOnStridedKeys<HashKind::kFoldMul>(); }

// Two AES rounds leave the model on keys x << 20 (measured 19% against 1.27%
// for split256 k = 8 at 10 bits/key): AES's columns mix only four bytes a
// round, and keys differing in two or three bytes reach every output byte
// only after the second round's MixColumns, through few S-box layers.
// A hash that leaves the model above it at point p, by more than `factor`
// (with no false negative: the filter still holds every key).
void ExpectAboveModel(const Point& p, uint64_t (*hash)(std::string_view), double factor) {
  const Measurement bad = Measure(p, hash);
  EXPECT_EQ(bad.false_negatives, 0u);
  EXPECT_FALSE(bad.check.pass);
  EXPECT_GT(bad.check.rate(), factor * bad.check.predicted) << "measured " << bad.check.rate();
}
TEST(FprNegativeControl, TwoAesRoundsOnStridedKeysFail) {
  ExpectAboveModel(Point{Layout::kSplit256, 10.0, 8, 100'000, KeyStream::kSequentialU64, 0, 0},
                   &TwoAesRoundsOfStrided<Shift20>, 2);
}

// One fold leaves it on them, above the model too (measured 3.6% against 1.9%
// for register64 k = 6 on keys x << 20): not only sequential keys spread more
// evenly than chance, so its rate is no bound either way.
TEST(FprNegativeControl, SingleFoldOnStridedKeysFails) {
  ExpectAboveModel(Point{Layout::kRegister64, 10.0, 6, 100'000, KeyStream::kSequentialU64, 0, 0},
                   &SingleFoldOfStrided<Shift20>, 1.5);
}

// ---- Streamed measurement (no exact set; what `verify --streamed` runs) ------------

// Every layout at 2 x 10^6 streamed keys, 10 bits/key, the best k: the measured
// rate is inside the model's 99.99% interval, which is within +-5% of the rate
// with the default probe count, and the sampled inserted keys are all found.
TEST(FprStreamed, EveryLayoutMatchesModel) {
  constexpr uint64_t kKeys = 2'000'000;
  for (Layout l : kAllLayouts) {
    SCOPED_TRACE(std::string(LayoutName(l)));
    const uint64_t blocks = kKeys * 10 / LayoutBlockBits(l);
    const FilterParams best = SolveForSize(l, blocks, kKeys);
    Filter f = Filter::WithBlocks(l, blocks, best.k);
    StreamedSpec spec;
    spec.keys = kKeys;
    spec.probes = ProbesForRelativeHalfWidth(best.fpr, kRelativeHalfWidth, kConfidence);
    spec.family = 3;
    const StreamedMeasurement m = MeasureFprStreamed(f, spec);
    EXPECT_EQ(m.keys, kKeys);
    EXPECT_EQ(f.inserted(), kKeys);
    EXPECT_EQ(m.negatives_checked, uint64_t{1} << 20);
    EXPECT_EQ(m.false_negatives, 0u);
    EXPECT_EQ(m.check.trials, spec.probes);
    EXPECT_DOUBLE_EQ(m.check.predicted, best.fpr);
    const double half = static_cast<double>(m.check.accept.hi - m.check.accept.lo) / 2.0 / static_cast<double>(spec.probes);
    EXPECT_LE(half, best.fpr * kRelativeHalfWidth * 1.02);
    EXPECT_TRUE(m.pass()) << "measured " << m.check.rate() << ", model " << m.check.predicted << ", z = " << m.z;
    EXPECT_LT(std::abs(m.z), 3.9);  // 99.99% two-sided, in sd
  }
}

// The probes are absent by construction: a filter holding only the keys has
// no hits among them when it is far too large to collide (k = 16, 2^20 blocks
// for 1,000 keys: a rate of ~1e-28), and n = keys exactly (no duplicates).
TEST(FprStreamed, ProbesAreAbsentAndFieldsChecked) {
  Filter f = Filter::WithBlocks(Layout::kBlocked512, uint64_t{1} << 20, 16);
  StreamedSpec spec;
  spec.keys = 1000;
  spec.probes = 1'000'000;
  const StreamedMeasurement m = MeasureFprStreamed(f, spec);
  EXPECT_EQ(m.check.hits, 0u);
  EXPECT_EQ(m.negatives_checked, 1000u);
  EXPECT_EQ(m.false_negatives, 0u);
  EXPECT_LE(f.PopCount(), 16 * 1000u);
  spec.keys = 0;
  EXPECT_THROW(MeasureFprStreamed(f, spec), std::invalid_argument);
  spec.keys = 10;
  spec.probes = 0;
  EXPECT_THROW(MeasureFprStreamed(f, spec), std::invalid_argument);
  spec.probes = (uint64_t{1} << 40) - 10;
  EXPECT_THROW(MeasureFprStreamed(f, spec), std::invalid_argument);
  spec.probes = 10;
  spec.family = uint64_t{1} << 24;
  EXPECT_THROW(MeasureFprStreamed(f, spec), std::invalid_argument);
}

// ---- Solver round trips: the filter built for (n, p) measures at or below p -----

TEST(FprSolver, ForKeysMeetsTarget) {
  for (Layout l : kAllLayouts) {
    for (double target : {0.1, 0.01}) {
      constexpr uint64_t kKeys = 100'000;
      Filter f = Filter::ForKeys(l, kKeys, target);
      SCOPED_TRACE(std::string(LayoutName(l)) + " target " + std::to_string(target));
      MeasureSpec spec;
      spec.stream = KeyStream::kRandomU64;
      spec.family = 7;
      spec.inserts = kKeys;
      spec.probes = ProbesForRelativeHalfWidth(target, kRelativeHalfWidth, kConfidence);
      spec.confidence = kConfidence;
      const Measurement m = MeasureFpr(f, spec);
      EXPECT_EQ(m.false_negatives, 0u);
      EXPECT_LE(m.check.predicted, target);
      // At or below the target within the interval: the count does not exceed
      // the upper acceptance bound of a rate-`target` filter.
      EXPECT_LE(m.check.hits, BinomialAcceptance(m.check.trials, target, kConfidence).hi)
          << "measured " << m.check.rate();
      EXPECT_TRUE(m.check.pass) << "measured " << m.check.rate() << ", model " << m.check.predicted;
    }
  }
}

}  // namespace
}  // namespace blockbloom
