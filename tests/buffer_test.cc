// SPDX-License-Identifier: Apache-2.0
// Filter::InBuffer: a filter over memory the caller owns (issue 24) inserts,
// queries and saves exactly as an owning Filter, on every target; bad buffers
// (short, misaligned, padding not zero) are refused with the size or address
// and what was expected, and nothing is written out of bounds (ASan stage).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <unistd.h>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/layout.h"
#include "blockbloom/targets.h"

namespace blockbloom {
namespace {

// A caller's 64-byte aligned buffer of `bytes` bytes, `offset` bytes in (for misalignment).
struct Buffer {
  explicit Buffer(size_t bytes, size_t skew = 0, uint8_t fill = 0xA5)
      : mem(static_cast<uint8_t*>(std::aligned_alloc(64, (bytes + skew + 64 + 63) / 64 * 64))), size(bytes),
        offset(skew) {
    std::memset(mem.get(), fill, (bytes + skew + 64 + 63) / 64 * 64);
  }
  std::span<uint8_t> span() { return {mem.get() + offset, size}; }
  struct Free {
    void operator()(uint8_t* p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t[], Free> mem;
  size_t size, offset;
};

std::vector<uint64_t> Keys(size_t n, uint64_t salt) {
  std::vector<uint64_t> k(n);
  for (size_t i = 0; i < n; ++i) k[i] = (i + 1) * 0x9E3779B97F4A7C15ull ^ salt;
  return k;
}

std::string ErrorOf(auto&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

// A read-only buffer does not compile: InBuffer takes std::span<uint8_t>.
static_assert(!std::is_invocable_v<decltype(&Filter::InBuffer), std::span<const uint8_t>, Layout, uint64_t,
                                   uint32_t, HashKind, uint64_t, Filter::BufferInit, uint64_t>);

TEST(InBuffer, InsertsAndQueriesAsAnOwningFilterOnEveryTarget) {
  const std::vector<uint64_t> keys = Keys(20'000, 1), probes = Keys(50'000, 2);
  for (const TargetInfo& t : CompiledTargets()) {
    if (!t.supported) continue;
    PinTarget(t.name);
    for (Layout layout : kAllLayouts) {
      const LayoutTraits& tr = Traits(layout);
      const uint32_t k = tr.max_k >= 8 ? 8 : tr.max_k;
      const uint64_t blocks = tr.unit == SizeUnit::kBits ? 200'003 : 777;
      SCOPED_TRACE(std::string(t.name) + " " + std::string(tr.name));
      Filter owned = Filter::WithBlocks(layout, blocks, k, HashKind::kXxh3, 7);
      Buffer buf(Filter::RequiredBytes(layout, blocks) + 64);  // 64 spare bytes after: must stay untouched
      Filter mine = Filter::InBuffer(buf.span(), layout, blocks, k, HashKind::kXxh3, 7);
      EXPECT_FALSE(mine.owns_memory());
      EXPECT_TRUE(owned.owns_memory());
      EXPECT_EQ(mine.data(), buf.span().data());
      owned.InsertBatch(std::span<const uint64_t>(keys).first(10'000));
      mine.InsertBatch(std::span<const uint64_t>(keys).first(10'000));
      for (size_t i = 10'000; i < keys.size(); ++i) {
        owned.Insert(keys[i]);
        mine.Insert(keys[i]);
      }
      owned.Insert(std::string_view("a string key"));
      mine.Insert(std::string_view("a string key"));
      ASSERT_EQ(0, std::memcmp(owned.data(), mine.data(), owned.byte_size()));
      EXPECT_EQ(owned.inserted(), mine.inserted());
      std::vector<uint8_t> a(probes.size()), b(probes.size());
      EXPECT_EQ(owned.MayContainBatch(probes, a), mine.MayContainBatch(probes, b));
      EXPECT_EQ(a, b);
      for (size_t i = 0; i < 64; ++i) ASSERT_EQ(buf.span().data()[Filter::RequiredBytes(layout, blocks) + i], 0xA5);
    }
  }
  PinTarget("auto");
}

TEST(InBuffer, KeepReattachesSavesAndCopiesOwn) {
  const uint64_t blocks = 1000;
  Buffer buf(Filter::RequiredBytes(Layout::kSplit256, blocks));
  const std::vector<uint64_t> keys = Keys(5000, 3);
  {
    Filter f = Filter::InBuffer(buf.span(), Layout::kSplit256, blocks, 8);
    f.InsertBatch(keys);
  }  // the filter is gone; the buffer keeps its bits
  Filter again = Filter::InBuffer(buf.span(), Layout::kSplit256, blocks, 8, HashKind::kXxh3, 0,
                                  Filter::BufferInit::kKeep, keys.size());
  for (uint64_t key : keys) ASSERT_TRUE(again.MayContain(key));
  EXPECT_EQ(again.inserted(), keys.size());

  Filter copy = again;  // owns its own payload
  EXPECT_TRUE(copy.owns_memory());
  EXPECT_NE(copy.data(), again.data());
  copy.Insert(uint64_t{12345});
  Filter moved = std::move(again);  // moves the borrow
  EXPECT_FALSE(moved.owns_memory());
  EXPECT_EQ(moved.data(), buf.span().data());

  const std::string path = ::testing::TempDir() + "/inbuffer_" + std::to_string(::getpid()) + ".bbf";
  SaveFilter(moved, path);
  const Filter loaded = LoadFilter(path);
  ::unlink(path.c_str());
  ASSERT_EQ(loaded.byte_size(), moved.byte_size());
  EXPECT_EQ(0, std::memcmp(loaded.data(), moved.data(), moved.byte_size()));
  EXPECT_EQ(loaded.inserted(), keys.size());

  Filter owner = Filter::WithBlocks(Layout::kSplit256, blocks, 8);
  owner.UnionWith(moved);  // unions work both ways
  moved.UnionWith(owner);
  EXPECT_EQ(0, std::memcmp(owner.data(), moved.data(), moved.byte_size()));
}

// The count a filter keeps (and saves) saturates at 2^64 - 1 on every path
// that counts: AddInserted, an atomic insert, a batch. The single-key inserts
// do not count (filter.h): they leave it as it was.
TEST(InBuffer, TheKeyCountSaturates) {
  const uint64_t blocks = 64, max = ~uint64_t{0};
  Buffer buf(Filter::RequiredBytes(Layout::kSplit256, blocks));
  Filter f = Filter::InBuffer(buf.span(), Layout::kSplit256, blocks, 8, HashKind::kXxh3, 0,
                              Filter::BufferInit::kClear, max - 2);
  f.Insert(uint64_t{1});
  f.InsertHash(4);
  f.Insert(std::string_view("five"));
  EXPECT_EQ(f.inserted(), max - 2);
  f.AddInserted(1);
  EXPECT_EQ(f.inserted(), max - 1);
  f.InsertAtomic(uint64_t{2});
  EXPECT_EQ(f.inserted(), max);
  f.InsertAtomic(uint64_t{3});
  f.AddInserted(5);
  f.InsertBatch(Keys(10, 6));
  EXPECT_EQ(f.inserted(), max);
  for (uint64_t key : {uint64_t{1}, uint64_t{2}, uint64_t{3}}) EXPECT_TRUE(f.MayContain(key));
}

TEST(InBuffer, BadBuffersAreRefusedWithWhatWasExpected) {
  const uint64_t blocks = 100;
  const uint64_t need = Filter::RequiredBytes(Layout::kBlocked512, blocks);
  EXPECT_EQ(need, 100u * 64);
  Buffer shortb(need - 1);
  std::string e = ErrorOf([&] { Filter::InBuffer(shortb.span(), Layout::kBlocked512, blocks, 6); });
  EXPECT_NE(e.find("buffer = 6399 bytes is too small"), std::string::npos) << e;
  EXPECT_NE(e.find("RequiredBytes = 6400"), std::string::npos) << e;
  for (uint8_t b : std::span<uint8_t>(shortb.span())) ASSERT_EQ(b, 0xA5);  // nothing written

  Buffer skew(need, 8);
  e = ErrorOf([&] { Filter::InBuffer(skew.span(), Layout::kBlocked512, blocks, 6); });
  EXPECT_NE(e.find("is not aligned: expected a multiple of 64"), std::string::npos) << e;
  for (uint8_t b : std::span<uint8_t>(skew.span())) ASSERT_EQ(b, 0xA5);

  e = ErrorOf([&] { Filter::InBuffer({}, Layout::kBlocked512, blocks, 6); });
  EXPECT_NE(e.find("buffer = 0 bytes is too small"), std::string::npos) << e;
  e = ErrorOf([&] { Filter::InBuffer(shortb.span(), Layout::kBlocked512, 0, 6); });
  EXPECT_NE(e.find("blocks"), std::string::npos) << e;
  e = ErrorOf([&] { Filter::InBuffer(shortb.span(), Layout::kSplit256, 10, 7); });
  EXPECT_NE(e.find("k = 7"), std::string::npos) << e;

  // kKeep: classic with 1001 bits ends inside byte 125; the rest of its line is padding.
  const uint64_t bits = 1001;
  Buffer classic(Filter::RequiredBytes(Layout::kClassic, bits), 0, 0);
  classic.span()[125] = 0x01;  // bit 1000: inside the filter
  EXPECT_NO_THROW(Filter::InBuffer(classic.span(), Layout::kClassic, bits, 3, HashKind::kXxh3, 0,
                                   Filter::BufferInit::kKeep));
  classic.span()[125] = 0x02;  // bit 1001: padding
  e = ErrorOf([&] {
    Filter::InBuffer(classic.span(), Layout::kClassic, bits, 3, HashKind::kXxh3, 0, Filter::BufferInit::kKeep);
  });
  EXPECT_NE(e.find("buffer byte 125 is 2"), std::string::npos) << e;
  EXPECT_NE(e.find("padding after it must be zero"), std::string::npos) << e;
}

}  // namespace
}  // namespace blockbloom
