// SPDX-License-Identifier: Apache-2.0
// The filter file format: round trips on every layout (Filter, file, mmap
// view, every SIMD target), one test per kind of corruption, atomic save, and
// the golden files that pin format version 1.
#include "blockbloom/targets.h"
#include "blockbloom/format.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/layout.h"
#include "engine/src/hash_inline.h"

namespace blockbloom {
namespace {

namespace fs = std::filesystem;

// A fresh directory per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "bbfmt.XXXXXX").string();
    if (mkdtemp(tmpl.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::vector<uint8_t> ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
void WriteAll(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// A k every layout accepts in its middle of the range.
uint32_t SomeK(Layout layout) {
  switch (layout) {
    case Layout::kBlocked512: return 7;
    case Layout::kSplit256: return 8;
    case Layout::kSectorized512: return 4;
    case Layout::kRegister64: return 5;
    case Layout::kClassic: return 6;
    case Layout::kSplit512: return 8;
  }
  return 1;
}

// Odd block counts leave padding after the last block for split256 and
// register64, and a partial last byte for classic.
Filter MakeFilter(Layout layout, uint64_t blocks, HashKind hash, uint64_t seed, uint64_t keys) {
  Filter f = Filter::WithBlocks(layout, blocks, SomeK(layout), hash, seed);
  std::vector<uint64_t> ks(keys);
  for (uint64_t i = 0; i < keys; ++i) ks[i] = i * 0x9E3779B97F4A7C15ULL + 1;
  f.InsertBatch(ks);
  f.Insert(std::string_view("a string key"));
  return f;
}

uint64_t SomeBlocks(Layout layout) { return layout == Layout::kClassic ? 10'001 : 77; }

void ExpectSameAnswers(const Filter& f, const FilterView& v) {
  std::vector<uint64_t> probes(5000);
  for (size_t i = 0; i < probes.size(); ++i) probes[i] = (i % 2 == 0) ? (i / 2) * 0x9E3779B97F4A7C15ULL + 1 : i * 31 + 7;
  std::vector<uint8_t> want(probes.size()), got(probes.size());
  const size_t want_hits = f.MayContainBatch(probes, want);
  EXPECT_EQ(v.MayContainBatch(probes, got), want_hits);
  EXPECT_EQ(got, want);
  for (size_t i = 0; i < 200; ++i) EXPECT_EQ(v.MayContain(probes[i]), f.MayContain(probes[i])) << i;
  std::vector<std::string> strs;
  for (int i = 0; i < 300; ++i) strs.push_back(std::to_string(i) + "s");
  strs.push_back("a string key");
  std::vector<std::string_view> views(strs.begin(), strs.end());
  std::vector<uint8_t> want_s(views.size()), got_s(views.size());
  EXPECT_EQ(v.MayContainBatch(views, got_s), f.MayContainBatch(views, want_s));
  EXPECT_EQ(got_s, want_s);
  EXPECT_TRUE(v.MayContain(std::string_view("a string key")));
}

// ---- Round trips ------------------------------------------------------------

class RoundTrip : public ::testing::TestWithParam<std::tuple<Layout, HashKind>> {};

TEST_P(RoundTrip, SaveLoadAndViewAnswerAsTheOriginal) {
  const auto [layout, hash] = GetParam();
  TempDir dir;
  const Filter f = MakeFilter(layout, SomeBlocks(layout), hash, 0xfeedULL, 3000);
  const std::string path = dir / "f.bbf";
  SaveFilter(f, path);
  EXPECT_EQ(fs::file_size(path), kFormatHeaderBytes + f.byte_size());

  const Filter g = LoadFilter(path);
  EXPECT_TRUE(g == f);
  EXPECT_EQ(g.inserted(), f.inserted());
  EXPECT_EQ(g.seed(), f.seed());
  EXPECT_EQ(g.hash_kind(), f.hash_kind());

  const MappedFilter v = MappedFilter::Open(path);
  EXPECT_EQ(v.layout(), f.layout());
  EXPECT_EQ(v.k(), f.k());
  EXPECT_EQ(v.num_blocks(), f.num_blocks());
  EXPECT_EQ(v.inserted(), f.inserted());
  EXPECT_EQ(v.byte_size(), f.byte_size());
  EXPECT_EQ(v.PopCount(), f.PopCount());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % 64, 0u) << "the mapped payload must be cache-line aligned";
  EXPECT_EQ(std::memcmp(v.data(), f.data(), f.byte_size()), 0);
  EXPECT_TRUE(v.ToFilter() == f);
  ExpectSameAnswers(f, v);

  // The buffer form is the file's bytes.
  EXPECT_EQ(SerializeFilter(f), ReadAll(path));
  EXPECT_TRUE(DeserializeFilter(SerializeFilter(f)) == f);
}

INSTANTIATE_TEST_SUITE_P(AllLayouts, RoundTrip,
                         ::testing::Combine(::testing::ValuesIn(kAllLayouts),
                                            ::testing::Values(HashKind::kXxh3, HashKind::kXxh64)),
                         [](const auto& p) {
                           return std::string(LayoutName(std::get<0>(p.param))) + "_" +
                                  std::string(HashName(std::get<1>(p.param)));
                         });

// A file loaded with any SIMD target pinned answers exactly as the filter saved.
TEST(Format, EveryTargetAnswersAsSaved) {
  TempDir dir;
  for (Layout layout : kAllLayouts) {
    const Filter f = MakeFilter(layout, SomeBlocks(layout), HashKind::kXxh3, 7, 2000);
    SaveFilter(f, dir / "t.bbf");
    for (const TargetInfo& t : CompiledTargets()) {
      if (!t.supported) continue;
      PinTarget(t.name);
      SCOPED_TRACE(std::string(LayoutName(layout)) + " on " + std::string(t.name));
      ExpectSameAnswers(f, MappedFilter::Open(dir / "t.bbf"));
    }
  }
  PinTarget("auto");
}

TEST(Format, ViewIsMovable) {
  TempDir dir;
  const Filter f = MakeFilter(Layout::kBlocked512, 4, HashKind::kXxh3, 0, 100);
  SaveFilter(f, dir / "m.bbf");
  MappedFilter a = MappedFilter::Open(dir / "m.bbf");
  MappedFilter b = std::move(a);
  EXPECT_TRUE(b.MayContain(uint64_t{1}));
  MappedFilter c = MappedFilter::Open(dir / "m.bbf");
  c = std::move(b);
  EXPECT_TRUE(c.MayContain(uint64_t{1}));
}

// Replacing a file under an open view (the way a service ships a new filter)
// leaves the view on the old, complete file: rename swaps the name, not the inode.
TEST(Format, ViewKeepsTheOldFilterWhenTheFileIsReplaced) {
  TempDir dir;
  const Filter old_f = MakeFilter(Layout::kBlocked512, 16, HashKind::kXxh3, 1, 500);
  const Filter new_f = MakeFilter(Layout::kClassic, 3001, HashKind::kXxh64, 2, 10);
  SaveFilter(old_f, dir / "live.bbf");
  const MappedFilter v = MappedFilter::Open(dir / "live.bbf");
  SaveFilter(new_f, dir / "live.bbf");
  EXPECT_EQ(v.layout(), Layout::kBlocked512);
  EXPECT_EQ(std::memcmp(v.data(), old_f.data(), old_f.byte_size()), 0);
  ExpectSameAnswers(old_f, v);
  EXPECT_TRUE(LoadFilter(dir / "live.bbf") == new_f);
}

// ---- Atomic save ------------------------------------------------------------------

std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

TEST(Format, SaveReplacesAndLeavesNoTemporaryFiles) {
  TempDir dir;
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  const Filter b = MakeFilter(Layout::kClassic, 1000, HashKind::kXxh64, 2, 100);
  SaveFilter(a, dir / "f.bbf");
  SaveFilter(b, dir / "f.bbf");
  EXPECT_TRUE(LoadFilter(dir / "f.bbf") == b);
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"f.bbf"});
}

TEST(Format, FailedSaveLeavesNothingBehind) {
  TempDir dir;
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  // The target is a directory: rename() fails after the data was written.
  fs::create_directory(dir / "taken");
  EXPECT_THROW(SaveFilter(a, dir / "taken"), std::runtime_error);
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"taken"});
  // The directory does not exist: nothing can be created.
  try {
    SaveFilter(a, dir / "missing/f.bbf");
    FAIL() << "saving into a missing directory succeeded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/f.bbf"), std::string::npos) << e.what();
  }
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"taken"});
}

