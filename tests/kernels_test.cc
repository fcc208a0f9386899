// SPDX-License-Identifier: Apache-2.0
// Every compiled target against the scalar reference: filter bytes and
// answers, for every layout and every supported k, over batch sizes 0, 1,
// lane count +-1, odd and large, from misaligned starts; and the XXH3 kernel
// against libxxhash. Each target is its own test case (Kernels/avx2, ...);
// targets this CPU cannot run are skipped, not passed.
#include <gtest/gtest.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "blockbloom/targets.h"
#include "blockbloom/filter.h"
#include "kernels/kernels.h"
#include "kernels/common.h"
#include "kernels/reference.h"

namespace blockbloom {
namespace {

using kernels::FilterRef;
using kernels::Ops;

std::vector<uint64_t> RandomKeys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// A zeroed 64-byte aligned payload for `num_blocks` blocks.
struct Payload {
  Layout layout;
  uint64_t num_blocks;
  uint32_t k;
  std::vector<uint8_t, std::allocator<uint8_t>> storage;
  uint8_t* bits;

  Payload(Layout l, uint64_t nb, uint32_t kk) : layout(l), num_blocks(nb), k(kk) {
    storage.assign(kernels::PayloadBytes(l, nb) + 64, 0);
    bits = storage.data() + (64 - reinterpret_cast<uintptr_t>(storage.data()) % 64) % 64;
  }
  FilterRef Ref() { return {bits, num_blocks, k, layout}; }
  size_t Bytes() const { return kernels::PayloadBytes(layout, num_blocks); }
};

std::vector<uint32_t> Ks(Layout l) {
  std::vector<uint32_t> ks;
  for (uint32_t k = LayoutMinK(l); k <= LayoutMaxK(l); ++k) {
    if (LayoutAcceptsK(l, k)) ks.push_back(k);
  }
  return ks;
}

// The payloads of a sweep over kSizes at one filter size (the ring tests below), a case
// per batch. A small filter (97 blocks) is zeroed for each case, as it would fill up, and its
// bytes are compared after it. A prefetching one (1-10 MiB, by this CPU's caches) is zeroed
// once and the cases pile up in it, each inserting inputs of its own (16k in all: it stays
// sparse, so an input skipped or misplaced still changes its bytes): a case checks that the
// reference finds each of its hashes in the kernel's bytes (a skipped or misplaced one fails
// there) and Finish() compares the bytes once (stray bits). Comparing megabytes after each
// case was most of these tests' time under qemu (CI's ARM stage: milliseconds a comparison,
// FusedKeysEqualHashThenProbe 13 s a target against 2 s now).
class SweepPayloads {
 public:
  SweepPayloads(Layout l, uint64_t num_blocks, uint32_t k)
      : piled_(num_blocks != 97), ref_(l, num_blocks, k), got_(l, num_blocks, k) {}
  // Starts a case of n inputs; returns the index of its first one: the second input for a
  // small filter (a batch need not start aligned), the one after the last case's if piled.
  size_t Begin(size_t n) {
    if (!piled_) {
      std::memset(ref_.bits, 0, ref_.Bytes());
      std::memset(got_.bits, 0, got_.Bytes());
      return 1;
    }
    const size_t first = next_;
    next_ += n;
    return first;
  }
  Payload& ref() { return ref_; }
  Payload& got() { return got_; }
  // After a case's inserts of in[0, n), whose hashes hash(in[i]) the reference inserted.
  template <class Hash>
  ::testing::AssertionResult CaseMatches(const uint64_t* in, size_t n, Hash hash) {
    if (!piled_) return Finish();
    for (size_t i = 0; i < n; ++i) {
      if (!kernels::reference::QueryHash(got_.Ref(), hash(in[i])))
        return ::testing::AssertionFailure() << "input " << i << " of the batch is not where the reference looks";
    }
    return ::testing::AssertionSuccess();
  }
  ::testing::AssertionResult Finish() {
    if (std::memcmp(ref_.bits, got_.bits, ref_.Bytes()) == 0) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "bytes differ from the reference's";
  }

