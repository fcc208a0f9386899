// SPDX-License-Identifier: Apache-2.0
// Garden files (blockbloom/garden/format.h) and merges: every variant round-trips through
// bytes and files with the same answers and the same bytes again; golden files
// pin the format; corrupt, truncated and crafted files are refused with the
// byte offset and leave the caller's object untouched; merges give the variant
// of the union where defined and are refused with the reason where not.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

#include "blockbloom/garden.h"
#include "engine/src/hash_inline.h"

namespace blockbloom::garden {
namespace {

constexpr uint64_t kAbsentBase = uint64_t{1} << 40;

std::string TempPath(const std::string& name) {
  return ::testing::TempDir() + "garden_" + std::to_string(::getpid()) + "_" + name;
}

// ---- One fixed instance of each variant, built from fixed keys -------------------

CountingFilter MakeCounting() {
  CountingFilter f(1000, 5, 4, HashKind::kXxh3, 3);
  for (uint64_t x = 0; x < 150; ++x) f.Insert(x % 120);
  return f;
}
SpectralFilter MakeSpectral() {
  SpectralFilter::Options o;
  o.width = 8;
  o.seed = 5;
  SpectralFilter f(700, 4, SpectralFilter::Policy::kRecurringMinimum, o);
  for (uint64_t x = 0; x < 400; ++x) f.Insert(x % 97);
  return f;
}
CountMinSketch MakeCountMin() {
  CountMinSketch s(200, 4, HashKind::kXxh64, 9);
  for (uint64_t x = 0; x < 1000; ++x) s.Add(x % 300, x % 5 + 1);
  return s;
}
BitwiseFilter MakeBitwise() {
  const BitwiseFilter::Level levels[] = {{512, 3, 2}, {256, 3, 4}, {128, 2, 8}};
  BitwiseFilter f(levels);
  for (uint64_t x = 0; x < 600; ++x) f.Insert(x % 41);
  return f;
}
StableFilter MakeStable() {
  StableFilter f(900, 3, 5, 6, 77);
  for (uint64_t x = 0; x < 500; ++x) f.Insert(x);
  return f;
}
A2Filter MakeA2() {
  A2Filter f(1 << 13, 0.02);
  for (uint64_t x = 0; x < 1500; ++x) f.Insert(x);
  return f;
}
ScalableFilter MakeScalable() {
  ScalableFilter f(100, 0.01);
  for (uint64_t x = 0; x < 800; ++x) f.Insert(x);
  return f;
}
BlockedCountingFilter MakeBlockedCounting() {
  BlockedCountingFilter f(40, 6, HashKind::kXxh3, 11);
  for (uint64_t x = 0; x < 700; ++x) f.Insert(x % 500);
  return f;
}

// Answers that must survive a round trip.
std::vector<uint64_t> Answers(const CountingFilter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 400; ++x) a.push_back(f.Count(x));
  return a;
}
std::vector<uint64_t> Answers(const SpectralFilter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 400; ++x) a.push_back(f.Count(x));
  return a;
}
std::vector<uint64_t> Answers(const CountMinSketch& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 400; ++x) a.push_back(f.Estimate(x));
  return a;
}
std::vector<uint64_t> Answers(const BitwiseFilter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 400; ++x) a.push_back(f.Count(x));
  return a;
}
std::vector<uint64_t> Answers(const StableFilter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 800; ++x) a.push_back(f.MayContain(x));
  return a;
}
std::vector<uint64_t> Answers(const A2Filter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 3000; ++x) a.push_back(f.MayContain(x));
  return a;
}
std::vector<uint64_t> Answers(const ScalableFilter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 3000; ++x) a.push_back(f.MayContain(x));
  return a;
}
std::vector<uint64_t> Answers(const BlockedCountingFilter& f) {
  std::vector<uint64_t> a;
  for (uint64_t x = 0; x < 800; ++x) a.push_back(f.Count(x));
  return a;
}