// ---- Paths: what a save may replace, what a load may read (format.h) --------------

TEST(Paths, SaveRefusesFifoSocketAndDirectoryAndLeavesThemAsTheyWere) {
  TempDir dir;
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  try {
    SaveFilter(a, dir / "fifo");
    FAIL() << "a FIFO was replaced";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("fifo: is a FIFO: expected a regular file or a new name"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(fs::is_fifo(dir / "fifo"));
  fs::create_directory(dir / "d");
  EXPECT_THROW(SaveFilter(a, dir / "d"), std::runtime_error);
  EXPECT_TRUE(fs::is_directory(dir / "d"));
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"d", "fifo"}));
}

TEST(Paths, SaveThroughASymlinkReplacesTheTargetAndKeepsTheLink) {
  TempDir dir;
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  const Filter b = MakeFilter(Layout::kClassic, 1000, HashKind::kXxh64, 2, 100);
  fs::create_directory(dir / "real");
  SaveFilter(a, dir / "real/f.bbf");
  fs::permissions(dir / "real/f.bbf", fs::perms(0640));
  fs::create_symlink("real/f.bbf", dir / "link.bbf");
  SaveFilter(b, dir / "link.bbf");
  EXPECT_TRUE(fs::is_symlink(dir / "link.bbf"));
  EXPECT_TRUE(LoadFilter(dir / "real/f.bbf") == b);
  EXPECT_EQ(fs::status(dir / "real/f.bbf").permissions(), fs::perms(0640)) << "the replaced file's mode changed";
  fs::create_symlink("nowhere.bbf", dir / "dangling.bbf");
  EXPECT_THROW(SaveFilter(b, dir / "dangling.bbf"), std::runtime_error);
  EXPECT_FALSE(fs::exists(dir / "nowhere.bbf"));
}

