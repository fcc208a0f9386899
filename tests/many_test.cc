// SPDX-License-Identifier: Apache-2.0
// Hash once, probe many (blockbloom/many.h) and the bitmap and selection
// forms from precomputed hashes (view.h): every form equals the loop it
// replaces (MayContainBatch / MayContainHashBatch per filter, the byte answers
// packed or listed by hand) on every target this CPU runs, over filters of
// different layouts, k and sizes sharing one hash, at batch sizes around the
// 64-key word and the 512-key chunk; and the errors name what is wrong.
#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/many.h"
#include "blockbloom/targets.h"
#include "tests/target_params.h"

namespace blockbloom {
namespace {

using testing::OnEveryTarget;
using testing::SupportedTargets;
using testing::TargetName;

std::vector<uint64_t> Keys(size_t n, uint64_t seed) { return testing::RandomKeys(n, seed); }

// Batch sizes: empty, around a bitmap word, around the engine's 512-key chunk,
// several chunks with a short tail, and two of the probe's 16384-hash groups
// with a tail (many.cc walks each filter over a group at a time).
const size_t kSizes[] = {0, 1, 63, 64, 65, 511, 512, 513, 1537, 5000, 2 * 16384 + 777};

// Filters of every layout, odd and even sizes, different k, all hashing with
// (hash, seed); each holds a different slice of `present`, so each answers differently.
std::vector<Filter> MixedFilters(HashKind hash, uint64_t seed, const std::vector<uint64_t>& present) {
  std::vector<Filter> fs;
  fs.push_back(Filter::WithBlocks(Layout::kBlocked512, 37, 6, hash, seed));
  fs.push_back(Filter::WithBlocks(Layout::kSplit256, 64, 8, hash, seed));
  fs.push_back(Filter::WithBlocks(Layout::kRegister64, 301, 4, hash, seed));
  fs.push_back(Filter::WithBlocks(Layout::kSectorized512, 20, 8, hash, seed));
  fs.push_back(Filter::WithBits(Layout::kClassic, 20011, 5, hash, seed));
  fs.push_back(Filter());  // the empty filter: answers false everywhere
  for (size_t j = 0; j + 1 < fs.size(); ++j) {
    for (size_t i = j; i < present.size(); i += j + 2) fs[j].Insert(present[i]);
  }
  return fs;
}

std::vector<const FilterView*> Ptrs(const std::vector<Filter>& fs) {
  std::vector<const FilterView*> p;
  for (const Filter& f : fs) p.push_back(&f);
  return p;
}

// The loop every form replaces: filter j's byte answers, one row per filter
// (MayContainBatch of the keys; MayContainHashBatch of hashes).
template <typename Key>
std::vector<std::vector<uint8_t>> LoopBytes(const std::vector<Filter>& fs, std::span<const Key> keys,
                                            bool hashes = false) {
  std::vector<std::vector<uint8_t>> rows;
  for (const Filter& f : fs) {
    std::vector<uint8_t> row(keys.size());
    if constexpr (std::is_same_v<Key, uint64_t>) {
      if (hashes) {
        f.MayContainHashBatch(keys, row);
        rows.push_back(row);
        continue;
      }
    }
    f.MayContainBatch(keys, row);
    rows.push_back(row);
  }
  return rows;
}

// The bitmap and selection of one row of answer bytes, by hand.
std::vector<uint64_t> BitsOf(const std::vector<uint8_t>& row) {
  std::vector<uint64_t> bits((row.size() + 63) / 64, 0);
  for (size_t i = 0; i < row.size(); ++i) bits[i / 64] |= uint64_t{row[i]} << (i % 64);
  return bits;
}
std::vector<uint32_t> SelOf(const std::vector<uint8_t>& row) {
  std::vector<uint32_t> sel;
  for (size_t i = 0; i < row.size(); ++i) {
    if (row[i]) sel.push_back(static_cast<uint32_t>(i));
  }
  return sel;
}
size_t Hits(const std::vector<std::vector<uint8_t>>& rows) {
  size_t n = 0;
  for (const auto& r : rows) {
    for (uint8_t b : r) n += b;
  }
  return n;
}

// The three many-filter forms against `loop` (one byte row per filter).
// `probe` runs one form: probe(matrix, bits, sel, counts) fills the given
// output (the others empty) and returns the hit count.
template <typename Matrix, typename Bitmap, typename Select>
void ExpectManyEqualsLoop(const std::vector<std::vector<uint8_t>>& loop, size_t n, Matrix&& matrix, Bitmap&& bitmap,
                          Select&& select, const std::string& what) {
  const size_t nf = loop.size();
  const size_t words = (n + 63) / 64;
  const size_t hits = Hits(loop);

  std::vector<uint8_t> m(n * nf + 3, 0xAA);  // 3 guard bytes past the matrix
  EXPECT_EQ(matrix(std::span<uint8_t>(m.data(), n * nf)), hits) << what;
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < nf; ++j) ASSERT_EQ(m[i * nf + j], loop[j][i]) << what << " key " << i << " filter " << j;
  }
  EXPECT_EQ(m[n * nf], 0xAA) << what << ": wrote past the matrix";

