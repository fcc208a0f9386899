// SPDX-License-Identifier: Apache-2.0
// Against the real thing: Debian's librocksdb (7.8.3) writes SST files with
// its public SstFileWriter and NewBloomFilterPolicy(10) in a block-based table
// (format_version 5, whole-key filtering, no prefix extractor); the filter we
// read from each SST equals byte for byte the one we build from the same keys,
// finds every key written, and answers absent keys exactly as RocksDB's Get
// does (its BLOOM_FILTER_USEFUL ticker counts the filter's "no"s). Built only
// when CMake finds librocksdb (tools/scripts/install-deps.sh test installs it).
#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/filter_policy.h>
#include <rocksdb/options.h>
#include <rocksdb/sst_file_writer.h>
#include <rocksdb/statistics.h>
#include <rocksdb/table.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/rocksdb.h"

// RocksDB's key hash for filters (util/hash.h: XXPH3_64bits_withSeed). Not in
// its public headers, but exported by librocksdb.so: the oracle for our
// definition of the preview XXH3.
namespace rocksdb {
uint64_t Hash64(const char* data, size_t n, uint64_t seed);
}

namespace blockbloom {
namespace {

namespace fs = std::filesystem;

constexpr int kBitsPerKey = 10;
constexpr uint32_t kRocksdbK = 6;  // FastLocalBloomImpl::ChooseNumProbes(10000 millibits)

uint64_t Swap32(uint64_t h) { return (h << 32) | (h >> 32); }

std::string Le8(uint64_t v) {
  std::string s(8, '\0');
  for (int i = 0; i < 8; ++i) s[i] = static_cast<char>(v >> (8 * i));
  return s;
}

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Bloom filter policy at 10 bits/key, format_version 5, whole-key filtering.
rocksdb::BlockBasedTableOptions BloomTable() {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBitsPerKey));
  t.format_version = 5;
  t.whole_key_filtering = true;
  return t;
}
rocksdb::Options TableOptions(const rocksdb::BlockBasedTableOptions& t = BloomTable()) {
  rocksdb::Options o;
  o.table_factory.reset(rocksdb::NewBlockBasedTableFactory(t));
  o.compression = rocksdb::kNoCompression;
  return o;
}

// `keys` sorted bytewise and distinct, as SstFileWriter requires.
void WriteSst(const std::string& path, const std::vector<std::string>& keys,
              const rocksdb::BlockBasedTableOptions& t = BloomTable()) {
  rocksdb::SstFileWriter w(rocksdb::EnvOptions(), TableOptions(t));
  ASSERT_TRUE(w.Open(path).ok());
  for (const std::string& k : keys) ASSERT_TRUE(w.Put(k, "v").ok()) << k;
  ASSERT_TRUE(w.Finish().ok());
}

// 1000 sorted string keys.
std::vector<std::string> ThousandKeys() {
  std::vector<std::string> keys;
  for (int i = 0; i < 1000; ++i) keys.push_back("k" + std::to_string(10000 + i));
  return keys;
}

// FastLocalBloomBitsBuilder::CalculateSpace: ceil(n * bits / 8) bytes rounded
// up to whole 64-byte lines (optimize_filters_for_memory off, the default).
Filter SameSizedFilter(size_t n) {
  const uint64_t bytes = (uint64_t{n} * kBitsPerKey * 1000 + 7999) / 8000;
  return Filter::WithBlocks(Layout::kBlocked512, (bytes + 63) / 64, kRocksdbK, HashKind::kRocksdb, 0);
}