TEST(Paths, LoadAndViewRefuseAFifoAtOnce) {
  TempDir dir;
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0644), 0);
  Filter target = Filter::WithBlocks(Layout::kBlocked512, 2, 3);
  const Filter before = Filter::CopyOf(target);
  // Without the check before open's wait these would block forever (no writer).
  try {
    LoadFilter(dir / "fifo", &target);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("is a FIFO: expected a regular file"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(target == before);
  EXPECT_THROW(MappedFilter::Open(dir / "fifo"), std::runtime_error);
  EXPECT_THROW(MappedFilter::Open(dir.path().string()), std::runtime_error);  // a directory
}

TEST(Paths, RemovePendingTempFilesIsHarmlessWhenNothingIsBeingWritten) {
  TempDir dir;
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  SaveFilter(a, dir / "f.bbf");
  RemovePendingTempFiles();
  EXPECT_TRUE(LoadFilter(dir / "f.bbf") == a);
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"f.bbf"});
}

// A writer killed by SIGKILL leaves "<out>.tmp.<pid>.<6>". The next save
// removes it once its writer is dead, whatever its timestamp: one dated now
// (the writer died this second) or ahead (a clock running ahead), and keeps
// the temporary file of a live writer.
TEST(Paths, SaveRemovesTheTempFilesOfDeadWritersWhateverTheirTime) {
  TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);  // reaped: its PID names no process
  ASSERT_EQ(::kill(child, 0), -1);
  const std::string dead = std::to_string(child);
  const std::string now_name = "f.bbf.tmp." + dead + ".abcdef";
  const std::string ahead_name = "f.bbf.tmp." + dead + ".ghijkl";
  const std::string live_name = "f.bbf.tmp." + std::to_string(::getppid()) + ".mnopqr";
  for (const std::string& name : {now_name, ahead_name, live_name}) WriteAll(dir / name, std::vector<uint8_t>(100, 1));
  const struct timespec ahead[2] = {{std::time(nullptr) + 3600, 0}, {std::time(nullptr) + 3600, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, (dir / ahead_name).c_str(), ahead, 0), 0);
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  SaveFilter(a, dir / "f.bbf");
  EXPECT_EQ(Listing(dir.path()), (std::vector<std::string>{"f.bbf", live_name}));
}

// The format has no empty filter (0 blocks fails at byte 24 on load), so a
// save of one is refused before anything is written, never a file that does
// not load.
TEST(Format, SaveOfTheEmptyFilterIsRefusedAndWritesNothing) {
  TempDir dir;
  Filter a = MakeFilter(Layout::kSplit256, 8, HashKind::kXxh64, 0, 100);
  SaveFilter(a, dir / "old.bbf");
  const Filter b = std::move(a);
  const FilterView defaulted;
  for (const FilterView* empty : {static_cast<const FilterView*>(&a), &defaulted}) {  // NOLINT(bugprone-use-after-move)
    try {
      SaveFilter(*empty, dir / "new.bbf");
      FAIL() << "the empty filter was saved";
    } catch (const std::logic_error& e) {
      EXPECT_NE(std::string(e.what()).find("new.bbf: SaveFilter: the filter is empty (default-constructed or moved "
                                           "from, 0 blocks): expected a filter of at least 1 block"),
                std::string::npos)
          << e.what();
    }
    // Over an existing file: it stays as it was.
    EXPECT_THROW(SaveFilter(*empty, dir / "old.bbf"), std::invalid_argument);
    EXPECT_THROW(SerializeFilter(*empty), std::invalid_argument);
  }
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"old.bbf"});
  EXPECT_TRUE(LoadFilter(dir / "old.bbf") == b);
}

