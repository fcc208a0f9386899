// SPDX-License-Identifier: Apache-2.0
// Fold (halving) and the distinct-key estimator of fold.h.
#include "blockbloom/fold.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/layout.h"

namespace blockbloom {
namespace {

uint32_t MidK(Layout layout) {
  switch (layout) {
    case Layout::kBlocked512: return 6;
    case Layout::kSplit256: return 8;
    case Layout::kSectorized512: return 8;
    case Layout::kRegister64: return 4;
    case Layout::kClassic: return 7;
    case Layout::kSplit512: return 8;
  }
  return 1;
}

std::vector<uint64_t> Keys(size_t n, uint64_t salt) {
  std::vector<uint64_t> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = (i + salt) * 0xD1B54A32D192ED03ULL;
  return k;
}

class FoldLayout : public ::testing::TestWithParam<Layout> {};

// The folded filter is byte for byte the filter built directly at half the
// size (see the derivation in fold.h), twice over, with no false negatives.
TEST_P(FoldLayout, EqualsTheFilterBuiltAtHalfTheSize) {
  const Layout layout = GetParam();
  // Classic: 4 * 6001 bits, so the second fold ends mid-word and mid-byte.
  const uint64_t blocks = layout == Layout::kClassic ? 4 * 6001 : 4 * 37;
  const auto keys = Keys(3000, 11);
  Filter f = Filter::WithBlocks(layout, blocks, MidK(layout), HashKind::kXxh3, 42);
  f.InsertBatch(keys);
  const Filter once = Fold(f);
  const Filter twice = Fold(once);
  for (uint64_t div : {2, 4}) {
    Filter direct = Filter::WithBlocks(layout, blocks / div, MidK(layout), HashKind::kXxh3, 42);
    direct.InsertBatch(keys);
    const Filter& folded = div == 2 ? once : twice;
    EXPECT_EQ(folded.num_blocks(), blocks / div);
    EXPECT_TRUE(folded == direct) << LayoutName(layout) << " folded to 1/" << div;
    EXPECT_EQ(folded.inserted(), f.inserted());
    std::vector<uint8_t> out(keys.size());
    EXPECT_EQ(folded.MayContainBatch(keys, out), keys.size()) << "false negatives after folding";
  }
  // The padding invariant survives: bits past bit_count() are zero.
  EXPECT_EQ(twice.PopCount(), [&] {
    uint64_t c = 0;
    for (uint64_t i = 0; i < twice.bit_count(); ++i) c += (twice.data()[i / 8] >> (i % 8)) & 1;
    return c;
  }());
}

TEST_P(FoldLayout, RefusesAnOddBlockCount) {
  const Layout layout = GetParam();
  const Filter f = Filter::WithBlocks(layout, 7, MidK(layout));
  EXPECT_FALSE(CanFold(f));
  try {
    Fold(f);
    FAIL() << "folded an odd block count";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("= 7 is odd"), std::string::npos) << e.what();
  }
}

// The estimate from the fill recovers the number of distinct keys. Tolerance:
// with m ~ 10 bits per key and fill p ~ 0.4..0.6, independent bits would give
// sd(X) = sqrt(m p (1 - p)) ~ 0.5 sqrt(m) and, by the delta method,
// sd(n_hat) / n ~ sd(X) / (m (1 - p) |ln(1 - p)|) ~ 0.25% at n = 20000; block
// load variation at most doubles that. 2% is over 4 of those doubled sds.
TEST_P(FoldLayout, EstimateFromFillRecoversDistinctKeys) {
  const Layout layout = GetParam();
  constexpr uint64_t kN = 20000;
  const uint64_t bits = 10 * kN;
  Filter f = Filter::WithBits(layout, bits, MidK(layout));
  const auto keys = Keys(kN, 99);
  f.InsertBatch(keys);
  f.InsertBatch(std::span(keys).first(5000));  // duplicates change nothing
  const double est = EstimateDistinctKeys(layout, f.num_blocks(), f.k(), f.PopCount());
  EXPECT_NEAR(est, static_cast<double>(kN), 0.02 * kN) << LayoutName(layout) << " fill " << f.FillRatio();
  EXPECT_EQ(EstimateDistinctKeys(layout, f.num_blocks(), f.k(), 0), 0.0);
  EXPECT_TRUE(std::isinf(EstimateDistinctKeys(layout, f.num_blocks(), f.k(), f.bit_count())));
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, FoldLayout, ::testing::ValuesIn(kAllLayouts),
                         [](const auto& p) { return std::string(LayoutName(p.param)); });

}  // namespace
}  // namespace blockbloom