  std::vector<uint64_t> bits(words * nf + 1, ~uint64_t{0});  // garbage in, one guard word
  EXPECT_EQ(bitmap(std::span<uint64_t>(bits.data(), words * nf)), hits) << what;
  for (size_t j = 0; j < nf; ++j) {
    const std::vector<uint64_t> want = BitsOf(loop[j]);
    ASSERT_EQ(std::vector<uint64_t>(bits.begin() + j * words, bits.begin() + (j + 1) * words), want)
        << what << " filter " << j;
  }
  EXPECT_EQ(bits[words * nf], ~uint64_t{0}) << what << ": wrote past the bitmaps";

  std::vector<uint32_t> sel(n * nf, 0xFFFFFFFFu);
  std::vector<size_t> counts(nf, 12345);
  EXPECT_EQ(select(std::span<uint32_t>(sel), std::span<size_t>(counts)), hits) << what;
  for (size_t j = 0; j < nf; ++j) {
    const std::vector<uint32_t> want = SelOf(loop[j]);
    ASSERT_EQ(counts[j], want.size()) << what << " filter " << j;
    ASSERT_EQ(std::vector<uint32_t>(sel.begin() + j * n, sel.begin() + j * n + counts[j]), want)
        << what << " filter " << j;
  }
}

TEST_P(OnEveryTarget, ManyFiltersEqualTheLoopForKeysStringsAndHashes) {
  for (HashKind hash : {HashKind::kXxh3, HashKind::kXxh64, HashKind::kMulx}) {
    const auto present = Keys(3000, 11);
    const std::vector<Filter> fs = MixedFilters(hash, 29, present);
    const std::vector<const FilterView*> ptrs = Ptrs(fs);
    for (size_t n : kSizes) {
      // Half the probes present in some filter, half absent.
      std::vector<uint64_t> keys = Keys(n, 100 + n);
      for (size_t i = 0; i < n; i += 2) keys[i] = present[(i * 7) % present.size()];
      const std::string what = std::string(HashName(hash)) + " n=" + std::to_string(n) + " on " + GetParam();
      const std::span<const uint64_t> ks(keys);
      ExpectManyEqualsLoop(
          LoopBytes(fs, ks), n, [&](std::span<uint8_t> o) { return MayContainMany(ptrs, ks, o); },
          [&](std::span<uint64_t> o) { return MayContainManyBitmap(ptrs, ks, o); },
          [&](std::span<uint32_t> s, std::span<size_t> c) { return MayContainManySelect(ptrs, ks, s, c); },
          what + " u64");

      std::vector<std::string> strs;
      for (uint64_t k : keys) strs.push_back("key-" + std::to_string(k % 4000));
      const std::vector<std::string_view> views(strs.begin(), strs.end());
      const std::span<const std::string_view> vs(views);
      ExpectManyEqualsLoop(
          LoopBytes(fs, vs), n, [&](std::span<uint8_t> o) { return MayContainMany(ptrs, vs, o); },
          [&](std::span<uint64_t> o) { return MayContainManyBitmap(ptrs, vs, o); },
          [&](std::span<uint32_t> s, std::span<size_t> c) { return MayContainManySelect(ptrs, vs, s, c); },
          what + " strings");

      std::vector<uint64_t> hashes;
      for (uint64_t k : keys) hashes.push_back(HashU64(k, hash, 29));
      const std::span<const uint64_t> hs(hashes);
      ExpectManyEqualsLoop(
          LoopBytes(fs, hs, /*hashes=*/true), n, [&](std::span<uint8_t> o) { return MayContainHashMany(ptrs, hs, o); },
          [&](std::span<uint64_t> o) { return MayContainHashManyBitmap(ptrs, hs, o); },
          [&](std::span<uint32_t> s, std::span<size_t> c) { return MayContainHashManySelect(ptrs, hs, s, c); },
          what + " hashes");
    }
  }
}

TEST_P(OnEveryTarget, HashBitmapAndSelectEqualTheByteLoop) {
  const auto present = Keys(3000, 5);
  const std::vector<Filter> fs = MixedFilters(HashKind::kXxh3, 3, present);
  for (size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{4095}, size_t{4096},
                   size_t{4097}, size_t{9000}}) {
    std::vector<uint64_t> keys = Keys(n, n);
    for (size_t i = 0; i < n; i += 3) keys[i] = present[i % present.size()];
    std::vector<uint64_t> hashes;
    for (uint64_t k : keys) hashes.push_back(HashU64(k, HashKind::kXxh3, 3));
    for (const Filter& f : fs) {
      const std::string what = std::string(LayoutName(f.layout())) + " n=" + std::to_string(n) + " on " + GetParam();
      std::vector<uint8_t> bytes(n);
      const size_t hits = f.MayContainHashBatch(hashes, bytes);
      std::vector<uint64_t> bits((n + 63) / 64 + 1, ~uint64_t{0});
      EXPECT_EQ(f.MayContainHashBatchBitmap(hashes, std::span<uint64_t>(bits.data(), (n + 63) / 64)), hits) << what;
      EXPECT_EQ(bits.back(), ~uint64_t{0}) << what << ": wrote past the bitmap";
      bits.pop_back();
      EXPECT_EQ(bits, BitsOf(bytes)) << what;
      std::vector<uint32_t> sel(n);
      const size_t r = f.MayContainHashBatchSelect(hashes, sel);
      EXPECT_EQ(r, hits) << what;
      sel.resize(r);
      EXPECT_EQ(sel, SelOf(bytes)) << what;
      // And the hashes answer as the keys they came from.
      std::vector<uint64_t> key_bits((n + 63) / 64);
      f.MayContainBatchBitmap(keys, key_bits);
      EXPECT_EQ(bits, key_bits) << what;
    }
  }
}