// The system reads a path up to its first NUL: "victim.bbf\0x" would open
// victim.bbf and "out\0evil" write "out". Every path is refused instead.
TEST(Paths, APathWithANulByteIsRefusedBeforeAnySystemCall) {
  TempDir dir;
  const Filter a = MakeFilter(Layout::kBlocked512, 8, HashKind::kXxh3, 1, 100);
  SaveFilter(a, dir / "victim.bbf");
  const std::string victim = dir / "victim.bbf";
  const std::string with_nul = victim + std::string("\0x", 2);
  try {
    LoadFilter(with_nul);
    FAIL() << "a path with a NUL byte was read";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("has a NUL byte at byte " + std::to_string(victim.size()) +
                                         ": expected a path without NUL bytes"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(MappedFilter::Open(with_nul), std::invalid_argument);
  EXPECT_THROW(SaveFilter(a, dir / "out" + std::string("\0evil.bbf", 9)), std::invalid_argument);
  const std::span<const uint8_t> parts[] = {{a.data(), a.byte_size()}};
  EXPECT_THROW(WriteFileAtomic(dir / "out" + std::string("\0evil.bbf", 9), parts), std::invalid_argument);
  EXPECT_EQ(Listing(dir.path()), std::vector<std::string>{"victim.bbf"});
}

// A FilterView is copied, never assigned (view.h): a FilterView& may name a
// MappedFilter, and assigning through it would re-seat the owner of a mapping.
static_assert(!std::is_assignable_v<FilterView&, const MappedFilter&>);
static_assert(!std::is_assignable_v<FilterView&, MappedFilter&&>);
static_assert(!std::is_assignable_v<FilterView&, const FilterView&>);
static_assert(std::is_nothrow_move_assignable_v<MappedFilter>);
static_assert(!std::is_copy_assignable_v<MappedFilter>);
static_assert(std::is_constructible_v<FilterView, const MappedFilter&>);  // a non-owning copy
static_assert(!std::is_constructible_v<FilterView, MappedFilter&&>);      // would dangle at once

TEST(Sizes, WithBytesBeyondTheLimitNamesTheBytesNotZeroBits) {
  for (const uint64_t bytes : {uint64_t{1} << 61, (uint64_t{1} << 61) + 1, uint64_t{1} << 62, UINT64_MAX}) {
    try {
      Filter::WithBytes(Layout::kBlocked512, bytes, 6);
      FAIL() << bytes;
    } catch (const std::invalid_argument& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find("bytes = " + std::to_string(bytes) + " is out of range"), std::string::npos) << msg;
      EXPECT_EQ(msg.find("bits = 0"), std::string::npos) << msg;
    }
  }
}

// ---- Corruption: one test per kind, each naming the byte --------------------------

// Valid bytes of a small split256 filter with an odd number of blocks (so a
// 32-byte padding tail follows the last block).
std::vector<uint8_t> ValidBytes() {
  return SerializeFilter(MakeFilter(Layout::kSplit256, 3, HashKind::kXxh64, 99, 20));
}

// Recomputes the checksum, for corruptions that must be caught by something else.
void Reseal(std::vector<uint8_t>& b) {
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, b.data(), 56);
  XXH3_64bits_update(&st, b.data() + 64, b.size() - 64);
  const uint64_t c = XXH3_64bits_digest(&st);
  for (int i = 0; i < 8; ++i) b[56 + i] = static_cast<uint8_t>(c >> (8 * i));
}

void Put(std::vector<uint8_t>& b, size_t at, uint64_t v, size_t n) {
  for (size_t i = 0; i < n; ++i) b[at + i] = static_cast<uint8_t>(v >> (8 * i));
}