template <typename T>
struct Variant {
  using Type = T;
};
template <typename V>
class GardenFormat : public ::testing::Test {};
using Variants = ::testing::Types<CountingFilter, SpectralFilter, CountMinSketch, BitwiseFilter, StableFilter,
                                  A2Filter, ScalableFilter, BlockedCountingFilter>;

template <typename T> T Make();
template <> CountingFilter Make() { return MakeCounting(); }
template <> SpectralFilter Make() { return MakeSpectral(); }
template <> CountMinSketch Make() { return MakeCountMin(); }
template <> BitwiseFilter Make() { return MakeBitwise(); }
template <> StableFilter Make() { return MakeStable(); }
template <> A2Filter Make() { return MakeA2(); }
template <> ScalableFilter Make() { return MakeScalable(); }
template <> BlockedCountingFilter Make() { return MakeBlockedCounting(); }

class Names {
 public:
  template <typename T>
  static std::string GetName(int) {
    std::string n(GardenTypeName(TypeOf<T>()));
    for (char& c : n)
      if (c == '-') c = '_';
    return n;
  }
  template <typename T>
  static GardenType TypeOf() {
    const T v = Make<T>();
    return PeekGardenType(SerializeGarden(v));
  }
};
TYPED_TEST_SUITE(GardenFormat, Variants, Names);

TYPED_TEST(GardenFormat, RoundTripsThroughBytesAndFiles) {
  using T = TypeParam;
  const T v = Make<T>();
  const std::vector<uint8_t> bytes = SerializeGarden(v);
  const T back = DeserializeGarden<T>(bytes);
  EXPECT_EQ(Answers(back), Answers(v));
  EXPECT_EQ(SerializeGarden(back), bytes) << "a loaded variant saves to the same bytes";
  const std::string path = TempPath(std::string(GardenTypeName(PeekGardenType(bytes))) + ".bbg");
  SaveGarden(v, path);
  const T loaded = LoadGarden<T>(path);
  EXPECT_EQ(Answers(loaded), Answers(v));
  EXPECT_EQ(SerializeGarden(loaded), bytes);
  std::remove(path.c_str());
}

