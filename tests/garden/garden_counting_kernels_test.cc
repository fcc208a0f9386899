// SPDX-License-Identifier: Apache-2.0
// Every compiled target of the blocked counting kernels (kernels/counting.h)
// against the scalar reference, byte for byte: line bytes after inserts
// (with saturation), removes (refused and accepted), and the query, count and
// lost-increment answers, for every k, over batch sizes 0, 1, lane counts +-1,
// odd and large, from misaligned starts, on filters below and above the
// prefetch threshold. Each target is its own test case
// (AllTargets/CountingKernels.*/avx2, ...); targets this CPU cannot run are
// skipped, not passed.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kernels/counting.h"
#include "kernels/common.h"

namespace blockbloom::kernels::counting {
namespace {

std::vector<uint64_t> RandomHashes(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// A zeroed 64-byte aligned run of lines.
struct Lines {
  std::vector<uint8_t> storage;
  uint8_t* p;
  uint64_t blocks;
  uint32_t k;
  Lines(uint64_t nb, uint32_t kk) : storage(nb * kLineBytes + 64, 0), blocks(nb), k(kk) {
    p = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  }
  CountingRef Ref() { return {p, blocks, k}; }
  bool operator==(const Lines& o) const { return std::memcmp(p, o.p, blocks * kLineBytes) == 0; }
};

class CountingKernels : public ::testing::TestWithParam<const CountingOps*> {
 protected:
  void SetUp() override {
    if (!Supported(*GetParam())) GTEST_SKIP() << "this CPU cannot run " << GetParam()->name;
  }
  const CountingOps& ops() const { return *GetParam(); }
};

const size_t kSizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 63, 64, 65, 127, 129, 1000, 4099};

TEST_P(CountingKernels, InsertWritesTheReferenceBytes) {
  const CountingOps& ref = reference::ReferenceCountingOps();
  const auto hashes = RandomHashes(5000, 1);
  for (uint32_t k = 1; k <= kMaxK; ++k) {
    for (size_t n : kSizes) {
      for (size_t offset : {0, 1, 3}) {
        if (offset + n > hashes.size()) continue;
        Lines a(37, k), b(37, k);
        const uint64_t lost_a = ops().insert(a.Ref(), hashes.data() + offset, n);
        const uint64_t lost_b = ref.insert(b.Ref(), hashes.data() + offset, n);
        ASSERT_TRUE(a == b) << "k=" << k << " n=" << n << " offset=" << offset;
        ASSERT_EQ(lost_a, lost_b) << "k=" << k << " n=" << n;
      }
    }
  }
}

TEST_P(CountingKernels, SaturationRemoveQueryAndCountMatchTheReference) {
  const CountingOps& ref = reference::ReferenceCountingOps();
  // 3 blocks and repeated keys: counters saturate (the lost counts must agree).
  const auto base = RandomHashes(300, 2);
  std::vector<uint64_t> stream;
  for (int rep = 0; rep < 8; ++rep) stream.insert(stream.end(), base.begin(), base.end());
  const auto probes = RandomHashes(2000, 3);
  std::vector<uint64_t> mixed(probes.begin(), probes.end());
  mixed.insert(mixed.end(), base.begin(), base.end());
  for (uint32_t k = 1; k <= kMaxK; ++k) {
    Lines a(3, k), b(3, k);
    const uint64_t lost_a = ops().insert(a.Ref(), stream.data(), stream.size());
    ASSERT_EQ(lost_a, ref.insert(b.Ref(), stream.data(), stream.size()));
    ASSERT_GT(lost_a, 0u) << "the stream is meant to saturate counters";
    ASSERT_TRUE(a == b);
    std::vector<uint8_t> oa(mixed.size()), ob(mixed.size());
    ASSERT_EQ(ops().query(a.Ref(), mixed.data(), mixed.size(), oa.data()),
              ref.query(b.Ref(), mixed.data(), mixed.size(), ob.data()));
    ASSERT_EQ(oa, ob);
    ops().count(a.Ref(), mixed.data(), mixed.size(), oa.data());
    ref.count(b.Ref(), mixed.data(), mixed.size(), ob.data());
    ASSERT_EQ(oa, ob);
    ASSERT_EQ(ops().remove(a.Ref(), mixed.data(), mixed.size(), oa.data()),
              ref.remove(b.Ref(), mixed.data(), mixed.size(), ob.data()));
    ASSERT_EQ(oa, ob);
    ASSERT_TRUE(a == b) << "k=" << k;
  }
  // A sparse filter: removes refused for absent keys, accepted for present ones.
  for (uint32_t k : {1u, 7u, 16u}) {
    Lines a(4096, k), b(4096, k);
    const auto keys = RandomHashes(3000, 4);
    ops().insert(a.Ref(), keys.data(), keys.size());
    ref.insert(b.Ref(), keys.data(), keys.size());
    std::vector<uint8_t> oa(probes.size()), ob(probes.size());
    const size_t ra = ops().remove(a.Ref(), probes.data(), probes.size(), oa.data());
    ASSERT_EQ(ra, ref.remove(b.Ref(), probes.data(), probes.size(), ob.data()));
    ASSERT_LT(ra, probes.size() / 2) << "most absent keys have a zero counter";
    ASSERT_EQ(oa, ob);
    std::vector<uint8_t> ka(keys.size()), kb(keys.size());
    ops().remove(a.Ref(), keys.data(), keys.size(), ka.data());
    ref.remove(b.Ref(), keys.data(), keys.size(), kb.data());
    ASSERT_EQ(ka, kb);
    ASSERT_TRUE(a == b);
  }
}

TEST_P(CountingKernels, LargeFiltersTakeThePrefetchPathAndStillMatch) {
  const CountingOps& ref = reference::ReferenceCountingOps();
  // 16384 lines = 1 MiB: above the 512 KiB prefetch threshold.
  Lines a(16384, 8), b(16384, 8);
  const auto keys = RandomHashes(20000, 5);
  ops().insert(a.Ref(), keys.data(), keys.size());
  ref.insert(b.Ref(), keys.data(), keys.size());
  ASSERT_TRUE(a == b);
  std::vector<uint8_t> oa(keys.size()), ob(keys.size());
  EXPECT_EQ(ops().query(a.Ref(), keys.data(), keys.size(), oa.data()), keys.size()) << "no false negatives";
  ops().remove(a.Ref(), keys.data(), keys.size() / 2, oa.data());
  ref.remove(b.Ref(), keys.data(), keys.size() / 2, ob.data());
  ASSERT_TRUE(a == b);
}

INSTANTIATE_TEST_SUITE_P(AllTargets, CountingKernels,
                         ::testing::ValuesIn(CountingTargets().begin(), CountingTargets().end()),
                         [](const ::testing::TestParamInfo<const CountingOps*>& p) {
                           return std::string(p.param->name);
                         });

TEST(CountingKernelsRegistry, EveryCompiledTargetIsListedOnceAndOneIsActive) {
  const auto targets = CountingTargets();
  ASSERT_FALSE(targets.empty());
  for (size_t i = 0; i < targets.size(); ++i)
    for (size_t j = i + 1; j < targets.size(); ++j) EXPECT_NE(targets[i]->target, targets[j]->target);
  EXPECT_TRUE(Supported(ActiveCounting()));
}

}  // namespace
}  // namespace blockbloom::kernels::counting
