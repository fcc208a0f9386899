// SPDX-License-Identifier: Apache-2.0
// The public Filter API: parameter errors, batch == per-key on every layout and
// key type, construction by (n, fpr), copies and unions, concurrent atomic
// inserts, and the golden schema test that pins the bytes of every layout.
#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/inserter.h"
#include "blockbloom/model.h"
#include "kernels/common.h"

namespace blockbloom {
namespace {

std::vector<uint64_t> Keys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// URL-like strings sharing long prefixes.
std::vector<std::string> Urls(size_t n) {
  std::vector<std::string> v;
  for (size_t i = 0; i < n; ++i) v.push_back("https://example.com/a/long/shared/prefix/item?id=" + std::to_string(i * 7919));
  return v;
}

uint32_t MidK(Layout l) {
  for (uint32_t k = (LayoutMinK(l) + LayoutMaxK(l)) / 2; k <= LayoutMaxK(l); ++k) {
    if (LayoutAcceptsK(l, k)) return k;
  }
  return LayoutMinK(l);
}

class EveryLayout : public ::testing::TestWithParam<Layout> {};

TEST_P(EveryLayout, BatchEqualsPerKeyForIntegersStringsAndHashes) {
  const Layout l = GetParam();
  for (HashKind hash : kHashKinds) {
    const auto keys = Keys(5000, 1);
    const auto urls = Urls(3000);
    std::vector<std::string_view> views(urls.begin(), urls.end());
    Filter batch = Filter::WithBits(l, 40000, MidK(l), hash, 17);
    Filter single = Filter::WithBits(l, 40000, MidK(l), hash, 17);
    batch.InsertBatch(keys);
    batch.InsertBatch(views);
    for (uint64_t k : keys) single.Insert(k);
    for (const auto& u : urls) single.Insert(std::string_view(u));
    ASSERT_TRUE(batch == single) << LayoutName(l) << " " << HashName(hash);
    EXPECT_EQ(batch.inserted(), keys.size() + urls.size());

    const auto probes = Keys(7000, 2);
    std::vector<uint8_t> out(probes.size());
    const size_t hits = batch.MayContainBatch(probes, out);
    size_t expect = 0;
    for (size_t i = 0; i < probes.size(); ++i) {
      ASSERT_EQ(out[i] != 0, single.MayContain(probes[i]));
      expect += out[i];
    }
    EXPECT_EQ(hits, expect);
    // No false negatives, through every entry point.
    std::vector<uint8_t> present(keys.size());
    EXPECT_EQ(batch.MayContainBatch(keys, present), keys.size());
    std::vector<uint8_t> present_urls(views.size());
    EXPECT_EQ(batch.MayContainBatch(std::span<const std::string_view>(views), present_urls), views.size());
    std::vector<uint64_t> hashes;
    for (uint64_t k : keys) hashes.push_back(HashU64(k, hash, 17));
    EXPECT_EQ(batch.MayContainHashBatch(hashes, present), keys.size());
    for (uint64_t h : hashes) ASSERT_TRUE(batch.MayContainHash(h));
  }
}

// BufferedInserter (blockbloom/inserter.h): the same bits and count as one
// InsertBatch of the same keys, keys in the filter only once their buffer is
// written (full, Flush, destruction).
TEST_P(EveryLayout, BufferedInserterWritesTheBatchOfItsKeys) {
  const Layout l = GetParam();
  constexpr size_t kCap = BufferedInserter::kCapacity;
  const auto keys = Keys(2 * kCap + 37, 5);
  Filter batch = Filter::WithBits(l, 40000, MidK(l), HashKind::kAes, 3);
  batch.InsertBatch(keys);
  Filter buffered = Filter::WithBits(l, 40000, MidK(l), HashKind::kAes, 3);
  {
    BufferedInserter ins(buffered);
    for (size_t i = 0; i < keys.size(); ++i) {
      ins.Insert(keys[i]);
      // Full buffers are written as they fill, the rest waits.
      ASSERT_EQ(ins.pending(), (i + 1) % kCap) << i;
      ASSERT_EQ(buffered.inserted(), (i + 1) / kCap * kCap) << i;
    }
    EXPECT_EQ(ins.pending(), 37u);
  }  // the destructor writes the last 37
  EXPECT_TRUE(buffered == batch) << LayoutName(l);
  EXPECT_EQ(buffered.inserted(), keys.size());

  // A pending key is not in the filter until Flush.
  Filter f = Filter::WithBits(l, 40000, MidK(l));
  BufferedInserter ins(f);
  const uint64_t key = 0x1234567890abcdefULL;
  ins.Insert(key);
  EXPECT_EQ(f.inserted(), 0u);
  EXPECT_EQ(f.PopCount(), 0u);
  ins.Flush();
  EXPECT_EQ(ins.pending(), 0u);
  EXPECT_EQ(f.inserted(), 1u);
  EXPECT_TRUE(f.MayContain(key));
  ins.Flush();  // nothing pending: nothing written
  EXPECT_EQ(f.inserted(), 1u);
}

// String keys and precomputed hashes through the inserter: hashed at Insert,
// written with InsertHashBatch; the same bits and count as the batches of the
// same keys, beside uint64 keys in the same inserter.
TEST_P(EveryLayout, BufferedInserterWritesStringsAndHashesAsTheirBatches) {
  const Layout l = GetParam();
  constexpr size_t kCap = BufferedInserter::kCapacity;
  const auto urls = Urls(2 * kCap + 37);
  const std::vector<std::string_view> views(urls.begin(), urls.end());
  const auto keys = Keys(kCap + 11, 9);
  Filter batch = Filter::WithBits(l, 60000, MidK(l), HashKind::kXxh3, 5);
  batch.InsertBatch(views);
  batch.InsertBatch(keys);
  Filter buffered = Filter::WithBits(l, 60000, MidK(l), HashKind::kXxh3, 5);
  {
    BufferedInserter ins(buffered);
    for (size_t i = 0; i < views.size(); ++i) {
      ins.Insert(views[i]);
      if (i < keys.size()) ins.Insert(keys[i]);
      const size_t strings = i + 1, ints = std::min(i + 1, keys.size());
      ASSERT_EQ(ins.pending(), strings % kCap + ints % kCap) << i;
      ASSERT_EQ(buffered.inserted(), strings / kCap * kCap + ints / kCap * kCap) << i;
    }
  }
  EXPECT_TRUE(buffered == batch) << LayoutName(l);
  EXPECT_EQ(buffered.inserted(), views.size() + keys.size());

  // Precomputed hashes: HashU64 of the keys is what InsertBatch writes.
  Filter hashed = Filter::WithBits(l, 60000, MidK(l), HashKind::kXxh3, 5);
  {
    BufferedInserter ins(hashed);
    for (const auto& u : urls) ins.InsertHash(HashBytes(u, HashKind::kXxh3, 5));
    for (uint64_t k : keys) ins.InsertHash(HashU64(k, HashKind::kXxh3, 5));
    ins.Flush();
    EXPECT_EQ(ins.pending(), 0u);
  }
  EXPECT_TRUE(hashed == batch) << LayoutName(l);
  EXPECT_EQ(hashed.inserted(), views.size() + keys.size());
}

// Pending hashes belong to the filter (hash kind, seed) they were computed
// for: a filter assigned another seed meanwhile gets none of them.
TEST(BufferedInserterErrors, PendingHashesWaitForTheirFilter) {
  Filter f = Filter::WithBits(Layout::kSplit256, 4096, 8, HashKind::kXxh3, 1);
  BufferedInserter ins(f);
  ins.Insert(std::string_view("alpha"));
  ins.Insert(uint64_t{42});
  Filter moved = std::move(f);
  f = Filter::WithBits(Layout::kSplit256, 4096, 8, HashKind::kXxh3, 2);
  try {
    ins.Flush();
    ADD_FAILURE() << "a flush of hashes for seed 1 into a filter of seed 2 did not throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("seed 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("seed 2"), std::string::npos) << e.what();
  }
  // The uint64 key went in (hashed by the flush's batch, for this filter); the
  // string's hash waits.
  EXPECT_EQ(ins.pending(), 1u);
  EXPECT_EQ(f.inserted(), 1u);
  EXPECT_EQ(f.PopCount(), 8u);
  f = Filter::WithBits(Layout::kSplit256, 4096, 8, HashKind::kXxh3, 1);  // its filter again
  ins.Flush();
  EXPECT_EQ(ins.pending(), 0u);
  EXPECT_TRUE(f.MayContain(std::string_view("alpha")));
  EXPECT_EQ(f.inserted(), 1u);