 private:
  bool piled_;
  Payload ref_, got_;
  size_t next_ = 1;  // piled: the inputs of the cases so far are [1, next_)
};

class Kernels : public ::testing::TestWithParam<const Ops*> {
 protected:
  void SetUp() override {
    if (!kernels::Supported(*GetParam())) GTEST_SKIP() << "this CPU cannot run " << GetParam()->name;
  }
  const Ops& ops() const { return *GetParam(); }
};

// Sizes that straddle every lane count (1..16 u32 lanes, 1..8 u64), the
// engine's hash chunk (512), the kernels' look-ahead (avx2: 64, the other
// targets: 128) plus one and two 8-key steps (kernels/pipeline-inl.h: 72, 80;
// 136, 144) and the avx2 ring (256).
const size_t kSizes[] = {0,   1,   2,   3,   4,   5,   7,   8,   9,   15,  16,  17,  31,  33,  63,   64,  65,
                         71,  72,  73,  79,  80,  81,  127, 128, 129, 135, 136, 137, 143, 144, 145,  255, 256,
                         257, 511, 512, 513, 1000, 4099};

// A block count whose payload (>= 1 MiB) is above the kernels' prefetch
// thresholds of the layout (kernels::PrefetchMinBytes, for inserts and
// queries on every target), so its batches take the prefetching path.
uint64_t PrefetchingBlocks(Layout l) {
  uint64_t bytes = uint64_t{1} << 20;
  for (bool insert : {false, true})
    for (bool avx512 : {false, true}) bytes = std::max(bytes, kernels::PrefetchMinBytes(l, insert, avx512));
  const uint64_t bits = 8 * bytes + 512 + 13;
  const uint64_t blocks = l == Layout::kClassic ? bits : bits / LayoutBlockBits(l);
  EXPECT_GE(LayoutPayloadBytes(l, blocks), bytes) << LayoutName(l);
  return blocks;
}

// Whatever this CPU's caches, a filter of 10M keys (12.5 MB at 10 bits a key)
// prefetches in every batch: each threshold stays at or below 10 MiB.
TEST(PrefetchThreshold, AtMostTenMiBForEveryLayoutAndOp) {
  for (Layout l : kAllLayouts) {
    for (bool insert : {false, true}) {
      for (bool avx512 : {false, true}) {
        EXPECT_LE(kernels::PrefetchMinBytes(l, insert, avx512), uint64_t{10} << 20)
            << LayoutName(l) << " insert=" << insert << " avx512=" << avx512;
      }
    }
  }
}

// The bench's sweep overrides the thresholds (kernels::SetPrefetchPolicy);
// kAuto, the library's only policy, compares the payload with the threshold.

TEST(PrefetchThreshold, PolicyOverridesTheThresholdUntilAutoAgain) {
  EXPECT_FALSE(kernels::ShouldPrefetch(1000, 1001));
  EXPECT_TRUE(kernels::ShouldPrefetch(1001, 1001));
  {
    kernels::ScopedPrefetchPolicy always(kernels::PrefetchPolicy::kAlways);
    EXPECT_TRUE(kernels::ShouldPrefetch(0, 1001));
  }
  {
    kernels::ScopedPrefetchPolicy never(kernels::PrefetchPolicy::kNever);
    EXPECT_FALSE(kernels::ShouldPrefetch(uint64_t{1} << 40, 0));
  }
  EXPECT_TRUE(kernels::ShouldPrefetch(1001, 1001));
}

// Where batches prefetch (into the L1 on Zen 5 and, within the L2, on the
// Sapphire Rapids class; else the L2) is the CPU's rule under kAuto; the
// tests' and the bench's override wins, at every size, until kAuto.
TEST(PrefetchThreshold, LevelOverridesTheCpuRuleUntilAutoAgain) {
  const uint64_t sizes[] = {0, uint64_t{1} << 20, uint64_t{1} << 30};
  bool cpu[3];
  for (int i = 0; i < 3; ++i) cpu[i] = kernels::PrefetchToL1(sizes[i]);
  // A rule by size never sends a larger filter's lines nearer than a smaller one's.
  EXPECT_GE(cpu[0], cpu[1]);
  EXPECT_GE(cpu[1], cpu[2]);
  {
    kernels::ScopedPrefetchLevel l1(kernels::PrefetchLevel::kL1);
    for (uint64_t b : sizes) EXPECT_TRUE(kernels::PrefetchToL1(b)) << b;
  }
  {
    kernels::ScopedPrefetchLevel l2(kernels::PrefetchLevel::kL2);
    for (uint64_t b : sizes) EXPECT_FALSE(kernels::PrefetchToL1(b)) << b;
  }
  for (int i = 0; i < 3; ++i) EXPECT_EQ(kernels::PrefetchToL1(sizes[i]), cpu[i]) << sizes[i];
}

// keys[0, n) inserted into a layout-l filter of num_blocks blocks by the batch
// kernels, keys and their hashes, against the reference's bytes; then
// keys[0, 2n) queried (the first n present) against the reference's answers.
void ExpectBatchesMatchReference(const Ops& ops, Layout l, uint64_t num_blocks, uint32_t k, HashKind kind,
                                 const std::vector<uint64_t>& keys, size_t n, const std::string& what) {
  ASSERT_GE(keys.size(), 2 * n);
  const uint64_t c = kernels::KeyHashConstant(kind, 5);
  Payload ref(l, num_blocks, k), got(l, num_blocks, k), got_h(l, num_blocks, k);
  std::vector<uint64_t> hashes(n);
  for (size_t i = 0; i < n; ++i) {
    hashes[i] = kernels::HashU64WithConstant(keys[i], kind, c);
    kernels::reference::InsertHash(ref.Ref(), hashes[i]);
  }
  ops.insert_keys(got.Ref(), keys.data(), n, 5, kind);
  ops.insert_hashes_ahead(got_h.Ref(), hashes.data(), n, nullptr, 0);
  ASSERT_EQ(0, std::memcmp(ref.bits, got.bits, ref.Bytes())) << what;
  ASSERT_EQ(0, std::memcmp(ref.bits, got_h.bits, ref.Bytes())) << what;
  std::vector<uint8_t> out(2 * n), out_h(2 * n);
  const size_t hits = ops.query_keys(got.Ref(), keys.data(), 2 * n, 5, kind, out.data());
  std::vector<uint64_t> probe_hashes(2 * n);
  for (size_t i = 0; i < 2 * n; ++i) probe_hashes[i] = kernels::HashU64WithConstant(keys[i], kind, c);
  const size_t hits_h = ops.query_hashes(got.Ref(), probe_hashes.data(), 2 * n, out_h.data());
  size_t expect = 0;
  for (size_t i = 0; i < 2 * n; ++i) {
    const bool want = kernels::reference::QueryHash(ref.Ref(), probe_hashes[i]);
    ASSERT_EQ(out[i], want ? 1 : 0) << what << " i=" << i;
    ASSERT_EQ(out_h[i], want ? 1 : 0) << what << " (hashes) i=" << i;
    expect += want;
  }
  EXPECT_EQ(hits, expect) << what;
  EXPECT_EQ(hits_h, expect) << what << " (hashes)";
  EXPECT_GE(expect, n) << what << ": every inserted key is found";
}

// Prefetch forced on a cache-sized filter (into the L2 and into the L1, so
// both forms run on every CPU) and off a prefetching one: every layout's
// batches (keys through the fused hash, and hashes) still write and answer
// exactly what the reference does, so the sweep's rows with and without
// prefetch time the same work.
TEST_P(Kernels, PrefetchPolicyChangesNoByteNorAnswer) {
  const auto keys = RandomKeys(8000, 12);
  struct Case {
    kernels::PrefetchPolicy policy;
    kernels::PrefetchLevel level;
    const char* name;
  };
  for (const Case& c : {Case{kernels::PrefetchPolicy::kAlways, kernels::PrefetchLevel::kL2, " always L2"},
                        Case{kernels::PrefetchPolicy::kAlways, kernels::PrefetchLevel::kL1, " always L1"},
                        Case{kernels::PrefetchPolicy::kNever, kernels::PrefetchLevel::kAuto, " never"}}) {
    kernels::ScopedPrefetchPolicy guard(c.policy);
    kernels::ScopedPrefetchLevel level(c.level);
    for (Layout l : kAllLayouts) {
      const uint32_t k = Ks(l)[Ks(l).size() / 2];
      for (uint64_t num_blocks : {uint64_t{97}, PrefetchingBlocks(l)}) {
        for (HashKind kind : {HashKind::kXxh3, HashKind::kAes}) {
          ExpectBatchesMatchReference(ops(), l, num_blocks, k, kind, keys, 3000,
                                      std::string(LayoutName(l)) + " " + std::string(HashName(kind)) +
                                          " blocks=" + std::to_string(num_blocks) + c.name);
        }
      }
    }
  }
}

// A filter beyond the caches (kernels::FarMinBytes: 16-64 MiB) takes a
// probe's far form where it has one (split512, and sectorized512 at every k:
// their lines as two halves on AVX-512), and its batches compute each line's
// address from the hash, with no ring of addresses (every blocked layout:
// RunBatch's `direct`, kernels/pipeline-inl.h); its batches write and answer
// what the reference does, keys hashed in vectors (xxh3, aes) and by calls
// (foldmul), and hashes. Plain inserts take the far form from
// FarInsertMinBytes on (512 KiB on Zen 5, where the queries there keep the
// line at once): that size too. Only the blocked layouts: a 16-64 MiB filter each.
TEST_P(Kernels, FarFiltersMatchReference) {
  const auto keys = RandomKeys(6000, 13);
  const std::pair<Layout, uint32_t> cases[] = {{Layout::kSplit512, 8},      {Layout::kSectorized512, 1},
                                               {Layout::kSectorized512, 2}, {Layout::kSectorized512, 4},
                                               {Layout::kSectorized512, 8}, {Layout::kSectorized512, 16},
                                               {Layout::kSplit256, 8},      {Layout::kRegister64, 6},
                                               {Layout::kBlocked512, 7}};
  std::vector<uint64_t> thresholds = {kernels::FarMinBytes()};
  if (kernels::FarInsertMinBytes() != kernels::FarMinBytes()) thresholds.push_back(kernels::FarInsertMinBytes());
  for (uint64_t min_bytes : thresholds) {
    for (const auto& [l, k] : cases) {
      const uint64_t num_blocks = min_bytes / (LayoutBlockBits(l) / 8) + 3;
      ASSERT_GE(LayoutPayloadBytes(l, num_blocks), min_bytes);
      for (HashKind kind : {HashKind::kXxh3, HashKind::kAes, HashKind::kFoldMul})
        ExpectBatchesMatchReference(ops(), l, num_blocks, k, kind, keys, 3000,
                                    std::string(LayoutName(l)) + " k=" + std::to_string(k) + " " +
                                        std::string(HashName(kind)) + " bytes>=" + std::to_string(min_bytes));
    }
  }
}

// Plain inserts never take the far form later than queries do, and on Zen 5
// take it from the default prefetch threshold (kernels/kernels.cc).
TEST(KernelsPolicy, FarInsertThresholdIsTheL3OrTheDefaultPrefetchOne) {
  const uint64_t far = kernels::FarMinBytes(), far_insert = kernels::FarInsertMinBytes();
  EXPECT_GE(far, uint64_t{16} << 20);
  EXPECT_LE(far, uint64_t{64} << 20);
  EXPECT_TRUE(far_insert == far || far_insert == kernels::kPrefetchMinBytes) << far_insert;
}

TEST_P(Kernels, HashMatchesLibxxhash) {
  const auto keys = RandomKeys(4099, 1);
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15}, ~uint64_t{0}}) {
    for (size_t n : kSizes) {
      for (size_t offset : {0, 1, 3}) {  // misaligned starts
        if (offset + n > keys.size()) continue;
        std::vector<uint64_t> out(n + 1, 0xdeadbeef);
        ops().hash_u64(keys.data() + offset, n, seed, HashKind::kXxh3, out.data());
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(out[i], XXH3_64bits_withSeed(&keys[offset + i], 8, seed))
              << "n=" << n << " i=" << i << " seed=" << seed;
        }
        EXPECT_EQ(out[n], 0xdeadbeefu) << "wrote past the end, n=" << n;
      }
    }
  }
  // In place.
  auto inplace = keys;
  ops().hash_u64(inplace.data(), inplace.size(), 7, HashKind::kXxh3, inplace.data());
  for (size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(inplace[i], XXH3_64bits_withSeed(&keys[i], 8, 7));
}

