// SPDX-License-Identifier: Apache-2.0
// Concurrent writers beside concurrent readers: 2 threads insert with
// InsertAtomic / InsertBatchAtomic while 2 threads query with the atomic query
// forms, on every layout. Run under ThreadSanitizer by the test command's TSan
// stage (tools/ci/tsan.sh): it must report no data race, and afterwards every
// inserted key must be found.
#include <gtest/gtest.h>

#include <atomic>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "blockbloom/filter.h"

namespace blockbloom {
namespace {

class EveryLayout : public ::testing::TestWithParam<Layout> {};

TEST_P(EveryLayout, WritersBesideReadersLoseNoKey) {
  const Layout l = GetParam();
  const uint32_t k = LayoutAcceptsK(l, 4) ? 4 : LayoutMinK(l);
  Filter f = Filter::WithBits(l, 1 << 20, k);
  std::vector<uint64_t> keys(40000);
  std::mt19937_64 rng(1);
  for (auto& x : keys) x = rng();
  const std::span<const uint64_t> all(keys);
  const std::span<const uint64_t> first = all.first(keys.size() / 2), second = all.subspan(keys.size() / 2);

  std::atomic<bool> done{false};
  std::atomic<uint64_t> reads{0};
  auto reader = [&](uint64_t seed) {
    std::vector<uint8_t> out(256);
    uint64_t i = seed;
    do {
      const size_t at = (i * 256) % (keys.size() - 256);
      f.MayContainBatchAtomic(all.subspan(at, 256), out);
      (void)f.MayContainAtomic(keys[(i * 7919) % keys.size()]);
      (void)f.inserted();
      reads.fetch_add(1, std::memory_order_relaxed);
      ++i;
    } while (!done.load(std::memory_order_acquire));
  };
  std::thread r1(reader, 1), r2(reader, 2);
  std::thread w1([&] {
    for (size_t i = 0; i < first.size(); i += 1000) f.InsertBatchAtomic(first.subspan(i, 1000));
  });
  std::thread w2([&] {
    for (uint64_t key : second) f.InsertAtomic(key);
  });
  w1.join();
  w2.join();
  done.store(true, std::memory_order_release);
  r1.join();
  r2.join();
  EXPECT_GT(reads.load(), 0u);
  std::vector<uint8_t> out(keys.size());
  EXPECT_EQ(f.MayContainBatch(keys, out), keys.size()) << "an inserted key is missing";
  EXPECT_EQ(f.inserted(), keys.size());
}

INSTANTIATE_TEST_SUITE_P(Layouts, EveryLayout, ::testing::ValuesIn(kAllLayouts),
                         [](const auto& p) { return std::string(LayoutName(p.param)); });

}  // namespace
}  // namespace blockbloom