  // A string for an empty filter has no hash kind or seed to be hashed with.
  Filter g = Filter::WithBits(Layout::kSplit256, 4096, 8);
  BufferedInserter gi(g);
  Filter g2 = std::move(g);
  EXPECT_THROW(gi.Insert(std::string_view("beta")), std::logic_error);
  EXPECT_THROW(gi.InsertHash(7), std::logic_error);
  EXPECT_EQ(gi.pending(), 0u);
}

TEST(BufferedInserterErrors, AnEmptyFilterIsRefusedAndAFailedFlushKeepsItsKeys) {
  Filter empty;
  EXPECT_THROW(BufferedInserter{empty}, std::logic_error);
  Filter f = Filter::WithBits(Layout::kSplit256, 4096, 8);
  BufferedInserter ins(f);
  ins.Insert(7);
  ins.Insert(8);
  Filter moved = std::move(f);  // f is now the empty filter
  EXPECT_THROW(ins.Flush(), std::logic_error);
  EXPECT_EQ(ins.pending(), 2u);  // nothing lost
  f = Filter::WithBits(Layout::kSplit256, 4096, 8);  // writable again: the keys go there
  ins.Flush();
  EXPECT_EQ(ins.pending(), 0u);
  EXPECT_TRUE(f.MayContain(uint64_t{7}) && f.MayContain(uint64_t{8}));
  EXPECT_EQ(moved.inserted(), 0u);
}

// The u64 hash is computed in registers; it must equal the hash of the bytes.
TEST(Hashing, IntegerHashIsTheHashOfItsLittleEndianBytes) {
  for (HashKind kind : kHashKinds) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15}, ~uint64_t{0}}) {
      for (uint64_t k : Keys(2000, 5)) {
        char le[8];
        for (int i = 0; i < 8; ++i) le[i] = static_cast<char>(k >> (8 * i));
        ASSERT_EQ(HashU64(k, kind, seed), HashBytes(std::string_view(le, 8), kind, seed))
            << HashName(kind) << " seed " << seed << " key " << k;
      }
    }
  }
}