// Every kind (XXH3 in vectors, "aes" with the CPU's AES instructions where
// this target has them): the plain C++ definitions of kernels/common.h.
TEST_P(Kernels, HashOfEveryKindMatchesReference) {
  const auto keys = RandomKeys(4099 + 1, 3);  // the largest of kSizes, read from the second key on
  for (HashKind kind : kHashKinds) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{99}, ~uint64_t{0}}) {
      const uint64_t c = kernels::KeyHashConstant(kind, seed);
      for (size_t n : kSizes) {
        std::vector<uint64_t> out(n + 1, 0xdeadbeef);
        ops().hash_u64(keys.data() + 1, n, seed, kind, out.data());
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(out[i], kernels::HashU64WithConstant(keys[i + 1], kind, c)) << HashName(kind) << " i=" << i;
        EXPECT_EQ(out[n], 0xdeadbeefu) << "wrote past the end, n=" << n;
      }
    }
  }
}

TEST_P(Kernels, ReferenceHashMatchesLibxxhash) {
  for (uint64_t key : RandomKeys(1000, 2)) {
    for (uint64_t seed : {uint64_t{0}, uint64_t{42}, key}) {
      ASSERT_EQ(kernels::reference::HashU64(key, seed), XXH3_64bits_withSeed(&key, 8, seed));
    }
  }
}