INSTANTIATE_TEST_SUITE_P(Many, OnEveryTarget, ::testing::ValuesIn(SupportedTargets()), TargetName);

// ---- Errors ---------------------------------------------------------------------------------

template <typename Fn>
void ExpectInvalid(Fn&& fn, const std::string& needle) {
  try {
    fn();
    ADD_FAILURE() << "no exception; expected one saying " << needle;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("blockbloom: ", 0), 0u) << e.what();
  }
}

TEST(MayContainMany, RefusesFiltersOfAnotherHashNamingTheIndex) {
  const Filter a = Filter::WithBlocks(Layout::kSplit256, 8, 8, HashKind::kXxh3, 1);
  const Filter b = Filter::WithBlocks(Layout::kBlocked512, 4, 6, HashKind::kXxh3, 1);  // another layout: fine
  const Filter c = Filter::WithBlocks(Layout::kSplit256, 8, 8, HashKind::kXxh3, 2);
  const Filter d = Filter::WithBlocks(Layout::kSplit256, 8, 8, HashKind::kXxh64, 1);
  const std::vector<uint64_t> keys = Keys(100, 1);
  std::vector<uint8_t> out(keys.size() * 3, 0x55);
  const std::vector<const FilterView*> seeds = {&a, &b, &c};
  ExpectInvalid([&] { MayContainMany(seeds, keys, out); },
                "filters[2] hashes with xxh3 seed 2: expected xxh3 seed 1, as filters[0]");
  EXPECT_EQ(out, std::vector<uint8_t>(out.size(), 0x55)) << "wrote before refusing";
  const std::vector<const FilterView*> kinds = {&a, &d, &b};
  ExpectInvalid([&] { MayContainHashMany(kinds, keys, out); }, "filters[1] hashes with xxh64 seed 1: expected xxh3");
  std::vector<uint64_t> bits(6);
  ExpectInvalid([&] { MayContainManyBitmap(kinds, keys, bits); }, "filters[1] hashes with xxh64");
  const std::vector<const FilterView*> null = {&a, nullptr};
  ExpectInvalid([&] { MayContainMany(null, keys, out); }, "filters[1] is null");
  // An empty filter answers false whatever the hash: it constrains nothing, the first non-empty one does.
  const Filter empty;
  const std::vector<const FilterView*> lead_empty = {&empty, &c, &a};
  ExpectInvalid([&] { MayContainMany(lead_empty, keys, out); },
                "filters[2] hashes with xxh3 seed 1: expected xxh3 seed 2, as filters[1]");
  const std::vector<const FilterView*> ok = {&a, &b};
  EXPECT_EQ(MayContainMany(ok, keys, out), 0u);  // no keys inserted
}

TEST(MayContainMany, RefusesShortOutputs) {
  const Filter a = Filter::WithBlocks(Layout::kSplit256, 8, 8);
  const Filter b = Filter::WithBlocks(Layout::kClassic, 1000, 3);
  const std::vector<const FilterView*> fs = {&a, &b};
  const std::vector<uint64_t> keys = Keys(65, 1);
  std::vector<uint8_t> out(129);
  ExpectInvalid([&] { MayContainMany(fs, keys, out); },
                "out.size() = 129 is too small: expected at least keys.size() x filters.size() = 130");
  std::vector<uint64_t> bits(3);
  ExpectInvalid([&] { MayContainManyBitmap(fs, keys, bits); },
                "bitmap.size() = 3 is too small: expected at least ceil(keys.size() / 64) x filters.size() = 4");
  std::vector<uint32_t> sel(130);
  std::vector<size_t> counts(1);
  ExpectInvalid([&] { MayContainManySelect(fs, keys, sel, counts); },
                "counts.size() = 1 is too small: expected at least filters.size() = 2");
  std::vector<uint64_t> hbits(1);
  ExpectInvalid([&] { a.MayContainHashBatchBitmap(keys, hbits); }, "bitmap.size() = 1 is too small");
  std::vector<uint32_t> hsel(64);
  ExpectInvalid([&] { a.MayContainHashBatchSelect(keys, hsel); }, "out.size() = 64 is too small");
  // No filters: nothing to do.
  EXPECT_EQ(MayContainMany(std::span<const FilterView* const>(), keys, std::span<uint8_t>()), 0u);
}

}  // namespace
}  // namespace blockbloom