TYPED_TEST(GardenFormat, MatchesItsGoldenFile) {
  using T = TypeParam;
  const std::vector<uint8_t> bytes = SerializeGarden(Make<T>());
  const std::string name = "garden_" + std::string(GardenTypeName(PeekGardenType(bytes))) + ".bbg";
  const std::string path = std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/" + name;
  if (std::getenv("BLOCKBLOOM_REGENERATE_GOLDEN") != nullptr) SaveGarden(Make<T>(), path);
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing " << path;
  const std::vector<uint8_t> golden((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes, golden) << name << " changed. If the change is intended, the garden format changed: bump "
                           << "kGardenVersion (blockbloom/garden/format.h) and regenerate with BLOCKBLOOM_REGENERATE_GOLDEN=1 "
                           << "./garden_format_test --gtest_filter='*Golden*'";
  // The golden file loads and answers as the variant it was built from.
  EXPECT_EQ(Answers(DeserializeGarden<T>(golden, name)), Answers(Make<T>()));
}

// Every single-byte corruption is refused with an offset inside the file, and
// a failed load leaves the caller's object as it was.
TYPED_TEST(GardenFormat, CorruptionIsRefusedWithAnOffsetAndChangesNothing) {
  using T = TypeParam;
  const T v = Make<T>();
  const std::vector<uint8_t> bytes = SerializeGarden(v);
  const size_t step = bytes.size() / 300 + 1;
  for (size_t i = 0; i < bytes.size(); i += step) {
    std::vector<uint8_t> bad = bytes;
    bad[i] ^= 0x5a;
    try {
      (void)DeserializeGarden<T>(bad, "bad");
      ADD_FAILURE() << "flipped byte " << i << " was accepted";
    } catch (const FormatError& e) {
      ASSERT_LE(e.offset(), bad.size());
    }
  }
  for (size_t len : {size_t{0}, size_t{10}, size_t{63}, size_t{64}, bytes.size() - 8, bytes.size() - 1}) {
    try {
      (void)DeserializeGarden<T>(std::span<const uint8_t>(bytes.data(), len), "short");
      ADD_FAILURE() << "truncated to " << len << " was accepted";
    } catch (const FormatError& e) {
      EXPECT_LE(e.offset(), len);
    }
  }
  const std::string path = TempPath("corrupt.bbg");
  {
    std::vector<uint8_t> bad = bytes;
    bad[bad.size() / 2] ^= 1;
    std::ofstream(path, std::ios::binary).write(reinterpret_cast<const char*>(bad.data()), static_cast<std::streamsize>(bad.size()));
  }
  T into = Make<T>();
  EXPECT_THROW(LoadGarden<T>(path, &into), FormatError);
  EXPECT_EQ(SerializeGarden(into), bytes) << "a failed load leaves the object untouched";
  EXPECT_THROW(LoadGarden<T>(TempPath("does-not-exist.bbg"), &into), std::runtime_error);
  std::remove(path.c_str());
}

// ---- Moved-from variants: empty and defined, as a moved-from Filter -------------------

// One write of key 7 (Insert, or Add for the sketch) and its answer (Estimate,
// Count or MayContain).
template <typename T>
void WriteSeven(T& v) {
  if constexpr (requires { v.Add(uint64_t{7}); }) {
    v.Add(uint64_t{7});
  } else {
    (void)v.Insert(uint64_t{7});
  }
}
template <typename T>
uint64_t AnswerSeven(const T& v) {
  if constexpr (requires { v.Estimate(uint64_t{7}); }) {
    return v.Estimate(uint64_t{7});
  } else if constexpr (requires { v.Count(uint64_t{7}); }) {
    return v.Count(uint64_t{7});
  } else {
    return v.MayContain(uint64_t{7});
  }
}
template <typename F>
void ExpectMovedFromThrow(F&& f, const char* what) {
  try {
    f();
    ADD_FAILURE() << what << " of a moved-from variant did not throw";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("moved from"), std::string::npos) << what << ": " << e.what();
  }
}