// Insert with the target, compare bytes with the reference; query present and
// absent hashes and compare answers.
TEST_P(Kernels, EveryLayoutEveryKMatchesReference) {
  const auto hashes = RandomKeys(4099 + 8, 3);
  const auto probes = RandomKeys(4099 + 8, 4);
  for (Layout l : kAllLayouts) {
    // Small enough that batches collide in blocks, large enough for many blocks.
    const uint64_t num_blocks = l == Layout::kClassic ? 20011 : 313;
    for (uint32_t k : Ks(l)) {
      for (size_t n : {size_t{0}, size_t{1}, size_t{9}, size_t{17}, size_t{513}, size_t{4099}}) {
        for (size_t offset : {0, 1}) {
          Payload ref(l, num_blocks, k), got(l, num_blocks, k);
          const uint64_t* h = hashes.data() + offset;
          for (size_t i = 0; i < n; ++i) kernels::reference::InsertHash(ref.Ref(), h[i]);
          ops().insert_hashes(got.Ref(), h, n);
          ASSERT_EQ(0, std::memcmp(ref.bits, got.bits, ref.Bytes()))
              << "layout " << int(l) << " k=" << k << " n=" << n << " offset=" << offset;
          std::vector<uint8_t> out(n + 8, 7);
          const size_t hits = ops().query_hashes(got.Ref(), probes.data() + offset, n, out.data());
          size_t expect_hits = 0;
          for (size_t i = 0; i < n; ++i) {
            const bool want = kernels::reference::QueryHash(ref.Ref(), probes[offset + i]);
            ASSERT_EQ(out[i], want ? 1 : 0) << "layout " << int(l) << " k=" << k << " i=" << i;
            expect_hits += want;
          }
          EXPECT_EQ(hits, expect_hits);
          EXPECT_EQ(out[n], 7) << "wrote past the end";
          // No false negatives.
          std::vector<uint8_t> present(n + 1);
          EXPECT_EQ(ops().query_hashes(got.Ref(), h, n, present.data()), n);
        }
      }
    }
  }
}

// On a cache-resident filter and on one large enough for the prefetching key
// pipeline, whose ring boundaries kSizes straddles: the look-ahead (64 or 128), a
// step (8) on either side of it, the keys' own prefetch (512 ahead). Every
// hash kind: XXH3 hashes in vectors, the others key by key in the same steps.
TEST_P(Kernels, FusedKeysEqualHashThenProbe) {
  // Inserted keys from the front (1 + 18852: kSizes twice), probes from kProbes on.
  constexpr size_t kProbes = 20000;
  const auto keys = RandomKeys(kProbes + 4099, 5);
  for (HashKind kind : kHashKinds) {
  for (Layout l : kAllLayouts) {
    const uint32_t k = Ks(l)[Ks(l).size() / 2];
    for (uint64_t num_blocks : {uint64_t{97}, PrefetchingBlocks(l)}) {
      SweepPayloads sweep(l, num_blocks, k);
      for (size_t n : kSizes) {
        for (uint64_t seed : {uint64_t{0}, uint64_t{99}}) {
          // The reference hash, in plain C++ (kernels/common.h; blockbloom::HashU64 may call
          // the kernels, for "aes"), the one the files promise.
          auto hash = [&](uint64_t key) {
            return kernels::HashU64WithConstant(key, kind, kernels::KeyHashConstant(kind, seed));
          };
          const uint64_t* inserted = keys.data() + sweep.Begin(n);
          Payload& ref = sweep.ref();
          Payload& got = sweep.got();
          // (Guards kSizes against growing into the probes: the inserted keys end before kProbes.)
          ASSERT_LE(inserted + n, keys.data() + kProbes);
          for (size_t i = 0; i < n; ++i) kernels::reference::InsertHash(ref.Ref(), hash(inserted[i]));
          ops().insert_keys(got.Ref(), inserted, n, seed, kind);
          ASSERT_TRUE(sweep.CaseMatches(inserted, n, hash))
              << "hash " << blockbloom::HashName(kind) << " layout " << int(l) << " blocks=" << num_blocks << " n=" << n;
          std::vector<uint8_t> out(n + 1, 9);
          const size_t hits = ops().query_keys(got.Ref(), keys.data() + kProbes, n, seed, kind, out.data());
          size_t expect = 0;
          for (size_t i = 0; i < n; ++i) {
            const bool want = kernels::reference::QueryHash(ref.Ref(), hash(keys[kProbes + i]));
            ASSERT_EQ(out[i], want ? 1 : 0)
                << "hash " << blockbloom::HashName(kind) << " layout " << int(l) << " blocks=" << num_blocks << " n=" << n;
            expect += want;
          }
          EXPECT_EQ(hits, expect);
          EXPECT_EQ(out[n], 9);
        }
      }
      ASSERT_TRUE(sweep.Finish()) << "hash " << blockbloom::HashName(kind) << " layout " << int(l)
                                  << " blocks=" << num_blocks;
    }
  }
  }
}