// mulx by its definition (blockbloom/hash.h): fold(fold(key ^ seed, m1), m2),
// fold(x, m) = the halves of the 128-bit product x * m XORed; any other length
// is XXH3. The expected values are computed from that definition by hand
// (Python: p = x * m; (p & (2**64 - 1)) ^ (p >> 64)).
TEST(Hashing, MulxIsTwoFoldedProductsAndXxh3ForOtherLengths) {
  EXPECT_EQ(HashU64(1, HashKind::kMulx, 0), 0xC9D874CA57D9E055ULL);  // fold(m1, m2): 1 * m1 has no high half
  EXPECT_EQ(HashU64(0, HashKind::kMulx, 1), 0xC9D874CA57D9E055ULL);  // the seed is XORed into the key
  EXPECT_EQ(HashU64(12345, HashKind::kMulx, 0), 0x372896DA62476D30ULL);
  EXPECT_EQ(HashU64(~uint64_t{0}, HashKind::kMulx, 0), HashU64(0, HashKind::kMulx, ~uint64_t{0}));
  for (std::string_view s : {"", "a", "seven!!", "nine byte", "https://example.com/some/path"}) {
    EXPECT_EQ(HashBytes(s, HashKind::kMulx, 5), HashBytes(s, HashKind::kXxh3, 5)) << s;
  }
  EXPECT_EQ(ParseHash("mulx"), HashKind::kMulx);
  EXPECT_EQ(HashName(HashKind::kMulx), "mulx");
  EXPECT_THROW(HashFromName("mulx64"), std::invalid_argument);
}

