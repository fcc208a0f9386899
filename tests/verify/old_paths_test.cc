// SPDX-License-Identifier: Apache-2.0
// The include paths blockbloom::verify had before it got its own folder
// (blockbloom/exact_set.h, measure.h, stats.h) still compile, for one release:
// each forwards to blockbloom/verify/*.h and names the same types.
#include "blockbloom/exact_set.h"
#include "blockbloom/measure.h"
#include "blockbloom/stats.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace blockbloom {
namespace {

TEST(VerifyOldIncludePaths, ForwardToTheVerifyHeaders) {
  ExactSet s;
  EXPECT_TRUE(s.Insert(uint64_t{42}));
  EXPECT_TRUE(s.Contains(uint64_t{42}));
  const CountInterval c = BinomialAcceptance(1000, 0.01, 0.9999);
  EXPECT_LE(c.lo, 10u);
  EXPECT_GE(c.hi, 10u);
  const MeasureSpec spec;  // measure.h
  EXPECT_EQ(spec.replicas, 1u);
}

}  // namespace
}  // namespace blockbloom