// Loads `bytes` from a file into a filter that already holds something: the
// load must fail with FormatError at `offset` mentioning `needle`, and the
// filter must be untouched.
void ExpectRejected(const std::vector<uint8_t>& bytes, uint64_t offset, const std::string& needle) {
  TempDir dir;
  const std::string path = dir / "bad.bbf";
  WriteAll(path, bytes);
  const Filter before = MakeFilter(Layout::kRegister64, 5, HashKind::kXxh3, 3, 50);
  Filter target = before;
  try {
    LoadFilter(path, &target);
    FAIL() << "a corrupt file was accepted (" << needle << ")";
  } catch (const FormatError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.offset(), offset) << msg;
    EXPECT_NE(msg.find(needle), std::string::npos) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << "the message must name the file: " << msg;
    EXPECT_NE(msg.find("byte " + std::to_string(offset)), std::string::npos) << msg;
    EXPECT_EQ(msg.rfind("blockbloom: ", 0), 0u) << msg;
  }
  EXPECT_TRUE(target == before);
  EXPECT_EQ(target.inserted(), before.inserted());
  EXPECT_THROW(MappedFilter::Open(path), FormatError);
  EXPECT_THROW(DeserializeFilter(bytes), FormatError);
}

TEST(Corrupt, EmptyFile) { ExpectRejected({}, 0, "truncated"); }

TEST(Corrupt, TruncatedHeader) {
  auto b = ValidBytes();
  b.resize(40);
  ExpectRejected(b, 40, "truncated");
}

TEST(Corrupt, TruncatedPayload) {
  auto b = ValidBytes();
  b.resize(b.size() - 1);
  ExpectRejected(b, b.size(), "truncated");
}

TEST(Corrupt, TrailingBytes) {
  auto b = ValidBytes();
  const size_t end = b.size();
  b.push_back(0);
  ExpectRejected(b, end, "unexpected bytes after the payload");
}

TEST(Corrupt, WrongMagic) {
  auto b = ValidBytes();
  b[3] ^= 0x20;
  ExpectRejected(b, 0, "magic");
}

TEST(Corrupt, UnknownVersion) {
  auto b = ValidBytes();
  Put(b, 8, 7, 4);
  ExpectRejected(b, 8, "format version 7 is unknown: expected 1");
}

TEST(Corrupt, UnknownLayout) {
  auto b = ValidBytes();
  b[12] = 9;
  ExpectRejected(b, 12, "layout 9 is unknown");
}

TEST(Corrupt, UnknownHash) {
  auto b = ValidBytes();
  const int past = static_cast<int>(kLastHashKind) + 1;  // the first value past the known kinds
  b[13] = static_cast<uint8_t>(past);
  ExpectRejected(b, 13, "hash " + std::to_string(past) + " is unknown");
}

TEST(Corrupt, ReservedBytesSet) {
  auto b = ValidBytes();
  b[15] = 1;
  ExpectRejected(b, 14, "reserved");
  b = ValidBytes();
  b[22] = 1;
  ExpectRejected(b, 20, "reserved");
}

TEST(Corrupt, KOutOfRangeForLayout) {
  auto b = ValidBytes();
  Put(b, 16, 7, 4);  // split256 needs k = 8
  ExpectRejected(b, 16, "k = 7 is out of range for layout split256");
}

TEST(Corrupt, BlockCountOutOfRange) {
  auto b = ValidBytes();
  Put(b, 24, 0, 8);
  ExpectRejected(b, 24, "number of blocks = 0");
  Put(b, 24, (uint64_t{1} << 32) + 1, 8);
  ExpectRejected(b, 24, "number of blocks = 4294967297");
}

TEST(Corrupt, ParametersDisagreeWithPayloadSize) {
  auto b = ValidBytes();  // 3 blocks of 32 bytes -> 128 payload bytes
  Put(b, 24, 5, 8);       // 5 blocks would need 192
  ExpectRejected(b, 48, "payload size 128 disagrees with layout split256 and 5 blocks: expected 192");
  b = ValidBytes();
  Put(b, 48, 64, 8);
  ExpectRejected(b, 48, "payload size 64");
}

TEST(Corrupt, PayloadBitFlipFailsChecksum) {
  auto b = ValidBytes();
  b[64 + 10] ^= 0x04;
  ExpectRejected(b, 56, "checksum mismatch");
}

TEST(Corrupt, HeaderFieldChangeFailsChecksum) {
  auto b = ValidBytes();
  b[40] ^= 1;  // keys inserted: covered by the checksum too
  ExpectRejected(b, 56, "checksum mismatch");
  b = ValidBytes();
  b[32] ^= 1;  // seed
  ExpectRejected(b, 56, "checksum mismatch");
}