// "foldmul" by its definition (blockbloom/hash.h): fold(key ^ seed, m1) * m3
// mod 2^64, m1 mulx's first multiplier; any other length is XXH3. Expected
// values computed by hand from that definition (Python: p = x * m1;
// (((p & (2**64 - 1)) ^ (p >> 64)) * m3) & (2**64 - 1)).
TEST(Hashing, FoldMulIsOneFoldThenOneMultiplyAndXxh3ForOtherLengths) {
  EXPECT_EQ(HashU64(1, HashKind::kFoldMul, 0), 0x9C7EAAC866455929ULL);  // m1 * m3: 1 * m1 has no high half
  EXPECT_EQ(HashU64(0, HashKind::kFoldMul, 1), 0x9C7EAAC866455929ULL);  // the seed is XORed into the key
  EXPECT_EQ(HashU64(12345, HashKind::kFoldMul, 0), 0x6AB2E2D0AA7E2AE0ULL);
  EXPECT_EQ(HashU64((uint64_t{1} << 40) + 7, HashKind::kFoldMul, 99), 0xD6195EAFCE6F5F6DULL);
  for (std::string_view s : {"", "a", "seven!!", "nine byte", "https://example.com/some/path"}) {
    EXPECT_EQ(HashBytes(s, HashKind::kFoldMul, 5), HashBytes(s, HashKind::kXxh3, 5)) << s;
  }
  const uint64_t key = 0x0123456789ABCDEFULL;
  char le[8];
  for (int i = 0; i < 8; ++i) le[i] = static_cast<char>(key >> (8 * i));
  EXPECT_EQ(HashBytes(std::string_view(le, 8), HashKind::kFoldMul, 3), HashU64(key, HashKind::kFoldMul, 3));
  EXPECT_EQ(ParseHash("foldmul"), HashKind::kFoldMul);
  EXPECT_EQ(HashName(HashKind::kFoldMul), "foldmul");
}

// "aes" by its definition (blockbloom/hash.h, kernels/common.h): its round is
// AES's, checked by encrypting FIPS-197's example (appendix C.1, AES-128) with
// it; the kind is three such rounds of (key ^ seed, 8 zero bytes) under pi's
// digits as round keys, its hash the low 8 bytes; any other length is XXH3.
std::array<uint8_t, 16> HexBytes(std::string_view hex) {
  std::array<uint8_t, 16> b{};
  for (size_t i = 0; i < 16; ++i)
    b[i] = static_cast<uint8_t>(std::stoul(std::string(hex.substr(2 * i, 2)), nullptr, 16));
  return b;
}
TEST(Hashing, AesRoundEncryptsFips197Example) {
  using kernels::kAesSbox;
  std::array<uint8_t, 16> s = HexBytes("00112233445566778899aabbccddeeff");
  std::array<uint8_t, 176> w{};  // the expanded key, 11 round keys
  const std::array<uint8_t, 16> key = HexBytes("000102030405060708090a0b0c0d0e0f");
  std::copy(key.begin(), key.end(), w.begin());
  uint8_t rcon = 1;
  for (size_t i = 16; i < w.size(); i += 4) {
    uint8_t t[4] = {w[i - 4], w[i - 3], w[i - 2], w[i - 1]};
    if (i % 16 == 0) {
      const uint8_t t0 = t[0];
      t[0] = static_cast<uint8_t>(kAesSbox[t[1]] ^ rcon);
      t[1] = kAesSbox[t[2]];
      t[2] = kAesSbox[t[3]];
      t[3] = kAesSbox[t0];
      rcon = kernels::AesXtime(rcon);
    }
    for (size_t j = 0; j < 4; ++j) w[i + j] = w[i + j - 16] ^ t[j];
  }
  for (size_t i = 0; i < 16; ++i) s[i] ^= w[i];
  for (size_t round = 1; round < 10; ++round) kernels::AesRoundPortable(s.data(), w.data() + 16 * round);
  std::array<uint8_t, 16> last{};  // the final round: SubBytes, ShiftRows, AddRoundKey
  for (size_t c = 0; c < 4; ++c)
    for (size_t r = 0; r < 4; ++r) last[r + 4 * c] = kAesSbox[s[r + 4 * ((c + r) % 4)]] ^ w[160 + r + 4 * c];
  EXPECT_EQ(last, HexBytes("69c4e0d86a7b0430d8cdb78070b4c55a"));
}
TEST(Hashing, AesIsThreeAesRoundsAndXxh3ForOtherLengths) {
  // Round key r: the 128-bit little-endian integer of pi's fractional hex digits 32r .. 32r + 31.
  const char* const kPiDigits[3] = {"243f6a8885a308d313198a2e03707344", "a4093822299f31d0082efa98ec4e6c89",
                                    "452821e638d01377be5466cf34e90c6c"};
  for (uint64_t seed : {uint64_t{0}, uint64_t{0x9e3779b97f4a7c15}}) {
    for (uint64_t key : {uint64_t{0}, uint64_t{1}, uint64_t{12345}, ~uint64_t{0}, uint64_t{1} << 40}) {
      uint8_t s[16] = {};
      for (int i = 0; i < 8; ++i) s[i] = static_cast<uint8_t>((key ^ seed) >> (8 * i));
      for (const char* digits : kPiDigits) {
        std::array<uint8_t, 16> rk = HexBytes(digits);
        std::reverse(rk.begin(), rk.end());  // big-endian digits -> little-endian bytes
        kernels::AesRoundPortable(s, rk.data());
      }
      uint64_t expect = 0;
      for (int i = 7; i >= 0; --i) expect = (expect << 8) | s[i];
      EXPECT_EQ(HashU64(key, HashKind::kAes, seed), expect) << key << " seed " << seed;
    }
  }
  // Pinned, so that the kind's values cannot drift with the code above (files hold them).
  EXPECT_EQ(HashU64(0, HashKind::kAes, 0), 0x4B428352BD093C85ULL);
  EXPECT_EQ(HashU64(12345, HashKind::kAes, 7), 0xF1414ABA65A43773ULL);
  EXPECT_NE(HashU64(1, HashKind::kAes, 0), HashU64(2, HashKind::kAes, 0));
  for (std::string_view s : {"", "a", "seven!!", "nine byte", "https://example.com/some/path"}) {
    EXPECT_EQ(HashBytes(s, HashKind::kAes, 5), HashBytes(s, HashKind::kXxh3, 5)) << s;
  }
  EXPECT_EQ(ParseHash("aes"), HashKind::kAes);
  EXPECT_EQ(HashName(HashKind::kAes), "aes");
}