// Once crashes (SIGSEGV on Count, Insert, MayContain, Estimate, SaveGarden) and
// unloadable files ("number of blocks = 0"); now a moved-from variant answers
// 0 / false, refuses writes and saves, and becomes whole again when assigned.
TYPED_TEST(GardenFormat, AMovedFromVariantIsEmptyAndDefined) {
  using T = TypeParam;
  T a = Make<T>();
  WriteSeven(a);
  ASSERT_FALSE(a.empty());
  ASSERT_NE(AnswerSeven(a), 0u);
  T b = std::move(a);
  // NOLINTBEGIN(bugprone-use-after-move): the moved-from state is what is tested.
  EXPECT_TRUE(a.empty());
  EXPECT_EQ(AnswerSeven(a), 0u);
  if constexpr (requires { a.MayContain(uint64_t{7}); }) {
    EXPECT_FALSE(a.MayContain(uint64_t{7}));
  }
  ExpectMovedFromThrow([&] { WriteSeven(a); }, "a write");
  ExpectMovedFromThrow([&] { (void)SerializeGarden(a); }, "SerializeGarden");
  const std::string path = TempPath("moved-from.bbg");
  ExpectMovedFromThrow([&] { SaveGarden(a, path); }, "SaveGarden");
  EXPECT_NE(::access(path.c_str(), F_OK), 0) << "a refused save wrote " << path;
  if constexpr (!std::is_same_v<T, BitwiseFilter> && !std::is_same_v<T, StableFilter>) {  // these never merge
    ExpectMovedFromThrow([&] { a.MergeFrom(b); }, "MergeFrom");
  }
  // The batch paths answer 0 and refuse writes too.
  const uint64_t hashes[3] = {1, 2, 3};
  if constexpr (requires { a.CountHashBatch(hashes, std::span<uint64_t>()); }) {
    std::vector<uint64_t> out(3, 9);
    a.CountHashBatch(hashes, out);
    EXPECT_EQ(out, std::vector<uint64_t>(3, 0));
  }
  if constexpr (requires { a.CountHashBatch(hashes, std::span<uint8_t>()); }) {
    std::vector<uint8_t> out(3, 9);
    a.CountHashBatch(hashes, out);
    EXPECT_EQ(out, std::vector<uint8_t>(3, 0));
  }
  if constexpr (requires { a.MayContainHashBatch(hashes, std::span<uint8_t>()); }) {
    std::vector<uint8_t> out(3, 9);
    EXPECT_EQ(a.MayContainHashBatch(hashes, out), 0u);
    EXPECT_EQ(out, std::vector<uint8_t>(3, 0));
  }
  if constexpr (requires { a.EstimateHashBatch(hashes, std::span<uint64_t>()); }) {
    std::vector<uint64_t> out(3, 9);
    a.EstimateHashBatch(hashes, out);
    EXPECT_EQ(out, std::vector<uint64_t>(3, 0));
  }
  if constexpr (requires { a.InsertHashBatch(hashes); }) {
    ExpectMovedFromThrow([&] { a.InsertHashBatch(hashes); }, "InsertHashBatch");
  }
  if constexpr (requires { a.AddHashBatch(hashes); }) {
    ExpectMovedFromThrow([&] { a.AddHashBatch(hashes); }, "AddHashBatch");
  }
  // Assigning a whole variant makes it whole.
  a = std::move(b);
  EXPECT_FALSE(a.empty());
  EXPECT_NE(AnswerSeven(a), 0u);
  WriteSeven(a);
  EXPECT_EQ(SerializeGarden(DeserializeGarden<T>(SerializeGarden(a))), SerializeGarden(a));
  // NOLINTEND(bugprone-use-after-move)
}

// ---- Reading files: only regular files, header first ----------------------------------