class TempDir {
 public:
  TempDir() {
    path_ = fs::temp_directory_path() /
            ("blockbloom_rocksdb_" + std::to_string(::getpid()) + "_" + std::to_string(counter_++));
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~TempDir() { fs::remove_all(path_); }
  std::string operator/(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
  static inline int counter_ = 0;
};

TEST(RocksdbHash, EqualsLibrocksdbHash64ForEveryLengthAndSeed) {
  std::mt19937_64 rng(24);
  std::string buf(1100, '\0');
  for (char& c : buf) c = static_cast<char>(rng());
  for (uint64_t seed : {uint64_t{0}, uint64_t{1}, uint64_t{0x9e3779b97f4a7c15}, ~uint64_t{0}}) {
    for (size_t len = 0; len <= buf.size(); ++len) {
      const std::string_view key(buf.data() + (len % 7), std::min(len, buf.size() - len % 7));
      ASSERT_EQ(HashBytes(key, HashKind::kRocksdb, seed), Swap32(rocksdb::Hash64(key.data(), key.size(), seed)))
          << "length " << key.size() << " seed " << seed;
    }
  }
  for (uint64_t x : {uint64_t{0}, uint64_t{1}, uint64_t{12345}, ~uint64_t{0}, rng(), rng()}) {
    const std::string bytes = Le8(x);
    EXPECT_EQ(HashU64(x, HashKind::kRocksdb, 0), Swap32(rocksdb::Hash64(bytes.data(), 8, 0))) << x;
    EXPECT_EQ(HashU64(x, HashKind::kRocksdb, 77), Swap32(rocksdb::Hash64(bytes.data(), 8, 77))) << x;
  }
}

struct KeySet {
  const char* name;
  size_t n;
  bool u64;  // 8-byte keys (a uint64's little-endian bytes) or strings
};

class RocksdbSst : public ::testing::TestWithParam<KeySet> {};

TEST_P(RocksdbSst, FilterMatchesOursAndRocksdbsAnswers) {
  const KeySet ks = GetParam();
  std::mt19937_64 rng(ks.n * 2 + ks.u64);
  // Present keys and absent keys, drawn together so that absent ones fall
  // inside the file's key range (RocksDB skips the filter outside it).
  std::vector<uint64_t> ints;
  std::vector<std::string> present, absent;
  for (size_t i = 0; i < ks.n; ++i) {
    const uint64_t x = rng();
    ints.push_back(x);
    present.push_back(ks.u64 ? Le8(x) : "user:" + std::to_string(x) + (i % 3 ? "/a longer key, past 16 bytes" : ""));
  }
  std::sort(present.begin(), present.end());
  present.erase(std::unique(present.begin(), present.end()), present.end());
  ASSERT_EQ(present.size(), ks.n);
  const size_t probes = std::max<size_t>(2000, ks.n);
  while (absent.size() < probes && ks.n > 1) {
    const uint64_t x = rng();
    std::string k = ks.u64 ? Le8(x) : "user:" + std::to_string(x) + (x % 3 ? "/a longer key, past 16 bytes" : "");
    if (k > present.front() && k < present.back() && !std::binary_search(present.begin(), present.end(), k))
      absent.push_back(std::move(k));
  }

  TempDir dir;
  const std::string sst = dir / "keys.sst";
  WriteSst(sst, present);
  if (HasFatalFailure()) return;

  // Ours, from the same keys (uint64 keys through the uint64 path).
  Filter ours = SameSizedFilter(ks.n);
  if (ks.u64) {
    ours.InsertBatch(std::span<const uint64_t>(ints));
  } else {
    const std::vector<std::string_view> views(present.begin(), present.end());
    ours.InsertBatch(std::span<const std::string_view>(views));
  }
  const std::vector<uint8_t> file = ReadBytes(sst);
  const std::vector<uint8_t> block = RocksdbSstFilterBlock(file, sst);
  EXPECT_EQ(block, ExportRocksdb(ours)) << "RocksDB's filter block differs from ours for " << ks.name;

  const Filter read = ReadRocksdbSst(sst);
  ASSERT_EQ(read.num_blocks(), ours.num_blocks());
  EXPECT_EQ(read.k(), kRocksdbK);
  EXPECT_EQ(read.hash_kind(), HashKind::kRocksdb);
  EXPECT_EQ(0, std::memcmp(read.data(), ours.data(), ours.num_blocks() * kRocksdbLineBytes));
  for (const std::string& k : present) ASSERT_TRUE(read.MayContain(std::string_view(k))) << "false negative";
  if (ks.u64)
    for (uint64_t x : ints) ASSERT_TRUE(read.MayContain(x)) << "false negative " << x;

  // RocksDB's answers: ingest the file and Get each absent key; the filter
  // said "no" exactly when BLOOM_FILTER_USEFUL went up.
  rocksdb::Options o = TableOptions();
  o.create_if_missing = true;
  o.statistics = rocksdb::CreateDBStatistics();
  rocksdb::DB* raw = nullptr;
  ASSERT_TRUE(rocksdb::DB::Open(o, dir / "db", &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  ASSERT_TRUE(db->IngestExternalFile({sst}, rocksdb::IngestExternalFileOptions()).ok());
  size_t rocks_no = 0, ours_no = 0, mismatches = 0;
  for (const std::string& k : absent) {
    const uint64_t before = o.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL);
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), k, &value).IsNotFound());
    const bool rocks_maybe = o.statistics->getTickerCount(rocksdb::BLOOM_FILTER_USEFUL) == before;
    const bool ours_maybe = read.MayContain(std::string_view(k));
    rocks_no += !rocks_maybe;
    ours_no += !ours_maybe;
    mismatches += rocks_maybe != ours_maybe;
  }
  for (const std::string& k : present) {
    std::string value;
    ASSERT_TRUE(db->Get(rocksdb::ReadOptions(), k, &value).ok());
  }
  EXPECT_EQ(mismatches, 0u) << absent.size() << " absent keys: RocksDB's filter said no " << rocks_no << " times, ours "
                            << ours_no;
  // The comparison saw both answers (not a filter that is always "maybe").
  if (absent.size() >= 2000) {
    EXPECT_GT(rocks_no, absent.size() * 9 / 10);
    EXPECT_LT(rocks_no, absent.size());
  }
}

INSTANTIATE_TEST_SUITE_P(KeySets, RocksdbSst,
                         ::testing::Values(KeySet{"one_string", 1, false}, KeySet{"one_u64", 1, true},
                                           KeySet{"thousand_strings", 1000, false}, KeySet{"thousand_u64", 1000, true},
                                           KeySet{"100k_strings", 100000, false}, KeySet{"100k_u64", 100000, true}),
                         [](const auto& info) { return std::string(info.param.name); });

