// SPDX-License-Identifier: Apache-2.0
// blockbloom/typed.h: TypedInserter writes exactly the bits of the run-time
// kernels and TypedView gives exactly their answers, on every layout and hash
// kind, both where the calling file has a SIMD static target (the inline path:
// typed_simd.cc: AVX2 on x86-64, NEON with AES on AArch64) and where it has
// none or cannot inline (plain x86-64 or armv8-a flags: the dispatched call). Also the constructors' errors and the
// empty filter, and string keys.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <span>
#include <stdexcept>
#if defined(__aarch64__)
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/typed.h"
#include "tests/typed_cases.h"

namespace blockbloom {
namespace typed_simd {  // tests/typed_simd.cc
bool StaticTargetIsSimd();
const char* StaticTargetName();
bool Run(Filter& f, const uint64_t* keys, size_t n, const uint64_t* probes, size_t np, uint8_t* out,
         uint8_t* out_hash);
}  // namespace typed_simd

namespace {

using RunFn = bool (*)(Filter&, const uint64_t*, size_t, const uint64_t*, size_t, uint8_t*, uint8_t*);

bool CpuRunsTypedSimd() {
#if defined(__x86_64__) || defined(_M_X64)
  __builtin_cpu_init();
  // Haswell's set; every CPU with these three has its F16C, BMI1, LZCNT and MOVBE too.
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("fma");
#elif defined(__aarch64__)
  return (getauxval(AT_HWCAP) & HWCAP_AES) != 0;  // typed_simd.cc: armv8-a+crypto
#else
  return true;
#endif
}

struct Case {
  Layout layout;
  uint32_t k;
  HashKind hash;
};
std::vector<Case> Cases() {
  std::vector<Case> v;
#define BLOCKBLOOM_TYPED_LIST(L, K, H) v.push_back({Layout::k##L, K, HashKind::k##H});
  BLOCKBLOOM_TYPED_CASES(BLOCKBLOOM_TYPED_LIST)
#undef BLOCKBLOOM_TYPED_LIST
  return v;
}

std::vector<uint64_t> Keys(size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> v(n);
  for (auto& x : v) x = rng();
  return v;
}

// For every case: the typed filter equals the one built by InsertBatch, byte
// for byte and in its count; the typed answers equal MayContainBatch's on
// present keys and on enough absent keys to hit false positives.
void ExpectSameAsKernels(RunFn run) {
  const std::vector<uint64_t> keys = Keys(3000, 1);
  std::vector<uint64_t> probes = Keys(20000, 2);
  probes.insert(probes.end(), keys.begin(), keys.end());
  for (const Case& c : Cases()) {
    SCOPED_TRACE(std::string(LayoutName(c.layout)) + " k=" + std::to_string(c.k) + " " +
                 std::string(HashName(c.hash)));
    // Small enough (about 4 bits/key) that thousands of absent probes answer true.
    const uint64_t bits = keys.size() * 4;
    Filter want = Filter::WithBits(c.layout, bits, c.k, c.hash, 7);
    want.InsertBatch(keys);
    std::vector<uint8_t> want_out(probes.size());
    const size_t hits = want.MayContainBatch(probes, want_out);
    ASSERT_GT(hits, keys.size() + 100) << "the case needs false positives to compare";

    Filter got = Filter::WithBits(c.layout, bits, c.k, c.hash, 7);
    std::vector<uint8_t> out(probes.size()), out_hash(probes.size());
    ASSERT_TRUE(run(got, keys.data(), keys.size(), probes.data(), probes.size(), out.data(), out_hash.data()));
    EXPECT_TRUE(got == want) << "the typed inserter wrote other bits than InsertBatch";
    EXPECT_EQ(got.inserted(), keys.size());
    EXPECT_EQ(out, want_out);
    EXPECT_EQ(out_hash, want_out);
  }
}

// A layout added to kLayoutTraits but not to BLOCKBLOOM_TYPED_CASES (tests/typed_cases.h) would go
// untested through typed.h: every layout has at least one case.
TEST(Typed, EveryLayoutHasACase) {
  const std::vector<Case> cases = Cases();
  for (Layout l : kAllLayouts) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const Case& c) { return c.layout == l; }))
        << LayoutName(l) << " has no case in BLOCKBLOOM_TYPED_CASES (tests/typed_cases.h)";
  }
}