// What path.h promises for LoadFilter holds for garden files: a FIFO (which
// once blocked open() forever), a device or a directory is refused at once,
// naming what it is.
TEST(GardenFileInput, OnlyRegularFilesAreOpened) {
  const std::string fifo = TempPath("fifo.bbg");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // A writer holds the FIFO open, so even a blocking open() returns here and
  // the test cannot hang whatever the loader does; the refusal must still come.
  const int writer = ::open(fifo.c_str(), O_RDWR | O_NONBLOCK);
  ASSERT_GE(writer, 0);
  auto expect_refused = [](const std::string& path, const std::string& says) {
    try {
      (void)ReadGardenFile(path);
      ADD_FAILURE() << path << " was read";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
    EXPECT_THROW((void)LoadGarden<CountingFilter>(path), std::runtime_error);
  };
  expect_refused(fifo, fifo + ": is a FIFO: expected a regular file");
  ::close(writer);
  std::remove(fifo.c_str());
  expect_refused(::testing::TempDir(), "is a directory: expected a regular file");
  struct stat st;
  if (::stat("/dev/zero", &st) == 0) expect_refused("/dev/zero", "/dev/zero: is a character device: expected a regular file");
}

// A file that is not a garden file is refused from its first 64 bytes, however
// large: a 2 GiB sparse file of zeros was once read whole (2 GB of memory,
// seconds) before "byte 0: magic". So is a garden header whose sizes its
// file's length does not back.
TEST(GardenFileInput, TheHeaderIsCheckedBeforeTheRestIsRead) {
  const std::string path = TempPath("sparse.bbg");
  auto make_sparse = [&](const std::vector<uint8_t>& head, uint64_t size) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::write(fd, head.data(), head.size()), static_cast<ssize_t>(head.size()));
    ASSERT_EQ(::ftruncate(fd, static_cast<off_t>(size)), 0);
    ::close(fd);
  };
  constexpr uint64_t kTwoGiB = uint64_t{2} << 30;
  make_sparse({}, kTwoGiB);
  try {
    const std::vector<uint8_t> read = ReadGardenFile(path);
    ADD_FAILURE() << "a 2 GiB non-garden file was read whole (" << read.size() << " bytes)";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_NE(std::string(e.what()).find("byte 0: magic is 0x0000000000000000"), std::string::npos) << e.what();
  }
  // A valid counting file's header on 1 GiB of zeros: its sizes disagree with the length.
  const std::vector<uint8_t> bytes = SerializeGarden(MakeCounting());
  make_sparse(bytes, uint64_t{1} << 30);
  try {
    const std::vector<uint8_t> read = ReadGardenFile(path);
    ADD_FAILURE() << "a garden header over 1 GiB of zeros was read whole (" << read.size() << " bytes)";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.offset(), 32u) << e.what();
    EXPECT_NE(std::string(e.what()).find("disagrees with the file"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// ---- Crafted files: a valid checksum over wrong values -------------------------------

std::vector<uint8_t> Reseal(std::vector<uint8_t> b) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, b.data(), 40);
  XXH3_64bits_update(&st, b.data() + kGardenHeaderBytes, b.size() - kGardenHeaderBytes);
  const uint64_t c = XXH3_64bits_digest(&st);
  for (int i = 0; i < 8; ++i) b[40 + i] = static_cast<uint8_t>(c >> (8 * i));
  return b;
}
void Put64(std::vector<uint8_t>& b, size_t at, uint64_t v) {
  for (int i = 0; i < 8; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

template <typename T>
void ExpectRefused(const std::vector<uint8_t>& b, uint64_t offset, const std::string& says) {
  try {
    (void)DeserializeGarden<T>(b, "f.bbg");
    ADD_FAILURE() << "accepted; expected a refusal at byte " << offset << " saying " << says;
  } catch (const FormatError& e) {
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind("blockbloom: f.bbg: byte " + std::to_string(offset) + ": ", 0), 0u) << e.what();
  }
}

TEST(GardenFormatErrors, NameTheByteAndWhatWasExpected) {
  const std::vector<uint8_t> good = SerializeGarden(MakeCounting());
  auto b = good;
  b[0] = 'X';
  ExpectRefused<CountingFilter>(b, 0, "expected \"BBGARDN1\"");
  b = good;
  b[8] = 2;
  ExpectRefused<CountingFilter>(Reseal(b), 8, "format version 2 is unknown: expected 1");
  b = good;
  b[12] = 9;
  ExpectRefused<CountingFilter>(Reseal(b), 12, "garden type 9 is unknown");
  ExpectRefused<CountMinSketch>(good, 12, "holds a counting variant: expected count-min");
  b = good;
  const int past = static_cast<int>(kLastHashKind) + 1;  // the first value past the known kinds
  b[13] = static_cast<uint8_t>(past);
  ExpectRefused<CountingFilter>(Reseal(b), 13, "hash " + std::to_string(past) + " is unknown");
  b = good;
  b[100] ^= 1;
  ExpectRefused<CountingFilter>(b, 40, "checksum mismatch");
  b = good;
  Put64(b, 64 + 8, 33);  // k
  ExpectRefused<CountingFilter>(Reseal(b), 72, "k = 33 is out of range: expected 1..32");
  b = good;
  Put64(b, 64 + 16, 3);  // width
  ExpectRefused<CountingFilter>(Reseal(b), 80, "counter width = 3 is not supported");
  b = good;
  Put64(b, 64, 2000);  // cells: the payload no longer fits
  ExpectRefused<CountingFilter>(Reseal(b), 32, "disagrees with the parameters");
  b = good;
  Put64(b, 64, uint64_t{1} << 51);  // a huge claim is refused before any allocation
  ExpectRefused<CountingFilter>(Reseal(b), 32, "disagrees with the parameters");
  // 1000 cells of 4 bits end at bit 4000 of the last word: its high bits must be 0.
  b = good;
  b[b.size() - 1] = 0x80;
  ExpectRefused<CountingFilter>(Reseal(b), b.size() - 8, "bits past the last counter are set");

  // Count-min: a counter above N, a row that does not sum to N.
  const std::vector<uint8_t> cm = SerializeGarden(MakeCountMin());
  const size_t payload = 64 + 4 * 8;
  b = cm;
  Put64(b, payload + 8 * 5, uint64_t{1} << 40);
  ExpectRefused<CountMinSketch>(Reseal(b), payload + 8 * 5, "exceeds the total N");
  b = cm;
  b[payload + 8 * 7] ^= 1;
  try {
    (void)DeserializeGarden<CountMinSketch>(Reseal(b), "f.bbg");
    ADD_FAILURE() << "a row not summing to N was accepted";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find("row 0"), std::string::npos) << e.what();
  }
  // Stable: a cell above Max (5, in 4-bit cells).
  const std::vector<uint8_t> st = SerializeGarden(MakeStable());
  b = st;
  b[64 + 7 * 8] = 0x0f;  // cell 0 = 15
  ExpectRefused<StableFilter>(Reseal(b), 64 + 7 * 8, "cells: counter 0 = 15: expected at most 5");
  // A2: a capacity that disagrees with bits and fpr.
  const std::vector<uint8_t> a2 = SerializeGarden(MakeA2());
  b = a2;
  Put64(b, 64 + 24, 12345);
  ExpectRefused<A2Filter>(Reseal(b), 64 + 24, "capacity = 12345 disagrees with bits and fpr");
  // Scalable: a slice whose size is not what the parameters give.
  const std::vector<uint8_t> sc = SerializeGarden(MakeScalable());
  b = sc;
  Put64(b, 64 + 48, 7);
  ExpectRefused<ScalableFilter>(Reseal(b), 64 + 48, "slice 0 has 7 blocks");
}