TEST(Corrupt, PaddingBitsSetEvenWithValidChecksum) {
  auto b = ValidBytes();
  b[64 + 3 * 32 + 5] = 0x10;  // inside the padding after the 3rd block
  Reseal(b);
  ExpectRejected(b, 64 + 3 * 32 + 5, "padding");
  // classic: 10001 bits end inside byte 1250; its bit 1 is past m.
  auto c = SerializeFilter(MakeFilter(Layout::kClassic, 10'001, HashKind::kXxh3, 0, 10));
  c[64 + 1250] |= 0x02;
  Reseal(c);
  ExpectRejected(c, 64 + 1250, "bits past the filter's 10001 bits are set");
}

TEST(Corrupt, MissingFileIsAReadError) {
  Filter target = Filter::WithBlocks(Layout::kBlocked512, 2, 3);
  target.Insert(uint64_t{5});
  const Filter before = target;
  try {
    LoadFilter("/nonexistent/dir/f.bbf", &target);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/dir/f.bbf"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(target == before);
}

// ---- Golden files ------------------------------------------------------------------
// tests/golden/v1_<layout>.bbf: a filter of each layout built from fixed keys;
// v1_split256_<hash>.bbf: the same of split256 under each other hash kind.
// A failure means the bytes of a version-1 file changed: either a bug, or an
// intended format change, which needs kFormatVersion bumped and the files
// regenerated with BLOCKBLOOM_REGENERATE_GOLDEN=1 ./format_test.

Filter GoldenFilter(Layout layout, HashKind hash = HashKind::kXxh3) {
  Filter f = Filter::WithBlocks(layout, layout == Layout::kClassic ? 1001 : 5, SomeK(layout), hash, 0x5eed);
  for (uint64_t i = 0; i < 40; ++i) f.Insert(i);
  f.Insert(std::string_view("golden"));
  f.AddInserted(41);  // the files' count (single-key inserts do not count)
  return f;
}

TEST(Golden, Version1FilesArePinned) {
  const bool regenerate = std::getenv("BLOCKBLOOM_REGENERATE_GOLDEN") != nullptr;
  for (Layout layout : kAllLayouts) {
    const std::string path =
        std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/v1_" + std::string(LayoutName(layout)) + ".bbf";
    const Filter f = GoldenFilter(layout);
    if (regenerate) SaveFilter(f, path);
    ASSERT_TRUE(fs::exists(path)) << "missing golden file " << path << " (a new layout: write it with "
                                   << "BLOCKBLOOM_REGENERATE_GOLDEN=1 <build>/tests/format_test --gtest_filter=Golden.*)";
    EXPECT_EQ(SerializeFilter(f), ReadAll(path))
        << "the bytes of a format-version-" << kFormatVersion << " " << LayoutName(layout)
        << " file changed. If intended, bump kFormatVersion (format.h) and regenerate with "
           "BLOCKBLOOM_REGENERATE_GOLDEN=1 ./format_test";
    const Filter g = LoadFilter(path);
    EXPECT_TRUE(g == f);
    for (uint64_t i = 0; i < 40; ++i) EXPECT_TRUE(g.MayContain(i));
    EXPECT_TRUE(g.MayContain(std::string_view("golden")));
  }
}

TEST(Golden, HashKindFilesArePinned) {
  const bool regenerate = std::getenv("BLOCKBLOOM_REGENERATE_GOLDEN") != nullptr;
  for (HashKind hash : kHashKinds) {
    if (hash == HashKind::kXxh3) continue;  // Version1FilesArePinned
    const std::string path =
        std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/v1_split256_" + std::string(HashName(hash)) + ".bbf";
    const Filter f = GoldenFilter(Layout::kSplit256, hash);
    if (regenerate) SaveFilter(f, path);
    ASSERT_TRUE(fs::exists(path)) << "missing golden file " << path << " (a new hash kind: write it with "
                                   << "BLOCKBLOOM_REGENERATE_GOLDEN=1 <build>/tests/format_test "
                                   << "--gtest_filter=Golden.*)";
    EXPECT_EQ(SerializeFilter(f), ReadAll(path)) << "the bytes of a " << HashName(hash) << " file changed";
    const Filter g = LoadFilter(path);
    EXPECT_TRUE(g == f);
    EXPECT_EQ(g.hash_kind(), hash);
    for (uint64_t i = 0; i < 40; ++i) EXPECT_TRUE(g.MayContain(i));
    EXPECT_TRUE(g.MayContain(std::string_view("golden")));
  }
}

}  // namespace
}  // namespace blockbloom