// Likewise every hash kind (blockbloom/hash.h kHashKinds): "aes" has its own inline rounds.
TEST(Typed, EveryHashKindHasACase) {
  const std::vector<Case> cases = Cases();
  for (HashKind h : kHashKinds) {
    EXPECT_TRUE(std::any_of(cases.begin(), cases.end(), [&](const Case& c) { return c.hash == h; }))
        << HashName(h) << " has no case in BLOCKBLOOM_TYPED_CASES (tests/typed_cases.h)";
  }
}

TEST(Typed, ProjectFlagsMatchTheKernels) { ExpectSameAsKernels(&RunTypedCase); }

TEST(Typed, SimdStaticTargetMatchesTheKernels) {
  if (!CpuRunsTypedSimd()) GTEST_SKIP() << "this CPU cannot run typed_simd.cc's code (AVX2 / AES)";
  EXPECT_TRUE(typed_simd::StaticTargetIsSimd()) << "typed_simd.cc was not compiled for a SIMD target";
#if defined(__x86_64__) || defined(_M_X64)
  // -march=haswell (tests/CMakeLists.txt): AVX2, not the SSSE3 that Highway 1.0.3
  // picks when AES and CLMUL gate its AVX2 target (kernels/hwy_targets.h).
  EXPECT_STREQ(typed_simd::StaticTargetName(), "AVX2");
#endif
  ExpectSameAsKernels(&typed_simd::Run);
}

// String keys: hashed by HashBytes, probed by the typed path; the bits and the
// answers (false positives included) are the string batch calls'.
template <Layout kL, uint32_t kK, HashKind kH>
void ExpectStringsSameAsFilter() {
  SCOPED_TRACE(std::string(LayoutName(kL)) + " k=" + std::to_string(kK) + " " + std::string(HashName(kH)));
  std::vector<std::string> keys, probes;
  for (uint64_t x : Keys(2000, 4)) keys.push_back("https://example.com/" + std::to_string(x));
  for (uint64_t x : Keys(20000, 5)) probes.push_back("https://example.org/item/" + std::to_string(x));
  probes.insert(probes.end(), keys.begin(), keys.end());
  const std::vector<std::string_view> key_views(keys.begin(), keys.end());
  const std::vector<std::string_view> probe_views(probes.begin(), probes.end());
  Filter want = Filter::WithBits(kL, keys.size() * 4, kK, kH, 11);
  want.InsertBatch(key_views);
  std::vector<uint8_t> want_out(probes.size());
  ASSERT_GT(want.MayContainBatch(probe_views, want_out), keys.size() + 100) << "the case needs false positives";

  Filter got = Filter::WithBits(kL, keys.size() * 4, kK, kH, 11);
  TypedInserter<kL, kK, kH> ins(got);
  for (std::string_view key : key_views) ins.Insert(key);
  EXPECT_TRUE(got == want) << "the typed inserter wrote other bits than InsertBatch";
  const TypedView<kL, kK, kH> view(got);
  std::vector<uint8_t> out(probes.size()), ins_out(probes.size());
  for (size_t i = 0; i < probe_views.size(); ++i) {
    out[i] = view.MayContain(probe_views[i]) ? 1 : 0;
    ins_out[i] = ins.MayContain(probe_views[i]) ? 1 : 0;
  }
  EXPECT_EQ(out, want_out);
  EXPECT_EQ(ins_out, want_out);
}

TEST(Typed, StringKeysMatchTheFilter) {
  ExpectStringsSameAsFilter<Layout::kSplit256, 8, HashKind::kXxh3>();
  ExpectStringsSameAsFilter<Layout::kSectorized512, 8, HashKind::kMulx>();
  ExpectStringsSameAsFilter<Layout::kRegister64, 6, HashKind::kXxh64>();
}

TEST(Typed, ConstructorsNameTheMismatch) {
  Filter f = Filter::WithBits(Layout::kRegister64, 4096, 6, HashKind::kXxh3);
  try {
    TypedView<Layout::kSplit256, 8, HashKind::kMulx> v(f);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(),
                 "blockbloom: TypedView<split256, k=8, mulx>: the filter is register64, k=6, hash xxh3: "
                 "expected a filter of the type's layout, k and hash");
  }
  EXPECT_THROW((TypedView<Layout::kRegister64, 5, HashKind::kXxh3>(f)), std::invalid_argument);
  EXPECT_THROW((TypedView<Layout::kRegister64, 6, HashKind::kXxh64>(f)), std::invalid_argument);
  EXPECT_THROW((TypedInserter<Layout::kRegister64, 6, HashKind::kMulx>(f)), std::invalid_argument);
  EXPECT_NO_THROW((TypedInserter<Layout::kRegister64, 6, HashKind::kXxh3>(f)));
}