TEST_P(EveryLayout, IntegerKeyIsItsLittleEndianBytes) {
  const Layout l = GetParam();
  Filter a = Filter::WithBits(l, 8192, MidK(l));
  Filter b = Filter::WithBits(l, 8192, MidK(l));
  for (uint64_t k : Keys(500, 3)) {
    a.Insert(k);
    char le[8];
    for (int i = 0; i < 8; ++i) le[i] = static_cast<char>(k >> (8 * i));
    b.Insert(std::string_view(le, 8));
  }
  EXPECT_TRUE(a == b);
}

TEST_P(EveryLayout, ConcurrentAtomicInsertsLoseNothing) {
  const Layout l = GetParam();
  const auto keys = Keys(200000, 4);
  Filter shared = Filter::WithBits(l, 2000000, MidK(l));
  Filter serial = shared;
  std::thread t1([&] { shared.InsertBatchAtomic(std::span<const uint64_t>(keys).first(keys.size() / 2)); });
  std::thread t2([&] {
    for (size_t i = keys.size() / 2; i < keys.size(); ++i) shared.InsertAtomic(keys[i]);
  });
  t1.join();
  t2.join();
  serial.InsertBatch(keys);
  EXPECT_TRUE(shared == serial) << "atomic inserts from two threads must set exactly the serial bits";
  EXPECT_EQ(shared.inserted(), keys.size());
}

TEST_P(EveryLayout, UnionIsTheFilterOfTheUnion) {
  const Layout l = GetParam();
  const auto a_keys = Keys(3000, 5), b_keys = Keys(3000, 6);
  Filter a = Filter::WithBits(l, 60000, MidK(l)), b = a, both = a;
  a.InsertBatch(a_keys);
  b.InsertBatch(b_keys);
  both.InsertBatch(a_keys);
  both.InsertBatch(b_keys);
  a.UnionWith(b);
  EXPECT_TRUE(a == both);
  Filter other_k = Filter::WithBits(l, 60000, LayoutMinK(l) == LayoutMaxK(l) ? MidK(l) : LayoutMinK(l));
  Filter other_seed = Filter::WithBits(l, 60000, MidK(l), HashKind::kXxh3, 99);
  std::string why;
  EXPECT_FALSE(a.CompatibleWith(other_seed, &why));
  EXPECT_NE(why.find("seed"), std::string::npos) << why;
  EXPECT_THROW(a.UnionWith(other_seed), std::invalid_argument);
  if (other_k.k() != a.k()) {
    EXPECT_FALSE(a.CompatibleWith(other_k, &why));
    EXPECT_NE(why.find("k differs"), std::string::npos) << why;
  }
}

