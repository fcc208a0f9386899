// SPDX-License-Identifier: Apache-2.0
// Filter::IntersectWith and `blockbloom intersect`: the result's bytes are the
// AND of the inputs' bytes on every target and layout; every key inserted into
// both is found; the result answers "maybe" only where both inputs do, so its
// measured rate is at most either input's; it holds every bit of the filter
// built from the keys in both (and is not that filter); incompatible filters
// are refused with the reason and left unchanged.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/fold.h"
#include "blockbloom/format.h"
#include "blockbloom/targets.h"
#include "tests/target_params.h"
#include "tests/cli_fixture.h"

namespace blockbloom {
namespace {

using testing::OnEveryTarget;
using testing::SupportedTargets;
using testing::TargetName;

std::vector<uint64_t> Keys(size_t n, uint64_t seed) { return testing::RandomKeys(n, seed); }

struct Case {
  Layout layout;
  uint32_t k;
};
const Case kCases[] = {{Layout::kBlocked512, 6}, {Layout::kSplit256, 8}, {Layout::kRegister64, 4},
                       {Layout::kSectorized512, 8}, {Layout::kClassic, 7}};

// Three key sets: only in A, only in B, in both.
struct Sets {
  std::vector<uint64_t> a_only = Keys(4000, 1), b_only = Keys(4000, 2), both = Keys(2000, 3);
};

Filter Build(const Case& c, const std::vector<uint64_t>& x, const std::vector<uint64_t>& y) {
  Filter f = Filter::WithBits(c.layout, 96 * 1024, c.k, HashKind::kXxh3, 9);
  f.InsertBatch(x);
  f.InsertBatch(y);
  return f;
}

TEST_P(OnEveryTarget, BytesAreTheAndAndEveryKeyOfBothIsFound) {
  const Sets s;
  for (const Case& c : kCases) {
    const std::string what = std::string(LayoutName(c.layout)) + " on " + GetParam();
    const Filter a = Build(c, s.a_only, s.both);
    const Filter b = Build(c, s.b_only, s.both);
    Filter ab = a;
    ab.IntersectWith(b);
    std::vector<uint8_t> want(a.byte_size());
    for (size_t i = 0; i < want.size(); ++i) want[i] = a.data()[i] & b.data()[i];
    ASSERT_TRUE(std::equal(want.begin(), want.end(), ab.data())) << what;
    EXPECT_EQ(ab.inserted(), std::min(a.inserted(), b.inserted())) << what;
    std::vector<uint8_t> out(s.both.size());
    EXPECT_EQ(ab.MayContainBatch(s.both, out), s.both.size()) << what << ": a key of both was lost";
    // Intersection commutes, and with itself changes nothing.
    Filter ba = b;
    ba.IntersectWith(a);
    EXPECT_TRUE(ba == ab) << what;
    Filter aa = a;
    aa.IntersectWith(aa);
    EXPECT_TRUE(aa == a) << what;
  }
}

INSTANTIATE_TEST_SUITE_P(Intersect, OnEveryTarget, ::testing::ValuesIn(SupportedTargets()), TargetName);

// What the header promises and what it does not: the rate is at most either
// input's (each absent key the result answers "maybe" both inputs answer
// "maybe"), the result holds every bit of the filter of the keys in both, and
// holds more (the bits A-only and B-only keys share), so it is not that filter.
TEST(IntersectWith, RateAtMostEitherInputsAndASupersetOfTheFilterOfBoth) {
  const Sets s;
  const std::vector<uint64_t> absent = Keys(200'000, 4);
  for (const Case& c : kCases) {
    const std::string what(LayoutName(c.layout));
    const Filter a = Build(c, s.a_only, s.both);
    const Filter b = Build(c, s.b_only, s.both);
    Filter ab = a;
    ab.IntersectWith(b);
    std::vector<uint8_t> ra(absent.size()), rb(absent.size()), rab(absent.size());
    const size_t fa = a.MayContainBatch(absent, ra);
    const size_t fb = b.MayContainBatch(absent, rb);
    const size_t fab = ab.MayContainBatch(absent, rab);
    for (size_t i = 0; i < absent.size(); ++i) ASSERT_LE(rab[i], ra[i] & rb[i]) << what << " probe " << i;
    EXPECT_LE(fab, fa) << what;
    EXPECT_LE(fab, fb) << what;
    EXPECT_LT(fab, std::min(fa, fb)) << what << ": measured " << fab << " vs " << fa << ", " << fb;

    Filter only_both = Filter::WithBits(c.layout, 96 * 1024, c.k, HashKind::kXxh3, 9);
    only_both.InsertBatch(s.both);
    for (uint64_t i = 0; i < ab.byte_size(); ++i)
      ASSERT_EQ(only_both.data()[i] & ~ab.data()[i], 0) << what << ": a bit of the keys in both was cleared";
    EXPECT_GT(ab.PopCount(), only_both.PopCount()) << what << ": expected colliding bits at this fill";
    // The fill-based estimate over-counts the keys in both; inclusion-exclusion does not (much).
    const auto est = [](const FilterView& f) {
      return EstimateDistinctKeys(f.layout(), f.num_blocks(), f.k(), f.PopCount());
    };
    Filter a_or_b = a;
    a_or_b.UnionWith(b);
    const double direct = est(ab);
    const double incl_excl = est(a) + est(b) - est(a_or_b);
    EXPECT_GT(direct, incl_excl) << what;
    EXPECT_NEAR(incl_excl, static_cast<double>(s.both.size()), 0.15 * static_cast<double>(s.both.size())) << what;
  }
}

TEST(IntersectWith, RefusesIncompatibleFiltersAndChangesNothing) {
  Filter a = Filter::WithBlocks(Layout::kBlocked512, 16, 5, HashKind::kXxh3, 0);
  a.Insert(uint64_t{42});
  const Filter before = a;
  const struct {
    Filter other;
    const char* why;
  } cases[] = {
      {Filter::WithBlocks(Layout::kBlocked512, 16, 6), "cannot intersect filters: k differs: 5 vs 6"},
      {Filter::WithBlocks(Layout::kBlocked512, 32, 5), "number of blocks differs: 16 vs 32"},
      {Filter::WithBlocks(Layout::kRegister64, 16, 5), "layout differs: blocked512 vs register64"},
      {Filter::WithBlocks(Layout::kBlocked512, 16, 5, HashKind::kXxh64), "hash differs: xxh3 vs xxh64"},
      {Filter::WithBlocks(Layout::kBlocked512, 16, 5, HashKind::kXxh3, 7), "seed differs: 0 vs 7"},
  };
  for (const auto& c : cases) {
    try {
      a.IntersectWith(c.other);
      ADD_FAILURE() << "accepted: expected " << c.why;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(c.why), std::string::npos) << e.what();
    }
    EXPECT_TRUE(a == before);
  }
  Filter moved = std::move(a);
  EXPECT_THROW(a.IntersectWith(before), std::logic_error);  // NOLINT(bugprone-use-after-move): the point
}

#ifdef BLOCKBLOOM_CLI
class IntersectCli : public testing::TempDirTest {
 protected:
  IntersectCli() : TempDirTest("bbintersect") {}
  testing::CliResult Run(const std::string& args) const {
    const std::string cmd =
        "cd '" + dir_.string() + "' && '" + BLOCKBLOOM_CLI + "' " + args + " </dev/null >.out 2>.err";
    const int raw = std::system(cmd.c_str());
    return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Read(".out"), Read(".err")};
  }
};

TEST_F(IntersectCli, WritesTheAndAndRefusesMismatches) {
  Write("a.txt", "k1\nk2\na1\na2\n");
  Write("b.txt", "k1\nk2\nb1\n");
  ASSERT_EQ(Run("build --layout split256 --bytes 2048 --k 8 --keys a.txt -o a.bbf").status, 0);
  ASSERT_EQ(Run("build --layout split256 --bytes 2048 --k 8 --keys b.txt -o b.bbf").status, 0);
  const testing::CliResult r = Run("intersect a.bbf b.bbf -o ab.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("ab.bbf: split256"), std::string::npos) << r.out;
  Filter want = LoadFilter(Path("a.bbf"));
  want.IntersectWith(LoadFilter(Path("b.bbf")));
  const Filter ab = LoadFilter(Path("ab.bbf"));
  EXPECT_TRUE(ab == want);
  EXPECT_EQ(ab.inserted(), 3u);
  EXPECT_TRUE(ab.MayContain(std::string_view("k1")));
  EXPECT_TRUE(ab.MayContain(std::string_view("k2")));

  ASSERT_EQ(Run("build --layout split256 --bytes 4096 --k 8 --keys b.txt -o big.bbf").status, 0);
  const testing::CliResult bad = Run("intersect a.bbf big.bbf -o out.bbf");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.err.find("cannot intersect a.bbf and big.bbf: number of blocks differs: 64 vs 128"),
            std::string::npos)
      << bad.err;
  EXPECT_FALSE(Exists("out.bbf"));
  EXPECT_NE(Run("intersect --help").out.find("not the filter of the intersection set"), std::string::npos);
}
#endif  // BLOCKBLOOM_CLI

}  // namespace
}  // namespace blockbloom