// TypedInserter counts its keys into the filter when flushed (or destroyed),
// saturating at 2^64 - 1 as Filter::Insert does; its bits are written at once.
TEST(Typed, InserterCountSaturates) {
  const uint64_t blocks = 64, max = ~uint64_t{0};
  std::vector<uint8_t> buf(Filter::RequiredBytes(Layout::kSplit256, blocks) + 64);
  const size_t skew = (64 - reinterpret_cast<uintptr_t>(buf.data()) % 64) % 64;
  Filter f = Filter::InBuffer(std::span<uint8_t>(buf.data() + skew, buf.size() - 64), Layout::kSplit256, blocks,
                              8, HashKind::kXxh3, 0, Filter::BufferInit::kClear, max - 2);
  TypedInserter<Layout::kSplit256, 8, HashKind::kXxh3> ins(f);
  ins.Insert(uint64_t{1});
  EXPECT_TRUE(f.MayContain(uint64_t{1}));
  EXPECT_EQ(f.inserted(), max - 2);  // not yet flushed
  ins.Flush();
  EXPECT_EQ(f.inserted(), max - 1);
  ins.Insert(uint64_t{2});
  ins.InsertHash(3);
  ins.Flush();
  EXPECT_EQ(f.inserted(), max);
  ins.Insert(uint64_t{4});
  ins.Flush();
  ins.Flush();
  EXPECT_EQ(f.inserted(), max);
  EXPECT_TRUE(ins.MayContain(uint64_t{2}));
}

// Each inserted key is counted once: by the inserter's destructor, by a
// move's target (never by the moved-from one), and not twice after a Flush.
TEST(Typed, InserterCountsEachKeyOnce) {
  static_assert(!std::is_copy_constructible_v<TypedInserter<Layout::kSplit256, 8, HashKind::kXxh3>>);
  static_assert(!std::is_copy_assignable_v<TypedInserter<Layout::kSplit256, 8, HashKind::kXxh3>>);
  Filter f = Filter::WithBits(Layout::kRegister64, 1 << 16, 6, HashKind::kMulx);
  Filter g = Filter::WithBits(Layout::kRegister64, 1 << 16, 6, HashKind::kMulx);
  {
    TypedInserter<Layout::kRegister64, 6, HashKind::kMulx> a(f);
    for (uint64_t key : Keys(100, 7)) a.Insert(key);
    a.Flush();
    EXPECT_EQ(f.inserted(), 100u);
    for (uint64_t key : Keys(30, 8)) a.Insert(key);
    TypedInserter<Layout::kRegister64, 6, HashKind::kMulx> b(std::move(a));
    b.Insert(uint64_t{5});
    TypedInserter<Layout::kRegister64, 6, HashKind::kMulx> c(g);
    c.Insert(uint64_t{6});
    c = std::move(b);  // c's own key is counted into g first; b's 31 go with c to f
    EXPECT_EQ(g.inserted(), 1u);
    EXPECT_EQ(f.inserted(), 100u);
  }
  EXPECT_EQ(f.inserted(), 131u);
  EXPECT_EQ(g.inserted(), 1u);
  EXPECT_TRUE(f.MayContain(uint64_t{5}));
  EXPECT_TRUE(g.MayContain(uint64_t{6}));
}

TEST(Typed, EmptyFilterAnswersFalseAndRefusesInserts) {
  Filter f = Filter::WithBits(Layout::kSplit256, 4096, 8, HashKind::kXxh3);
  const Filter moved = std::move(f);
  const FilterView empty;
  // Any type views the empty filter (moved from or default) and answers false.
  const TypedView<Layout::kSplit256, 8, HashKind::kXxh3> a(f);
  const TypedView<Layout::kBlocked512, 16, HashKind::kMulx> b(empty);
  const TypedView<Layout::kClassic, 3, HashKind::kXxh64> c(empty);
  for (uint64_t key : Keys(1000, 3)) {
    EXPECT_FALSE(a.MayContain(key));
    EXPECT_FALSE(b.MayContain(key));
    EXPECT_FALSE(c.MayContainHash(key));
  }
  EXPECT_THROW((TypedInserter<Layout::kSplit256, 8, HashKind::kXxh3>(f)), std::logic_error);
}

}  // namespace
}  // namespace blockbloom
