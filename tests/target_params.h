// SPDX-License-Identifier: Apache-2.0
// What the suites that run an engine API on every SIMD target share: the
// targets this CPU runs, a fixture pinning the test's target (unpinned after),
// and reproducible random keys.
#ifndef BLOCKBLOOM_TESTS_TARGET_PARAMS_H_
#define BLOCKBLOOM_TESTS_TARGET_PARAMS_H_

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "blockbloom/targets.h"

namespace blockbloom::testing {

// n keys from mt19937_64(seed).
inline std::vector<uint64_t> RandomKeys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// Every compiled target this CPU supports, best first.
inline std::vector<std::string> SupportedTargets() {
  std::vector<std::string> names;
  for (const TargetInfo& t : CompiledTargets()) {
    if (t.supported) names.emplace_back(t.name);
  }
  return names;
}
inline std::string TargetName(const ::testing::TestParamInfo<std::string>& p) { return p.param; }

// TEST_P(OnEveryTarget, ...) runs with GetParam() pinned; instantiate with
//   INSTANTIATE_TEST_SUITE_P(Suite, OnEveryTarget, ::testing::ValuesIn(SupportedTargets()), TargetName);
class OnEveryTarget : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    PinTarget(GetParam());
    ASSERT_EQ(ActiveTarget(), GetParam());
  }
  void TearDown() override { PinTarget("auto"); }
};

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_TARGET_PARAMS_H_