// Precomputed hashes take the same ring of steps as keys (block addresses a
// step ahead, kernels/pipeline-inl.h RunRing), each batch told about the hashes
// of the call after it: the same bytes and answers as the reference at the
// ring's boundaries, cache-resident and prefetching, every layout.
TEST_P(Kernels, HashBatchesMatchReferenceAtRingBoundaries) {
  const auto hashes = RandomKeys(20000, 11);
  const uint64_t* probes = hashes.data() + hashes.size() / 2;
  for (Layout l : kAllLayouts) {
    const uint32_t k = Ks(l)[Ks(l).size() / 2];
    for (uint64_t num_blocks : {uint64_t{97}, PrefetchingBlocks(l)}) {
      SweepPayloads sweep(l, num_blocks, k);
      for (size_t n : kSizes) {
        const size_t nnext = 300;
        const uint64_t* inserted = hashes.data() + sweep.Begin(n);
        Payload& ref = sweep.ref();
        Payload& got = sweep.got();
        ASSERT_LE(inserted + n + nnext, probes);  // kSizes stays clear of the probes
        for (size_t i = 0; i < n; ++i) kernels::reference::InsertHash(ref.Ref(), inserted[i]);
        ops().insert_hashes_ahead(got.Ref(), inserted, n, inserted + n, nnext);
        ASSERT_TRUE(sweep.CaseMatches(inserted, n, [](uint64_t h) { return h; }))
            << "layout " << int(l) << " blocks=" << num_blocks << " n=" << n;
        std::vector<uint8_t> out(n + 1, 9);
        const size_t hits = ops().query_hashes_ahead(got.Ref(), probes, n, probes + n, nnext, out.data());
        size_t expect = 0;
        for (size_t i = 0; i < n; ++i) {
          const bool want = kernels::reference::QueryHash(ref.Ref(), probes[i]);
          ASSERT_EQ(out[i], want ? 1 : 0) << "layout " << int(l) << " blocks=" << num_blocks << " n=" << n;
          expect += want;
        }
        EXPECT_EQ(hits, expect);
        EXPECT_EQ(out[n], 9);
      }
      ASSERT_TRUE(sweep.Finish()) << "layout " << int(l) << " blocks=" << num_blocks;
    }
  }
}

// Atomic inserts write the reference's bytes for every k: the probes that OR
// whole u64 words (kAtomicByWord64: split256, sectorized512 at k = 8 and 16,
// register64) as well as those that keep the reference's per-word ORs; a
// second pass of the same keys (every word already holding its bits, so no
// OR at all) changes nothing.
TEST_P(Kernels, AtomicInsertsMatchReferenceForEveryK) {
  const auto hashes = RandomKeys(3000, 10);
  for (Layout l : kAllLayouts) {
    for (uint32_t k : Ks(l)) {
      for (uint64_t bits : {uint64_t{1} << 14, (uint64_t{1} << 23) + 13}) {
        const uint64_t num_blocks = l == Layout::kClassic ? bits : bits / LayoutBlockBits(l);
        Payload ref(l, num_blocks, k), atomic(l, num_blocks, k);
        for (uint64_t h : hashes) kernels::reference::InsertHash(ref.Ref(), h);
        ops().insert_hashes_atomic(atomic.Ref(), hashes.data(), hashes.size(), nullptr, 0);
        ASSERT_EQ(0, std::memcmp(ref.bits, atomic.bits, ref.Bytes())) << "layout " << int(l) << " k " << k;
        ops().insert_hashes_atomic(atomic.Ref(), hashes.data(), hashes.size(), nullptr, 0);
        ASSERT_EQ(0, std::memcmp(ref.bits, atomic.bits, ref.Bytes())) << "again, layout " << int(l) << " k " << k;
      }
    }
  }
}

