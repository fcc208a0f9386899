// SPDX-License-Identifier: Apache-2.0
// Every layout is complete: from the traits table (layout.h), each layout has
// consistent facts, a scalar reference probe, a per-target probe on every
// compiled target, and a formula in the model. (Its golden entry is checked by
// GoldenSchema in tests/filter_test.cc.) A layout added to the enum and the
// table but forgotten in kernels/layouts-inl.h or the model fails here.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <string>
#include <vector>

#include "blockbloom/layout.h"
#include "blockbloom/model.h"
#include "kernels/common.h"
#include "kernels/kernels.h"
#include "kernels/reference.h"

namespace blockbloom {
namespace {

class EveryLayout : public ::testing::TestWithParam<Layout> {};

// A zeroed, 64-byte aligned payload of a few blocks.
struct Payload {
  std::vector<uint64_t> words;
  kernels::FilterRef ref;
  Payload(Layout l, uint64_t blocks, uint32_t k) : words(LayoutPayloadBytes(l, blocks) / 8 + 8, 0) {
    auto* p = reinterpret_cast<uint8_t*>(words.data());
    p += (64 - reinterpret_cast<uintptr_t>(p) % 64) % 64;
    ref = {p, blocks, k, l};
  }
  std::vector<uint8_t> Bytes() const {
    return std::vector<uint8_t>(ref.bits, ref.bits + LayoutPayloadBytes(ref.layout, ref.num_blocks));
  }
  uint64_t PopCount() const {
    uint64_t c = 0;
    for (uint64_t w : words) c += static_cast<uint64_t>(std::popcount(w));
    return c;
  }
};

uint64_t SomeBlocks(Layout l) { return Traits(l).unit == SizeUnit::kBits ? 4099 : 37; }

TEST_P(EveryLayout, FactsAreConsistent) {
  const Layout l = GetParam();
  const LayoutTraits& t = Traits(l);
  EXPECT_EQ(t.layout, l);
  EXPECT_EQ(ParseLayout(t.name), l);
  EXPECT_EQ(LayoutFromName(t.name), l);
  EXPECT_GE(t.min_k, 1u);
  EXPECT_LE(t.min_k, t.max_k);
  EXPECT_TRUE(LayoutAcceptsK(l, t.min_k));
  EXPECT_TRUE(LayoutAcceptsK(l, t.max_k));
  EXPECT_FALSE(LayoutAcceptsK(l, t.max_k + 1));
  EXPECT_EQ(512 % t.block_bits, 0u) << "a block must divide a cache line";
  EXPECT_GE(t.max_blocks, 1u);
  EXPECT_FALSE(t.k_text.empty());
  EXPECT_NE(LayoutNames().find(t.name), std::string::npos);
}

// The reference probe: a key sets between 1 and k bits, all in one block
// (one line for the blocked layouts), and is then found; the empty payload
// finds nothing.
TEST_P(EveryLayout, HasAReferenceProbe) {
  const Layout l = GetParam();
  for (uint32_t k = LayoutMinK(l); k <= LayoutMaxK(l); ++k) {
    if (!LayoutAcceptsK(l, k)) continue;
    Payload p(l, SomeBlocks(l), k);
    for (uint64_t h : {uint64_t{0x0123456789abcdef}, uint64_t{0xfedcba9876543210}, uint64_t{42}}) {
      EXPECT_FALSE(kernels::reference::QueryHash(p.ref, h));
    }
    const uint64_t h = 0x9e3779b97f4a7c15ULL;
    kernels::reference::InsertHash(p.ref, h);
    EXPECT_TRUE(kernels::reference::QueryHash(p.ref, h)) << LayoutName(l) << " k = " << k;
    EXPECT_TRUE(kernels::reference::QueryHashAtomic(p.ref, h));
    EXPECT_GE(p.PopCount(), 1u);
    EXPECT_LE(p.PopCount(), k);
  }
}

// The per-target probe: every compiled target this CPU runs writes the
// reference's bytes and finds what it inserted.
TEST_P(EveryLayout, HasAPerTargetProbeOnEveryTarget) {
  const Layout l = GetParam();
  const uint32_t k = LayoutMaxK(l);
  std::vector<uint64_t> hashes;
  for (uint64_t i = 0; i < 300; ++i) hashes.push_back(kernels::reference::HashU64(i, 7));
  Payload want(l, SomeBlocks(l), k);
  for (uint64_t h : hashes) kernels::reference::InsertHash(want.ref, h);
  int ran = 0;
  for (const kernels::Ops* ops : kernels::CompiledTargets()) {
    if (!kernels::Supported(*ops)) continue;
    Payload got(l, SomeBlocks(l), k);
    ops->insert_hashes(got.ref, hashes.data(), hashes.size());
    EXPECT_EQ(got.Bytes(), want.Bytes()) << LayoutName(l) << " on " << ops->name;
    std::vector<uint8_t> out(hashes.size());
    EXPECT_EQ(ops->query_hashes(got.ref, hashes.data(), hashes.size(), out.data()), hashes.size())
        << LayoutName(l) << " on " << ops->name;
    ++ran;
  }
  EXPECT_GT(ran, 0);
}

// The model's formula: a rate in (0, 1) that grows with the keys.
TEST_P(EveryLayout, HasAModelFormula) {
  const Layout l = GetParam();
  const uint32_t k = LayoutMinK(l) == LayoutMaxK(l) ? LayoutMinK(l) : (LayoutAcceptsK(l, 4) ? 4 : LayoutMinK(l));
  const uint64_t blocks = Traits(l).unit == SizeUnit::kBits ? 100000 : 100000 / LayoutBlockBits(l);
  const double lo = PredictFpr(l, blocks, k, 5000);
  const double hi = PredictFpr(l, blocks, k, 10000);
  EXPECT_TRUE(std::isfinite(lo) && lo > 0 && lo < 1) << lo;
  EXPECT_GT(hi, lo);
}

INSTANTIATE_TEST_SUITE_P(Layouts, EveryLayout, ::testing::ValuesIn(kAllLayouts),
                         [](const auto& p) { return std::string(LayoutName(p.param)); });

TEST(LayoutNames, UnknownNamesAreRefusedNamingEveryLayout) {
  try {
    LayoutFromName("blocked256", "--layout");
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "blockbloom: --layout = 'blocked256' is unknown: expected one of blocked512, split256, "
                 "sectorized512, register64, classic, split512");
  }
  EXPECT_EQ(LayoutName(static_cast<Layout>(200)), "unknown");
}

}  // namespace
}  // namespace blockbloom