// ---- Merges --------------------------------------------------------------------------

// A2 files written before 2026-11-28 were sized with the textbook rate
// (aging.h): the golden file of that time (MakeA2: 2^13 bits at 2%, capacity
// 427 where the vectors' own rate gives 426) loads with the k_a and capacity
// it was written with, saves back to the same bytes, and finds the last
// `capacity` keys inserted (keys 0..1499).
TEST(GardenFormatCompat, A2FilesSizedByTheTextbookRateLoadAsWritten) {
  const std::string path = std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/garden_a2_textbook_sizing.bbg";
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in) << "missing " << path;
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const A2Filter f = DeserializeGarden<A2Filter>(bytes, path);
  const A2Filter::Params now = A2Filter::ParamsFor(f.bits(), f.target_fpr());
  EXPECT_EQ(f.capacity(), 427u);
  EXPECT_EQ(now.capacity, 426u) << "the file no longer tests the old sizing";
  EXPECT_EQ(f.k(), now.k);
  EXPECT_EQ(SerializeGarden(f), bytes);
  for (uint64_t x = 1500 - f.capacity(); x < 1500; ++x) ASSERT_TRUE(f.MayContain(x)) << x;
  // A capacity that is neither sizing's is refused, naming the current one.
  std::vector<uint8_t> b = bytes;
  Put64(b, 64 + 24, 428);
  ExpectRefused<A2Filter>(Reseal(b), 64 + 24, "capacity = 428 disagrees with bits and fpr: expected 426");
}