// Filters blockbloom does not read, in real SSTs: refused with their name.
// (A filter of ours cannot be handed to RocksDB directly: FilterBitsReader is
// internal in 7.8, so the SST is the interface.)
void ExpectSstRefused(rocksdb::BlockBasedTableOptions t, uint32_t format_version, const std::string& words) {
  t.format_version = format_version;
  TempDir dir;
  const std::string sst = dir / "refused.sst";
  WriteSst(sst, ThousandKeys(), t);
  if (::testing::Test::HasFatalFailure()) return;
  try {
    ReadRocksdbSst(sst);
    FAIL() << "read a filter that should be refused with '" << words << "'";
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
  }
}

TEST(RocksdbSst, PartitionedFilterIsRefusedWithItsName) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBitsPerKey));
  t.partition_filters = true;
  t.index_type = rocksdb::BlockBasedTableOptions::kTwoLevelIndexSearch;
  ExpectSstRefused(t, 5, "partitioned");
}

TEST(RocksdbSst, RibbonFilterIsRefusedAtItsMarker) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewRibbonFilterPolicy(kBitsPerKey));
  ExpectSstRefused(t, 5, "Ribbon");
}

// Before format_version 5 the same policy writes the legacy Bloom filter.
TEST(RocksdbSst, LegacyBloomIsRefusedAtItsProbeCount) {
  rocksdb::BlockBasedTableOptions t;
  t.filter_policy.reset(rocksdb::NewBloomFilterPolicy(kBitsPerKey));
  ExpectSstRefused(t, 4, "legacy Bloom");
}

// Every checksum type RocksDB can write: the filter reads, and one flipped
// bit of its bitset (the filter's own checks pass) is caught by the block
// checksum, except for xxHash32 and no checksum, which blockbloom does not verify.
TEST(RocksdbSst, BlockChecksumsOfEveryTypeAreVerified) {
  for (rocksdb::ChecksumType type :
       {rocksdb::kNoChecksum, rocksdb::kCRC32c, rocksdb::kxxHash, rocksdb::kxxHash64, rocksdb::kXXH3}) {
    SCOPED_TRACE("checksum type " + std::to_string(static_cast<int>(type)));
    rocksdb::BlockBasedTableOptions t = BloomTable();
    t.checksum = type;
    TempDir dir;
    const std::string sst = dir / "c.sst";
    const std::vector<std::string> keys = ThousandKeys();
    WriteSst(sst, keys, t);
    if (HasFatalFailure()) return;
    std::vector<uint8_t> file = ReadBytes(sst);
    const Filter f = ImportRocksdbSst(file);
    for (const std::string& k : keys) ASSERT_TRUE(f.MayContain(std::string_view(k)));
    const std::vector<uint8_t> block = RocksdbSstFilterBlock(file);
    const auto at =
        static_cast<size_t>(std::search(file.begin(), file.end(), block.begin(), block.end()) - file.begin());
    file[at + 3] ^= 0x10;
    if (type == rocksdb::kNoChecksum || type == rocksdb::kxxHash) {
      EXPECT_NO_THROW(ImportRocksdbSst(file));
      continue;
    }
    try {
      ImportRocksdbSst(file);
      ADD_FAILURE() << "a flipped bit in the filter was not caught";
    } catch (const FormatError& e) {
      EXPECT_NE(std::string(e.what()).find("checksum"), std::string::npos) << e.what();
      EXPECT_EQ(e.offset(), at + block.size() + 1);
    }
  }
}

// Regenerates tests/golden/rocksdb_100keys.sst (the SST reader's format test
// without librocksdb) and tests/golden/rocksdb_hash64.tsv:
//   rocksdb_test --gtest_also_run_disabled_tests --gtest_filter='*RegenerateGolden*'
TEST(RocksdbGolden, DISABLED_RegenerateGolden) {
  const std::string dir = std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/";
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back("key" + std::to_string(1000 + i));
  WriteSst(dir + "rocksdb_100keys.sst", keys);
  std::ofstream tsv(dir + "rocksdb_hash64.tsv");
  tsv << "# length\tseed\tXXPH3_64bits_withSeed of bytes (i * 31 + 7) mod 256, i < length (librocksdb 7.8.3 Hash64)\n";
  std::string buf;
  for (size_t i = 0; i < 1100; ++i) buf.push_back(static_cast<char>((i * 31 + 7) & 0xff));
  for (uint64_t seed : {uint64_t{0}, uint64_t{42}})
    for (size_t len : {0,  1,  2,  3,   4,   5,   8,   9,   15,  16,  17,   32,   33,  64,
                       65, 96, 97, 128, 129, 200, 240, 241, 255, 256, 1024, 1025, 1100}) {
      char hex[17];
      std::snprintf(hex, sizeof hex, "%016llx",
                    static_cast<unsigned long long>(rocksdb::Hash64(buf.data(), len, seed)));
      tsv << len << '\t' << seed << '\t' << hex << '\n';
    }
}

}  // namespace
}  // namespace blockbloom