TEST_P(EveryLayout, CopyMoveAndClear) {
  const Layout l = GetParam();
  Filter a = Filter::WithBits(l, 1 << 22, MidK(l));  // 512 KiB: heap
  Filter big = Filter::WithBits(l, uint64_t{1} << 25, MidK(l));  // 4 MiB: huge-page mapping
  for (Filter* f : {&a, &big}) {
    f->InsertBatch(Keys(1000, 7));
    Filter copy = *f;
    EXPECT_TRUE(copy == *f);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(copy.data()) % 64, 0u);
    Filter moved = std::move(copy);
    EXPECT_TRUE(moved == *f);
    moved.Clear();
    EXPECT_EQ(moved.PopCount(), 0u);
    EXPECT_EQ(moved.inserted(), 0u);
    EXPECT_GT(f->PopCount(), 0u);
  }
}

// A moved-from filter is the empty filter: it answers false, refuses writes
// with a clear error and becomes whole again when assigned to.
TEST_P(EveryLayout, MovedFromIsTheEmptyFilter) {
  const Layout l = GetParam();
  Filter a = Filter::WithBits(l, 1 << 16, MidK(l));
  const auto keys = Keys(2000, 8);
  a.InsertBatch(keys);
  Filter b = std::move(a);
  EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(a.num_blocks(), 0u);
  EXPECT_EQ(a.byte_size(), 0u);
  EXPECT_EQ(a.PopCount(), 0u);
  EXPECT_EQ(a.FillRatio(), 0.0);
  std::vector<uint8_t> out(keys.size(), 7);
  EXPECT_EQ(a.MayContainBatch(keys, out), 0u);
  for (uint8_t o : out) ASSERT_EQ(o, 0);
  for (uint64_t k : keys) ASSERT_FALSE(a.MayContain(k));
  EXPECT_FALSE(a.MayContain(std::string_view("x")));
  EXPECT_THROW(a.Insert(uint64_t{1}), std::logic_error);
  EXPECT_THROW(a.InsertBatch(keys), std::logic_error);
  EXPECT_THROW(a.AddInserted(1), std::logic_error);
  EXPECT_EQ(a.inserted(), 0u);
  EXPECT_THROW(a.UnionWith(b), std::logic_error);
  Filter copy_of_empty = a;
  EXPECT_TRUE(copy_of_empty.empty());
  a = b;
  EXPECT_TRUE(a == b);
  EXPECT_EQ(a.MayContainBatch(keys, out), keys.size());
  Filter defaulted;
  EXPECT_TRUE(defaulted.empty());
  EXPECT_FALSE(defaulted.MayContain(uint64_t{42}));
}

// A FilterView is copied, never assigned (view.h): a FilterView& may name a
// Filter, and `FilterView& v = f; v = g;` would re-seat f onto g's payload (f's
// leaked, g's freed twice). The bad forms do not compile; the good ones do.
static_assert(!std::is_assignable_v<FilterView&, const Filter&>);
static_assert(!std::is_assignable_v<FilterView&, Filter&>);
static_assert(!std::is_assignable_v<FilterView&, Filter&&>);
static_assert(!std::is_assignable_v<FilterView&, const FilterView&>);
static_assert(!std::is_assignable_v<FilterView&, FilterView&&>);
static_assert(std::is_copy_constructible_v<FilterView>);
static_assert(std::is_constructible_v<FilterView, const Filter&>);  // a non-owning copy
static_assert(!std::is_constructible_v<FilterView, Filter&&>);      // would dangle at once
static_assert(std::is_copy_assignable_v<Filter> && std::is_nothrow_move_assignable_v<Filter>);

// Filter's own assignments still re-seat the whole filter: each owns its payload.
TEST(FilterAssign, CopyAndMoveAssignmentKeepOnePayloadEach) {
  Filter f = Filter::WithBlocks(Layout::kBlocked512, 4, 6);
  Filter g = Filter::WithBlocks(Layout::kSplit256, 8, 8);
  g.Insert(uint64_t{7});
  f = g;
  EXPECT_TRUE(f == g);
  EXPECT_NE(f.data(), g.data());
  Filter h = Filter::WithBlocks(Layout::kClassic, 1000, 3);
  h = std::move(g);
  EXPECT_TRUE(h == f);
  EXPECT_TRUE(g.empty());  // NOLINT(bugprone-use-after-move)
  const FilterView v = h;  // slices to the non-owning view: safe
  EXPECT_EQ(v.data(), h.data());
}