TEST(GardenMerge, CountingAndSpectralMinimumSelectionGiveTheFilterOfTheUnion) {
  CountingFilter a(3000, 5), b(3000, 5), both(3000, 5);
  SpectralFilter sa(3000, 5, SpectralFilter::Policy::kMinimumSelection),
      sb(3000, 5, SpectralFilter::Policy::kMinimumSelection), sboth(3000, 5, SpectralFilter::Policy::kMinimumSelection);
  for (uint64_t x = 0; x < 9000; ++x) {
    const uint64_t key = x % 1300;  // overlapping multisets; some 4-bit counters saturate
    (x % 3 ? a : b).Insert(key);
    both.Insert(key);
    (x % 3 ? sa : sb).Insert(key);
    sboth.Insert(key);
  }
  ASSERT_GT(both.SaturatedCells(), 0u);
  a.MergeFrom(b);
  EXPECT_TRUE(a == both);
  sa.MergeFrom(sb);
  EXPECT_TRUE(sa.primary() == sboth.primary());
  EXPECT_THROW(a.MergeFrom(CountingFilter(3000, 4)), std::invalid_argument);
  EXPECT_THROW(a.MergeFrom(CountingFilter(3000, 5, 4, HashKind::kXxh3, 1)), std::invalid_argument);
  SpectralFilter mi(3000, 5, SpectralFilter::Policy::kMinimumIncrease);
  try {
    mi.MergeFrom(mi);
    ADD_FAILURE() << "MI merge accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Minimum Selection"), std::string::npos) << e.what();
  }
}

TEST(GardenMerge, BitwiseAndStableRefuseWithTheReason) {
  BitwiseFilter b = MakeBitwise();
  StableFilter s = MakeStable();
  try {
    b.MergeFrom(b);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("carries"), std::string::npos) << e.what();
  }
  try {
    s.MergeFrom(s);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("random"), std::string::npos) << e.what();
  }
}

TEST(GardenMerge, A2AndScalableMergeTheirVectorsAndSlices) {
  A2Filter a(1 << 14, 0.02), b(1 << 14, 0.02);
  const uint64_t cap = a.capacity();
  for (uint64_t x = 0; x < cap / 3; ++x) {
    a.Insert(x);
    b.Insert(kAbsentBase + x);
  }
  A2Filter m = a;
  m.MergeFrom(b);
  for (uint64_t x = 0; x < cap / 3; ++x) {
    ASSERT_TRUE(m.MayContain(x));
    ASSERT_TRUE(m.MayContain(kAbsentBase + x));
  }
  EXPECT_EQ(m.active_count(), a.active_count() + b.active_count());
  A2Filter full = a;
  for (uint64_t x = 0; full.active_count() < cap; ++x) full.Insert(2 * kAbsentBase + x);
  try {
    full.MergeFrom(b);
    ADD_FAILURE() << "over-capacity merge accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("capacity"), std::string::npos) << e.what();
  }

  ScalableFilter sa(200, 0.01), sb(200, 0.01);
  for (uint64_t x = 0; x < 90; ++x) sa.Insert(x);
  for (uint64_t x = 0; x < 100; ++x) sb.Insert(kAbsentBase + x);
  sa.MergeFrom(sb);
  for (uint64_t x = 0; x < 90; ++x) ASSERT_TRUE(sa.MayContain(x));
  for (uint64_t x = 0; x < 100; ++x) ASSERT_TRUE(sa.MayContain(kAbsentBase + x));
  // The merged filter round-trips.
  const ScalableFilter back = DeserializeGarden<ScalableFilter>(SerializeGarden(sa));
  for (uint64_t x = 0; x < 100; ++x) ASSERT_TRUE(back.MayContain(kAbsentBase + x));
  ScalableFilter big(200, 0.01);
  for (uint64_t x = 0; x < 150; ++x) big.Insert(3 * kAbsentBase + x);
  EXPECT_THROW(sa.MergeFrom(big), std::invalid_argument) << "slice 0 would exceed its capacity";
  EXPECT_THROW(sa.MergeFrom(ScalableFilter(201, 0.01)), std::invalid_argument);
}

}  // namespace
}  // namespace blockbloom::garden