// The streaming entry points (look-ahead into the next chunk) and the atomic
// insert write the same bytes and answers as the plain ones, on both the
// cache-resident and the prefetching path.
TEST_P(Kernels, AheadAndAtomicEntryPointsMatchReference) {
  const auto hashes = RandomKeys(3000, 8);
  for (Layout l : kAllLayouts) {
    const uint32_t k = Ks(l)[Ks(l).size() / 2];
    for (uint64_t bits : {uint64_t{1} << 14, (uint64_t{1} << 23) + 13}) {
      const uint64_t num_blocks = l == Layout::kClassic ? bits : bits / LayoutBlockBits(l);
      Payload ref(l, num_blocks, k), ahead(l, num_blocks, k), atomic(l, num_blocks, k);
      for (uint64_t h : hashes) kernels::reference::InsertHash(ref.Ref(), h);
      // Three chunks, each told about its successor.
      const size_t c1 = 1000, c2 = 2100;
      ops().insert_hashes_ahead(ahead.Ref(), hashes.data(), c1, hashes.data() + c1, c2 - c1);
      ops().insert_hashes_ahead(ahead.Ref(), hashes.data() + c1, c2 - c1, hashes.data() + c2, hashes.size() - c2);
      ops().insert_hashes_ahead(ahead.Ref(), hashes.data() + c2, hashes.size() - c2, nullptr, 0);
      ops().insert_hashes_atomic(atomic.Ref(), hashes.data(), c2, hashes.data() + c2, hashes.size() - c2);
      ops().insert_hashes_atomic(atomic.Ref(), hashes.data() + c2, hashes.size() - c2, nullptr, 0);
      ASSERT_EQ(0, std::memcmp(ref.bits, ahead.bits, ref.Bytes())) << "ahead, layout " << int(l);
      ASSERT_EQ(0, std::memcmp(ref.bits, atomic.bits, ref.Bytes())) << "atomic, layout " << int(l);
      const auto probes = RandomKeys(2000, 9);
      std::vector<uint8_t> out(probes.size());
      size_t hits = ops().query_hashes_ahead(ahead.Ref(), probes.data(), 700, probes.data() + 700, 1300, out.data());
      hits += ops().query_hashes_ahead(ahead.Ref(), probes.data() + 700, 1300, nullptr, 0, out.data() + 700);
      size_t expect = 0;
      for (size_t i = 0; i < probes.size(); ++i) {
        const bool want = kernels::reference::QueryHash(ref.Ref(), probes[i]);
        ASSERT_EQ(out[i], want ? 1 : 0);
        expect += want;
      }
      EXPECT_EQ(hits, expect);
    }
  }
}

// Large filters take the prefetching path; it must not change a byte.
TEST_P(Kernels, PrefetchingPathMatchesReference) {
  const auto keys = RandomKeys(60000, 6);
  for (Layout l : kAllLayouts) {
    const uint32_t k = Ks(l)[Ks(l).size() / 2];
    Payload ref(l, PrefetchingBlocks(l), k), got(l, PrefetchingBlocks(l), k);
    for (uint64_t key : keys) kernels::reference::InsertHash(ref.Ref(), kernels::reference::HashU64(key, 3));
    ops().insert_keys(got.Ref(), keys.data(), keys.size(), 3, HashKind::kXxh3);
    ASSERT_EQ(0, std::memcmp(ref.bits, got.bits, ref.Bytes())) << "layout " << int(l);
    std::vector<uint8_t> out(keys.size());
    EXPECT_EQ(ops().query_keys(got.Ref(), keys.data(), keys.size(), 3, HashKind::kXxh3, out.data()), keys.size());
  }
}