// One function serves every filter: it takes the view.
size_t CountHits(const FilterView& f, std::span<const uint64_t> keys) {
  std::vector<uint8_t> out(keys.size());
  return f.MayContainBatch(keys, out);
}

TEST_P(EveryLayout, ViewAnswersAsTheFilter) {
  const Layout l = GetParam();
  Filter f = Filter::WithBits(l, 1 << 16, MidK(l));
  f.InsertBatch(Keys(3000, 9));
  const FilterView v = f.view();
  const auto probes = Keys(5000, 10);
  EXPECT_EQ(CountHits(f, probes), CountHits(v, probes));
  for (uint64_t p : probes) ASSERT_EQ(v.MayContain(p), f.MayContain(p));
  EXPECT_EQ(v.PopCount(), f.PopCount());
  EXPECT_EQ(v.inserted(), 3000u);
  EXPECT_TRUE(v == f);
  const Filter copy = Filter::CopyOf(v);
  EXPECT_TRUE(copy == f);
  EXPECT_EQ(copy.inserted(), 3000u);
}

// The atomic query forms answer as the plain ones.
TEST_P(EveryLayout, AtomicQueriesAnswerAsPlainOnes) {
  const Layout l = GetParam();
  Filter f = Filter::WithBits(l, 1 << 15, MidK(l));
  f.InsertBatch(Keys(2000, 11));
  const auto probes = Keys(4000, 12);
  std::vector<uint8_t> plain(probes.size()), atomic(probes.size());
  EXPECT_EQ(f.MayContainBatch(probes, plain), f.MayContainBatchAtomic(probes, atomic));
  EXPECT_EQ(plain, atomic);
  for (size_t i = 0; i < probes.size(); ++i) ASSERT_EQ(f.MayContainAtomic(probes[i]), plain[i] != 0);
}

TEST(FilterCounts, InsertedCountsAddInUnions) {
  Filter a = Filter::WithBits(Layout::kBlocked512, 4096, 6);
  Filter b = a;
  a.InsertBatch(Keys(10, 13));
  for (int i = 0; i < 3; ++i) {
    Filter c = a;
    a.UnionWith(c);  // doubles the count
  }
  EXPECT_EQ(a.inserted(), 80u);
  b.UnionWith(a);
  EXPECT_EQ(b.inserted(), 80u);
}

TEST_P(EveryLayout, ForKeysMeetsTheModel) {
  const Layout l = GetParam();
  Filter f = Filter::ForKeys(l, 100000, 0.01);
  EXPECT_LE(PredictFpr(l, f.num_blocks(), f.k(), 100000), 0.01);
  // The smallest such filter: one block fewer (classic: one bit) misses the target.
  EXPECT_GT(PredictFpr(l, f.num_blocks() - 1, f.k(), 100000), 0.01);
}

INSTANTIATE_TEST_SUITE_P(Layouts, EveryLayout, ::testing::ValuesIn(kAllLayouts),
                         [](const auto& p) { return std::string(LayoutName(p.param)); });

// ---- Errors name the parameter, the value and the range ---------------------
std::string Message(auto&& fn) {
  try {
    fn();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no exception)";
}

