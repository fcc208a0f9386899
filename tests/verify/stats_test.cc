// SPDX-License-Identifier: Apache-2.0
// blockbloom::verify's building blocks: the binomial statistics (stats.h)
// against direct sums and known quantiles, and the exact-set reference
// (exact_set.h) against the truth. (Measure and MeasureStreamed: fpr_test.)
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "blockbloom/verify/exact_set.h"
#include "blockbloom/verify/stats.h"

namespace blockbloom {
namespace {

// ---- Statistics ---------------------------------------------------------------------

double DirectBinomialCdf(uint64_t x, uint64_t n, double p) {
  double sum = 0;
  for (uint64_t i = 0; i <= x; ++i)
    sum += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
                    (n - i) * std::log1p(-p));
  return sum;
}

TEST(Stats, BinomialCdfMatchesDirectSum) {
  for (uint64_t n : {10u, 100u, 5000u}) {
    for (double p : {0.001, 0.05, 0.5}) {
      for (uint64_t x : {0ul, n / 20, n / 2, n - 1}) {
        const double want = DirectBinomialCdf(x, n, p);
        EXPECT_NEAR(BinomialCdf(x, n, p), want, 1e-10 + want * 1e-9) << n << " " << p << " " << x;
      }
    }
  }
  EXPECT_EQ(BinomialCdf(10, 10, 0.3), 1.0);
}

TEST(Stats, NormalQuantile) {
  EXPECT_NEAR(NormalQuantile(0.975), 1.959964, 1e-6);
  EXPECT_NEAR(NormalQuantile(1 - 0.00005), 3.890592, 1e-6);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-12);
}

// The acceptance interval's tails each hold at most alpha/2, and widening it
// by one count on either side would not.
TEST(Stats, AcceptanceIntervalIsExact) {
  constexpr double kConf = 0.9999;
  for (auto [n, p] : std::vector<std::pair<uint64_t, double>>{{1000, 0.01}, {100000, 0.003}, {2'000'000, 0.02}}) {
    const CountInterval c = BinomialAcceptance(n, p, kConf);
    EXPECT_LE(c.lo == 0 ? 0.0 : BinomialCdf(c.lo - 1, n, p), 0.00005);
    EXPECT_GT(BinomialCdf(c.lo, n, p), 0.00005);
    EXPECT_LE(1 - BinomialCdf(c.hi, n, p), 0.00005 + 1e-12);
    EXPECT_GT(1 - BinomialCdf(c.hi - 1, n, p), 0.00005);
    // Near the normal approximation for large n.
    const double sd = std::sqrt(n * p * (1 - p));
    EXPECT_NEAR(static_cast<double>(c.hi) - n * p, 3.89 * sd, 0.15 * sd + 2);
  }
}

TEST(Stats, ClopperPearson) {
  // x = 0: the upper bound is 1 - (alpha/2)^(1/n).
  const RateInterval z = ClopperPearson(0, 1000, 0.95);
  EXPECT_EQ(z.lo, 0.0);
  EXPECT_NEAR(z.hi, 1 - std::pow(0.025, 1.0 / 1000), 1e-9);
  const RateInterval r = ClopperPearson(50, 1000, 0.95);
  EXPECT_LT(r.lo, 0.05);
  EXPECT_GT(r.hi, 0.05);
  // Tail identities at the bounds: P(X >= 50 | lo) = P(X <= 50 | hi) = 2.5%.
  EXPECT_NEAR(1 - BinomialCdf(49, 1000, r.lo), 0.025, 1e-6);
  EXPECT_NEAR(BinomialCdf(50, 1000, r.hi), 0.025, 1e-6);
}

TEST(Stats, ProbesForHalfWidth) {
  // (3.8906 / 0.05)^2 (1 - p) / p at p = 1%.
  EXPECT_NEAR(static_cast<double>(ProbesForRelativeHalfWidth(0.01, 0.05, 0.9999)), 599'460, 100);
  EXPECT_THROW(ProbesForRelativeHalfWidth(0.0, 0.05, 0.9999), std::invalid_argument);
  EXPECT_THROW(BinomialAcceptance(10, 0.5, 1.0), std::invalid_argument);
}

// ---- Exact set ------------------------------------------------------------------------

TEST(ExactSetTest, CountsDistinctAndAnswersTheTruth) {
  ExactSet s;
  for (uint64_t i = 0; i < 100'000; ++i) EXPECT_TRUE(s.Insert(i * 7));
  for (uint64_t i = 0; i < 100'000; i += 3) EXPECT_FALSE(s.Insert(i * 7));
  EXPECT_EQ(s.size(), 100'000u);
  for (uint64_t i = 0; i < 700'000; ++i) EXPECT_EQ(s.Contains(i), i % 7 == 0) << i;
}

TEST(ExactSetTest, StringsAndU64ShareTheKeySpace) {
  ExactSet s;
  const uint64_t x = 0x0807060504030201ULL;
  EXPECT_TRUE(s.Insert(x));
  EXPECT_TRUE(s.Contains(std::string_view("\x01\x02\x03\x04\x05\x06\x07\x08", 8)));
  EXPECT_FALSE(s.Insert(std::string_view("\x01\x02\x03\x04\x05\x06\x07\x08", 8)));
  // Empty keys, prefixes and keys with NUL bytes are distinct keys.
  EXPECT_TRUE(s.Insert(std::string_view()));
  EXPECT_TRUE(s.Insert(std::string_view("\x01\x02\x03\x04\x05\x06\x07", 7)));
  EXPECT_TRUE(s.Insert(std::string_view("a\0b", 3)));
  EXPECT_FALSE(s.Contains(std::string_view("a\0c", 3)));
  EXPECT_TRUE(s.Contains(std::string_view()));
  EXPECT_EQ(s.size(), 4u);
  // URLs sharing a long prefix.
  ExactSet urls;
  for (int i = 0; i < 20'000; ++i) EXPECT_TRUE(urls.Insert("https://www.example.com/catalog/products/item-" + std::to_string(i)));
  EXPECT_FALSE(urls.Contains(std::string_view("https://www.example.com/catalog/products/item-20000")));
  EXPECT_TRUE(urls.Contains(std::string_view("https://www.example.com/catalog/products/item-19999")));
  s.Clear();
  EXPECT_EQ(s.size(), 0u);
  EXPECT_FALSE(s.Contains(x));
}

}  // namespace
}  // namespace blockbloom