// The single-key probes (Ops::one_key) against the reference: bytes after
// inserts, answers for present and absent hashes, every layout and k, and the
// empty filter (0 blocks: index 0 of one zero line, every answer false).
// The probes of hashes (insert, insert_atomic, query) take no hash kind, so
// the first kind's ops run them over all 3000 hashes and probes and each other
// kind's over the first 300 (under qemu this test was the costliest of the
// ARM stage, 49 of its 276 CPU-seconds, with every kind over all 3000); the
// fused key probes run in full for every kind.
TEST_P(Kernels, OneKeyProbesMatchReference) {
  const auto all_hashes = RandomKeys(3000, 11);
  const auto all_probes = RandomKeys(3000, 12);
  for (Layout l : kAllLayouts) {
    const uint64_t num_blocks = l == Layout::kClassic ? 20011 : 313;
    for (uint32_t k : Ks(l)) {
      for (HashKind kind : kHashKinds) {
        const size_t n = kind == kHashKinds[0] ? all_hashes.size() : 300;
        const std::span<const uint64_t> hashes(all_hashes.data(), n), probes(all_probes.data(), n);
        const kernels::OneKeyOps one = ops().one_key(l, k, kind);
        Payload ref(l, num_blocks, k), got(l, num_blocks, k);
        // The filter as the single-key inserts see it (no seed constant: they take hashes).
        const kernels::OneKeyArgs got_args{got.bits, num_blocks, 0, k};
        for (uint64_t h : hashes) {
          kernels::reference::InsertHash(ref.Ref(), h);
          one.insert(&got_args, h);
        }
        ASSERT_EQ(0, std::memcmp(ref.bits, got.bits, ref.Bytes())) << LayoutName(l) << " k=" << k;
        // The atomic insert (whole u64 words, or the reference's per-word ORs): the
        // same bytes, and a second pass of the same keys changes nothing.
        Payload atomic(l, num_blocks, k);
        const kernels::OneKeyArgs atomic_args{atomic.bits, num_blocks, 0, k};
        for (int pass = 0; pass < 2; ++pass) {
          for (uint64_t h : hashes) one.insert_atomic(&atomic_args, h);
          ASSERT_EQ(0, std::memcmp(ref.bits, atomic.bits, ref.Bytes())) << LayoutName(l) << " k=" << k << " atomic";
        }
        for (uint64_t h : hashes) ASSERT_TRUE(one.query(got.bits, num_blocks, k, h)) << LayoutName(l) << " k=" << k;
        for (uint64_t h : probes)
          ASSERT_EQ(one.query(got.bits, num_blocks, k, h), kernels::reference::QueryHash(ref.Ref(), h))
              << LayoutName(l) << " k=" << k;
        // Fused with the key's hash: as hashing with the public HashU64, then probing.
        for (uint64_t seed : {uint64_t{0}, uint64_t{0x9e3779b97f4a7c15}}) {
          const uint64_t c = kernels::KeyHashConstant(kind, seed);
          for (size_t i = 0; i < 300; ++i) {
            const uint64_t key = probes[i] ^ (i & 1 ? hashes[i] : 0);
            ASSERT_EQ(one.query_key(got.bits, num_blocks, k, c, key),
                      kernels::reference::QueryHash(ref.Ref(), HashU64(key, kind, seed)));
          }
          Payload ref2(l, num_blocks, k), got2(l, num_blocks, k);
          const kernels::OneKeyArgs keyed2{got2.bits, num_blocks, c, k};
          for (size_t i = 0; i < 300; ++i) {
            kernels::reference::InsertHash(ref2.Ref(), HashU64(probes[i], kind, seed));
            one.insert_key(&keyed2, probes[i]);
          }
          ASSERT_EQ(0, std::memcmp(ref2.bits, got2.bits, ref2.Bytes()))
              << LayoutName(l) << " k=" << k << " " << HashName(kind);
        }
        alignas(64) static const uint8_t kZeroLine[64] = {};
        for (uint64_t h : probes) ASSERT_FALSE(one.query(kZeroLine, 0, k, h)) << LayoutName(l) << " k=" << k;
      }
    }
  }
}

// Through the public API on this target: per-key Insert writes the bytes of
// InsertBatch, per-key MayContain answers as MayContainBatch, and the bitmap
// and selection vector say exactly what the bytes say, over sizes around the
// lane counts, the 64-bit words and the 4096-key pieces, from misaligned starts.
TEST_P(Kernels, SingleKeyBitmapAndSelectionEqualBytes) {
  ASSERT_TRUE(kernels::PinTarget(ops().name));
  const auto keys = RandomKeys(5000, 13);
  auto probes = RandomKeys(9000, 14);
  for (size_t i = 0; i < probes.size(); i += 3) probes[i] = keys[i % keys.size()];  // some present
  std::vector<std::string> sprobes_owned;
  for (uint64_t p : probes) {
    // Appended, not "k" + std::to_string(p): g++ 12 for aarch64 warns (-Wrestrict) on that operator+.
    std::string key = "k";
    key += std::to_string(p);
    sprobes_owned.push_back(std::move(key));
  }
  std::vector<std::string_view> sprobes(sprobes_owned.begin(), sprobes_owned.end());
  for (Layout l : kAllLayouts) {
    const uint32_t k = Ks(l)[Ks(l).size() / 2];
    Filter batch = Filter::WithBits(l, 1 << 15, k);
    Filter single = Filter::WithBits(l, 1 << 15, k);
    batch.InsertBatch(keys);
    batch.InsertBatch(std::span<const std::string_view>(sprobes).subspan(0, 700));
    for (uint64_t key : keys) single.Insert(key);
    for (size_t i = 0; i < 700; ++i) single.Insert(sprobes[i]);
    ASSERT_TRUE(batch == single) << LayoutName(l);
    EXPECT_EQ(single.inserted(), 0u);  // single-key inserts do not count (filter.h)
    EXPECT_EQ(batch.inserted(), keys.size() + 700);
    {  // XXH64 filters take the unfused path.
      Filter b64 = Filter::WithBits(l, 1 << 14, k, HashKind::kXxh64, 9);
      Filter s64 = Filter::WithBits(l, 1 << 14, k, HashKind::kXxh64, 9);
      b64.InsertBatch(std::span<const uint64_t>(keys).subspan(0, 1000));
      for (size_t i = 0; i < 1000; ++i) s64.Insert(keys[i]);
      ASSERT_TRUE(b64 == s64) << LayoutName(l);
      std::vector<uint8_t> o(2000);
      b64.MayContainBatch(std::span<const uint64_t>(probes).subspan(0, 2000), o);
      for (size_t i = 0; i < 2000; ++i) ASSERT_EQ(s64.MayContain(probes[i]), o[i] != 0);
    }
    for (size_t n : {size_t{0}, size_t{1}, size_t{7}, size_t{8}, size_t{63}, size_t{64}, size_t{65}, size_t{129},
                     size_t{4095}, size_t{4096}, size_t{4097}, size_t{8999}}) {
      for (size_t offset : {0, 1}) {
        if (offset + n > probes.size()) continue;
        const std::span<const uint64_t> p(probes.data() + offset, n);
        const std::span<const std::string_view> sp(sprobes.data() + offset, n);
        std::vector<uint8_t> bytes(n), sbytes(n);
        const size_t hits = batch.MayContainBatch(p, bytes);
        const size_t shits = batch.MayContainBatch(sp, sbytes);
        for (size_t i = 0; i < n; ++i) {
          ASSERT_EQ(batch.MayContain(p[i]), bytes[i] != 0) << LayoutName(l) << " i=" << i;
          ASSERT_EQ(batch.MayContain(sp[i]), sbytes[i] != 0) << LayoutName(l) << " i=" << i;
        }
        std::vector<uint64_t> bits((n + 63) / 64 + 1, ~uint64_t{0});
        EXPECT_EQ(batch.MayContainBatchBitmap(p, bits), hits);
        for (size_t i = 0; i < (n + 63) / 64 * 64; ++i)
          ASSERT_EQ((bits[i / 64] >> (i % 64)) & 1, i < n ? bytes[i] : 0u) << LayoutName(l) << " n=" << n << " i=" << i;
        EXPECT_EQ(bits[(n + 63) / 64], ~uint64_t{0}) << "wrote past the end";
        std::vector<uint64_t> sbits((n + 63) / 64);
        EXPECT_EQ(batch.MayContainBatchBitmap(sp, sbits), shits);
        for (size_t i = 0; i < n; ++i) ASSERT_EQ((sbits[i / 64] >> (i % 64)) & 1, sbytes[i]);
        std::vector<uint32_t> sel(n), ssel(n);
        const size_t r = batch.MayContainBatchSelect(p, sel);
        EXPECT_EQ(r, hits);
        std::vector<uint32_t> want;
        for (size_t i = 0; i < n; ++i)
          if (bytes[i]) want.push_back(static_cast<uint32_t>(i));
        EXPECT_EQ(std::vector<uint32_t>(sel.begin(), sel.begin() + static_cast<ptrdiff_t>(r)), want) << LayoutName(l);
        const size_t sr = batch.MayContainBatchSelect(sp, ssel);
        EXPECT_EQ(sr, shits);
        for (size_t j = 0; j < sr; ++j) ASSERT_TRUE(sbytes[ssel[j]]);
      }
    }
    std::vector<uint64_t> small(1);
    std::vector<uint32_t> small_sel(1);
    EXPECT_THROW(batch.MayContainBatchBitmap(std::span<const uint64_t>(probes.data(), 65), small),
                 std::invalid_argument);
    EXPECT_THROW(batch.MayContainBatchSelect(std::span<const uint64_t>(probes.data(), 2), small_sel),
                 std::invalid_argument);
    // The moved-from filter: single keys, bitmap and selection all answer false.
    Filter moved = std::move(batch);
    std::vector<uint64_t> bits(2);
    std::vector<uint32_t> sel(100);
    for (size_t i = 0; i < 100; ++i) ASSERT_FALSE(batch.MayContain(probes[i]));
    EXPECT_EQ(batch.MayContainBatchBitmap(std::span<const uint64_t>(probes.data(), 100), bits), 0u);
    EXPECT_EQ(bits[0] | bits[1], 0u);
    EXPECT_EQ(batch.MayContainBatchSelect(std::span<const uint64_t>(probes.data(), 100), sel), 0u);
  }
  ASSERT_TRUE(kernels::PinTarget("auto"));
}

