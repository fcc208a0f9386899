// SPDX-License-Identifier: Apache-2.0
// RocksDB interop without librocksdb: the "rocksdb" hash against librocksdb's
// own Hash64 values (tests/golden/rocksdb_hash64.tsv), an SST that RocksDB
// 7.8.3 wrote (tests/golden/rocksdb_100keys.sst, keys key1000..key1099) read
// and rebuilt byte for byte, and every malformed block, footer and handle
// refused with its byte offset. tests/rocksdb_test.cc (librocksdb) writes both
// goldens: see its RegenerateGolden test.
#include "blockbloom/rocksdb.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/hash.h"

namespace blockbloom {
namespace {

const std::string kGolden = std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/";

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read golden file " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t Swap32(uint64_t h) { return (h << 32) | (h >> 32); }

std::vector<std::string> GoldenKeys() {
  std::vector<std::string> keys;
  for (int i = 0; i < 100; ++i) keys.push_back("key" + std::to_string(1000 + i));
  return keys;
}

// The offset a FormatError names, and that its message contains `words`.
template <typename Fn>
uint64_t ErrorOffset(Fn&& fn, const std::string& words) {
  try {
    fn();
  } catch (const FormatError& e) {
    EXPECT_NE(std::string(e.what()).find(words), std::string::npos) << e.what();
    return e.offset();
  }
  ADD_FAILURE() << "no FormatError (expected one saying '" << words << "')";
  return ~uint64_t{0};
}

TEST(RocksdbHash, MatchesLibrocksdbVectorsInEveryLengthClass) {
  std::ifstream in(kGolden + "rocksdb_hash64.tsv");
  ASSERT_TRUE(in) << "tests/golden/rocksdb_hash64.tsv";
  std::string buf;
  for (size_t i = 0; i < 1100; ++i) buf.push_back(static_cast<char>((i * 31 + 7) & 0xff));
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream row(line);
    size_t len = 0;
    uint64_t seed = 0;
    std::string hex;
    row >> len >> seed >> hex;
    ASSERT_LE(len, buf.size());
    EXPECT_EQ(HashBytes(std::string_view(buf.data(), len), HashKind::kRocksdb, seed),
              Swap32(std::stoull(hex, nullptr, 16)))
        << "length " << len << " seed " << seed;
    ++rows;
  }
  EXPECT_EQ(rows, 54);
  EXPECT_EQ(ParseHash("rocksdb"), HashKind::kRocksdb);
  EXPECT_EQ(HashName(HashKind::kRocksdb), "rocksdb");
  // Not released XXH3: the preview differs at every length class.
  EXPECT_NE(HashBytes("key1000", HashKind::kRocksdb, 0), HashBytes("key1000", HashKind::kXxh3, 0));
}

TEST(RocksdbSstGolden, ReadsTheFilterRocksdbWroteAndRebuildsItByteForByte) {
  const std::vector<uint8_t> sst = ReadBytes(kGolden + "rocksdb_100keys.sst");
  const Filter read = ImportRocksdbSst(sst, "rocksdb_100keys.sst");
  EXPECT_EQ(read.layout(), Layout::kBlocked512);
  EXPECT_EQ(read.hash_kind(), HashKind::kRocksdb);
  EXPECT_EQ(read.seed(), 0u);
  EXPECT_EQ(read.k(), 6u);           // ChooseNumProbes(10 bits per key)
  EXPECT_EQ(read.num_blocks(), 2u);  // ceil(100 * 10 / 8) = 125 bytes, rounded up to 2 lines
  Filter ours = Filter::WithBlocks(Layout::kBlocked512, 2, 6, HashKind::kRocksdb, 0);
  for (const std::string& k : GoldenKeys()) ours.Insert(std::string_view(k));
  EXPECT_EQ(0, std::memcmp(read.data(), ours.data(), 2 * kRocksdbLineBytes));
  for (const std::string& k : GoldenKeys()) EXPECT_TRUE(read.MayContain(std::string_view(k))) << k;
  // The block, re-exported, is the block in the file.
  const std::vector<uint8_t> block = RocksdbSstFilterBlock(sst, "rocksdb_100keys.sst");
  EXPECT_EQ(block.size(), 2 * kRocksdbLineBytes + kRocksdbTrailerBytes);
  EXPECT_EQ(ExportRocksdb(ours), block);
  EXPECT_TRUE(ImportRocksdb(block) == read);
}

// A filter block of `lines` lines with the trailer RocksDB writes, and its bitset's bytes.
std::vector<uint8_t> Block(uint64_t lines, uint8_t k) {
  Filter f = Filter::WithBlocks(Layout::kBlocked512, lines, k, HashKind::kRocksdb, 0);
  for (uint64_t x = 0; x < 50 * lines; ++x) f.Insert(x);
  return ExportRocksdb(f);
}

TEST(RocksdbBlock, RoundTripsEveryK) {
  for (uint8_t k = 1; k <= 16; ++k) {
    const std::vector<uint8_t> b = Block(3, k);
    ASSERT_EQ(b.size(), 3 * 64 + 5u);
    EXPECT_EQ(b[192], 0xff);
    EXPECT_EQ(b[193], 0);
    EXPECT_EQ(b[194], k);
    EXPECT_EQ(b[195], 0);
    EXPECT_EQ(b[196], 0);
    const Filter f = ImportRocksdb(b);
    EXPECT_EQ(f.k(), k);
    EXPECT_EQ(ExportRocksdb(f), b);
    for (uint64_t x = 0; x < 150; ++x) ASSERT_TRUE(f.MayContain(x));
  }
}

TEST(RocksdbBlock, RefusesOtherImplementationsAndBadSizesAtTheirByte) {
  const std::vector<uint8_t> good = Block(2, 6);  // 128 + 5 bytes
  auto with = [&](size_t at, uint8_t v) {
    std::vector<uint8_t> b = good;
    b[at] = v;
    return b;
  };
  auto import = [](const std::vector<uint8_t>& b) { return [b] { ImportRocksdb(b, "f"); }; };
  EXPECT_EQ(ErrorOffset(import(with(128, 0xfe)), "Ribbon"), 128u);
  EXPECT_EQ(ErrorOffset(import(with(128, 6)), "legacy Bloom"), 128u);
  EXPECT_EQ(ErrorOffset(import(with(128, 0x80)), "marker byte 128"), 128u);
  EXPECT_EQ(ErrorOffset(import(with(128, 0)), "marker byte 0"), 128u);
  EXPECT_EQ(ErrorOffset(import(with(129, 1)), "sub-implementation 1"), 129u);
  EXPECT_EQ(ErrorOffset(import(with(130, 0x26)), "64-byte cache lines"), 130u);  // 128-byte blocks, k 6
  EXPECT_EQ(ErrorOffset(import(with(130, 0)), "probe count 0"), 130u);
  EXPECT_EQ(ErrorOffset(import(with(130, 31)), "probe count 31"), 130u);
  EXPECT_EQ(ErrorOffset(import(with(130, 17)), "beyond blocked512"), 130u);
  EXPECT_EQ(ErrorOffset(import(with(131, 1)), "reserved bytes"), 131u);
  EXPECT_EQ(ErrorOffset(import(with(132, 1)), "reserved bytes"), 131u);
  // A bitset that is not whole lines: 100 bytes.
  std::vector<uint8_t> odd(good.begin() + 28, good.end());
  EXPECT_EQ(ErrorOffset(import(odd), "multiple of 64"), 64u);
  // The empty filter RocksDB writes for no keys, and shorter.
  EXPECT_EQ(ErrorOffset(import({0xff, 0, 6, 0, 0}), "empty filter"), 0u);
  EXPECT_EQ(ErrorOffset(import({}), "empty filter"), 0u);
}

TEST(RocksdbBlock, ExportRefusesWhatRocksdbCannotRead) {
  std::string why;
  EXPECT_FALSE(IsRocksdbCompatible(Filter::WithBlocks(Layout::kSplit256, 4, 8, HashKind::kRocksdb, 0), &why));
  EXPECT_NE(why.find("expected blocked512"), std::string::npos) << why;
  EXPECT_FALSE(IsRocksdbCompatible(Filter::WithBlocks(Layout::kBlocked512, 4, 6, HashKind::kXxh3, 0), &why));
  EXPECT_NE(why.find("expected rocksdb"), std::string::npos) << why;
  EXPECT_FALSE(IsRocksdbCompatible(Filter::WithBlocks(Layout::kBlocked512, 4, 6, HashKind::kRocksdb, 3), &why));
  EXPECT_NE(why.find("seed is 3"), std::string::npos) << why;
  EXPECT_THROW(ExportRocksdb(Filter::WithBlocks(Layout::kBlocked512, 4, 6, HashKind::kXxh3, 0)), std::invalid_argument);
  EXPECT_TRUE(IsRocksdbCompatible(Filter::WithBlocks(Layout::kBlocked512, 4, 6, HashKind::kRocksdb, 0), &why));
  EXPECT_EQ(why, "");
}

constexpr uint64_t kFooter = 53;  // bytes of a format_version 1..5 footer

// Offsets in the golden SST, found from its footer.
struct SstMap {
  uint64_t size, meta_offset, meta_size, filter_offset, filter_size;
};
SstMap Map(const std::vector<uint8_t>& sst) {
  const std::vector<uint8_t> block = RocksdbSstFilterBlock(sst);
  SstMap m{sst.size(), 0, 0, 0, block.size()};
  const uint8_t* p = sst.data() + sst.size() - 52;  // the handles after the checksum byte
  auto varint = [&p] {
    uint64_t v = 0;
    for (int s = 0;; s += 7) {
      v |= uint64_t{*p & 0x7fu} << s;
      if (!(*p++ & 0x80)) return v;
    }
  };
  m.meta_offset = varint();
  m.meta_size = varint();
  m.filter_offset =
      static_cast<uint64_t>(std::search(sst.begin(), sst.end(), block.begin(), block.end()) - sst.begin());
  return m;
}

TEST(RocksdbSstHostile, RefusesForeignFootersAndHandlesWithTheirOffset) {
  const std::vector<uint8_t> sst = ReadBytes(kGolden + "rocksdb_100keys.sst");
  const SstMap m = Map(sst);
  auto read = [](std::vector<uint8_t> b) { return [b] { ImportRocksdbSst(b, "t.sst"); }; };
  auto with = [&](uint64_t at, uint8_t v) {
    std::vector<uint8_t> b = sst;
    b[at] = v;
    return b;
  };
  EXPECT_EQ(ErrorOffset(read({1, 2, 3}), "53-byte footer"), 3u);
  EXPECT_EQ(ErrorOffset(read(with(m.size - 1, 0)), "block-based table magic"), m.size - 8);
  // A plain table's magic (0x8242229663bf9564, little-endian).
  std::vector<uint8_t> plain = sst;
  const uint64_t plain_magic = 0x8242229663bf9564ULL;
  std::memcpy(plain.data() + plain.size() - 8, &plain_magic, 8);
  EXPECT_EQ(ErrorOffset(read(plain), "plain table"), m.size - 8);
  EXPECT_EQ(ErrorOffset(read(with(m.size - 12, 6)), "format_version 6"), m.size - 12);
  EXPECT_EQ(ErrorOffset(read(with(m.size - 12, 0)), "format_version 0"), m.size - 12);
  // The metaindex handle pointing past the file: its size varint made huge.
  std::vector<uint8_t> far = sst;
  for (int i = 0; i < 9; ++i) far[m.size - 52 + i] = 0xff;  // a 10-byte offset varint
  far[m.size - 52 + 9] = 0x01;
  EXPECT_EQ(ErrorOffset(read(far), "runs past the end"), m.size - 52);
  // An unterminated varint in the handles.
  std::vector<uint8_t> endless = sst;
  for (int i = 0; i < 40; ++i) endless[m.size - 52 + i] = 0x80;
  EXPECT_EQ(ErrorOffset(read(endless), "varint longer than 10 bytes"), m.size - 52);
  // The filter block's trailer says compressed.
  EXPECT_EQ(ErrorOffset(read(with(m.filter_offset + m.filter_size, 1)), "compression type 1"),
            m.filter_offset + m.filter_size);
  // A flipped bit in the bitset: the filter's checks pass, the block's XXH3
  // checksum (RocksDB 7.8's default) does not.
  EXPECT_EQ(ErrorOffset(read(with(m.filter_offset + 7, sst[m.filter_offset + 7] ^ 1)), "checksum"),
            m.filter_offset + m.filter_size + 1);
  EXPECT_EQ(ErrorOffset(read(with(m.size - kFooter, 9)), "checksum type 9"), m.size - kFooter);
  // The filter's own trailer, named at its offset in the file.
  EXPECT_EQ(ErrorOffset(read(with(m.filter_offset + m.filter_size - 5, 0xfe)), "Ribbon"),
            m.filter_offset + m.filter_size - 5);
  // The metaindex key renamed (one byte of "fullfilter." changed): no full filter.
  std::vector<uint8_t> renamed = sst;
  const std::string key = "fullfilter.";
  auto it = std::search(renamed.begin() + static_cast<ptrdiff_t>(m.meta_offset), renamed.end(), key.begin(), key.end());
  ASSERT_NE(it, renamed.end());
  *it = 'x';
  EXPECT_EQ(ErrorOffset(read(renamed), "expected an entry fullfilter.rocksdb.BuiltinBloomFilter"), m.meta_offset);
}

// From a file (read in pieces: footer, metaindex, filter block): the same
// filter and the same errors at the same offsets as from the buffer.
TEST(RocksdbSstFile, ReadsAsTheBufferDoes) {
  const std::vector<uint8_t> sst = ReadBytes(kGolden + "rocksdb_100keys.sst");
  EXPECT_TRUE(ReadRocksdbSst(kGolden + "rocksdb_100keys.sst") == ImportRocksdbSst(sst));
  const SstMap m = Map(sst);
  const std::string path = ::testing::TempDir() + "rocksdb_format_test_bad.sst";
  auto write_and_read = [&](std::vector<uint8_t> bytes) {
    std::ofstream(path, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return [path] { ReadRocksdbSst(path); };
  };
  std::vector<uint8_t> ribbon = sst;
  ribbon[m.filter_offset + m.filter_size - 5] = 0xfe;
  EXPECT_EQ(ErrorOffset(write_and_read(ribbon), "Ribbon"), m.filter_offset + m.filter_size - 5);
  const std::vector<uint8_t> cut(sst.begin(), sst.begin() + 40);
  EXPECT_EQ(ErrorOffset(write_and_read(cut), "53-byte footer"), 40u);
  std::vector<uint8_t> far = sst;
  for (int i = 0; i < 9; ++i) far[m.size - 52 + i] = 0xff;
  far[m.size - 52 + 9] = 0x01;
  EXPECT_EQ(ErrorOffset(write_and_read(far), "runs past the end"), m.size - 52);
  std::remove(path.c_str());
  EXPECT_THROW(ReadRocksdbSst(path), std::runtime_error);
}

// Every prefix and many single-byte changes of a real SST: either a filter or
// a FormatError, never a crash or a read out of bounds (CI runs this under ASan).
TEST(RocksdbSstHostile, TruncationsAndCorruptionsFailCleanly) {
  const std::vector<uint8_t> sst = ReadBytes(kGolden + "rocksdb_100keys.sst");
  for (size_t n = 0; n < sst.size(); ++n) {
    const std::vector<uint8_t> cut(sst.begin(), sst.begin() + static_cast<ptrdiff_t>(n));
    EXPECT_THROW(ImportRocksdbSst(cut), FormatError) << "prefix of " << n << " bytes";
  }
  std::mt19937_64 rng(24);
  size_t refused = 0;
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint8_t> b = sst;
    b[rng() % b.size()] ^= static_cast<uint8_t>(1 + rng() % 255);
    try {
      ImportRocksdbSst(b);
    } catch (const FormatError&) {
      ++refused;
    }
  }
  EXPECT_GT(refused, 0u);
}

}  // namespace
}  // namespace blockbloom