TEST(FilterErrors, NameParameterValueAndRange) {
  EXPECT_EQ(Message([] { Filter::WithBits(Layout::kBlocked512, 1024, 17); }),
            "blockbloom: k = 17 is out of range for layout blocked512: expected 1..16");
  EXPECT_EQ(Message([] { Filter::WithBits(Layout::kSectorized512, 1024, 3); }),
            "blockbloom: k = 3 is out of range for layout sectorized512: expected 1, 2, 4, 8 or 16");
  EXPECT_EQ(Message([] { Filter::WithBits(Layout::kSplit256, 1024, 7); }),
            "blockbloom: k = 7 is out of range for layout split256: expected 8");
  EXPECT_EQ(Message([] { Filter::WithBits(Layout::kRegister64, 0, 3); }),
            "blockbloom: bits = 0 is out of range for layout register64: expected 1..274877906944");
  EXPECT_EQ(Message([] { Filter::WithBytes(Layout::kClassic, 0, 3); }),
            "blockbloom: bytes = 0 is out of range for layout classic: expected 1..137438953472");
  EXPECT_NE(Message([] { Filter::WithBits(Layout::kBlocked512, uint64_t{1} << 60, 6); }).find("bits = "),
            std::string::npos);
  EXPECT_NE(Message([] { Filter::WithBlocks(Layout::kBlocked512, 0, 6); }).find("number of blocks = 0 is out of range"),
            std::string::npos);
  EXPECT_NE(Message([] { Filter::ForKeys(Layout::kBlocked512, 0, 0.01); }).find("expected keys = 0"),
            std::string::npos);
  for (double bad : {0.0, 1.0, -0.5, 2.0}) {
    EXPECT_NE(Message([&] { Filter::ForKeys(Layout::kBlocked512, 100, bad); }).find("false-positive rate"),
              std::string::npos)
        << bad;
  }
  Filter f = Filter::WithBits(Layout::kBlocked512, 4096, 6);
  std::vector<uint64_t> keys(10);
  std::vector<uint8_t> out(9);
  EXPECT_NE(Message([&] { f.MayContainBatch(keys, out); }).find("out.size() = 9 is too small"), std::string::npos);
}

// ---- Golden schema ---------------------------------------------------------------
// Pins the bytes of one filter per layout built from fixed keys. If this fails,
// the bit layout changed: every filter ever saved would answer wrongly. Only
// change it on purpose: bump the file format version (engine/include/blockbloom/
// format.h), then paste the new values printed by the failure here.
TEST(GoldenSchema, FilterBytesArePinned) {
  struct Golden {
    Layout layout;
    uint32_t k;
    uint64_t payload_xxh3;
  };
  const Golden golden[] = {
      {Layout::kBlocked512, 6, 0x95a8a904b1ea5a0c},
      {Layout::kBlocked512, 16, 0xc8847d17f8996a81},
      {Layout::kSplit256, 8, 0x8630db15aaa72615},
      {Layout::kSectorized512, 8, 0x0a4c7d09a0961fdd},
      {Layout::kSectorized512, 2, 0xe77df44ac1aa5ed1},
      {Layout::kRegister64, 5, 0xe0622d79387429b8},
      {Layout::kClassic, 7, 0xdd9f0b9533d7de95},
      {Layout::kSplit512, 8, 0x4bd28b0370f1ec1f},
  };
  // The line of the table for one filter, with the bytes it has now.
  const auto line_for = [](Layout layout, uint32_t k) {
    Filter f = Filter::WithBits(layout, 1 << 14, k, HashKind::kXxh3, 0x5eed);
    for (uint64_t i = 0; i < 1000; ++i) f.Insert(i);
    for (uint64_t i = 0; i < 200; ++i) f.Insert(std::string_view("key-" + std::to_string(i)));
    const uint64_t got = XXH3_64bits(f.data(), f.byte_size());
    char line[160];
    std::string name(LayoutName(layout));
    name[0] = static_cast<char>(name[0] - 'a' + 'A');  // blocked512 -> kBlocked512
    std::snprintf(line, sizeof line, "      {Layout::k%s, %u, 0x%016llx},\n", name.c_str(), k,
                  static_cast<unsigned long long>(got));
    return std::make_pair(got, std::string(line));
  };
  // Every layout has its entry (a new layout must add one: "Adding a layout"); the failure prints
  // the line to paste, at the layout's largest k.
  for (Layout l : kAllLayouts) {
    EXPECT_TRUE(std::any_of(std::begin(golden), std::end(golden), [&](const Golden& g) { return g.layout == l; }))
        << LayoutName(l) << " has no golden entry. Paste into the table above:\n"
        << line_for(l, LayoutMaxK(l)).second;
  }
  std::string fresh;
  bool ok = true;
  for (const Golden& g : golden) {
    const auto [got, line] = line_for(g.layout, g.k);
    fresh += line;
    ok &= got == g.payload_xxh3;
  }
  EXPECT_TRUE(ok) << "the bit layout changed. If on purpose, bump kFormatVersion and paste:\n" << fresh;
}

}  // namespace
}  // namespace blockbloom