// The pinned target is the one that runs.
TEST_P(Kernels, PinnedTargetIsActive) {
  ASSERT_TRUE(kernels::PinTarget(ops().name));
  EXPECT_EQ(&kernels::Active(), GetParam());
  EXPECT_EQ(ActiveTarget(), ops().name);
  // Batch through the public API equals per-key, on this target.
  Filter batch = Filter::WithBits(Layout::kBlocked512, 1 << 16, 7);
  Filter single = batch;
  const auto keys = RandomKeys(3000, 7);
  batch.InsertBatch(keys);
  for (uint64_t key : keys) single.Insert(key);
  EXPECT_TRUE(batch == single);
  ASSERT_TRUE(kernels::PinTarget("auto"));
}

std::string TargetName(const ::testing::TestParamInfo<const Ops*>& info) { return info.param->name; }

INSTANTIATE_TEST_SUITE_P(AllTargets, Kernels,
                         ::testing::ValuesIn(kernels::CompiledTargets().begin(), kernels::CompiledTargets().end()),
                         TargetName);

TEST(Dispatch, CompilesScalarFallbackAndBestIsSupported) {
  const auto targets = kernels::CompiledTargets();
  ASSERT_FALSE(targets.empty());
  EXPECT_TRUE(kernels::Supported(*targets.back())) << "the fallback must run everywhere";
  EXPECT_TRUE(kernels::Supported(kernels::Active()));
  EXPECT_FALSE(kernels::PinTarget("no-such-target"));
  EXPECT_THROW(PinTarget("no-such-target"), std::invalid_argument);
#if defined(__x86_64__)
  // On x86 the dispatch must have compiled SSE4 and AVX2 at least.
  bool sse4 = false, avx2 = false;
  for (const Ops* o : targets) {
    sse4 |= std::string(o->name) == "sse4";
    avx2 |= std::string(o->name) == "avx2";
  }
  EXPECT_TRUE(sse4 && avx2);
#elif defined(__aarch64__)
  // On AArch64 the dispatch must have compiled NEON and SVE at least.
  bool neon = false, sve = false;
  for (const Ops* o : targets) {
    neon |= std::string(o->name) == "neon";
    sve |= std::string(o->name) == "sve";
  }
  EXPECT_TRUE(neon && sve);
#endif
}

}  // namespace
}  // namespace blockbloom
