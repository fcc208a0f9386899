// SPDX-License-Identifier: Apache-2.0
// Parquet split-block Bloom filters: the fixtures written by parquet-rs and
// parquet-mr (../shared/fixtures/parquet-sbbf) import, rebuild and export byte
// for byte; headers with anything but BLOCK / XXHASH / UNCOMPRESSED are refused.
#include "blockbloom/parquet.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"

namespace blockbloom {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(BLOCKBLOOM_SOURCE_DIR) + "/../shared/fixtures/parquet-sbbf";
const char* const kFixtureDirs[] = {"parquet_rs_with_length", "bloom_filter_xxhash_bin"};

std::vector<uint8_t> ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read fixture " + path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}
std::string ReadText(const std::string& path) {
  const auto b = ReadBytes(path);
  return {b.begin(), b.end()};
}

// Lines split on '\n' only, never trimmed; the final '\n' ends the last line.
std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start < text.size()) {
    size_t nl = text.find('\n', start);
    if (nl == std::string::npos) nl = text.size();
    out.push_back(text.substr(start, nl - start));
    start = nl + 1;
  }
  return out;
}

std::string Unhex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out.push_back(static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16)));
  return out;
}

// The .tsv files: value_json, plain_encoding_hex, xxh64_hex, reported_present.
// The value is taken from the plain encoding (exact bytes, no JSON unescaping).
struct Expected {
  std::string value;
  uint64_t hash;
  bool present;
};
std::vector<Expected> ReadTsv(const std::string& path) {
  std::vector<Expected> out;
  const auto lines = Lines(ReadText(path));
  for (size_t i = 1; i < lines.size(); ++i) {
    std::vector<std::string> cols;
    std::stringstream ss(lines[i]);
    for (std::string c; std::getline(ss, c, '\t');) cols.push_back(c);
    if (cols.size() != 4) throw std::runtime_error(path + ": line " + std::to_string(i + 1) + " has not 4 columns");
    out.push_back({Unhex(cols[1]), std::stoull(cols[2], nullptr, 16), cols[3] == "1"});
  }
  return out;
}

class Fixture : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    dir_ = kFixtures + "/" + GetParam();
    ASSERT_TRUE(fs::is_directory(dir_)) << "Parquet fixtures not found: looked in " << dir_
                                        << " (CI clones the repository with shared/ beside it)";
  }
  std::string dir_;
};

TEST_P(Fixture, PresentValuesRebuildTheBitsetExactly) {
  const auto bitset = ReadBytes(dir_ + "/bitset.bin");
  const auto values = Lines(ReadText(dir_ + "/present_values.txt"));
  const auto hashes = Lines(ReadText(dir_ + "/present_hashes.txt"));
  ASSERT_EQ(values.size(), hashes.size());
  ASSERT_FALSE(values.empty());
  Filter f = Filter::WithBytes(Layout::kSplit256, bitset.size(), 8, HashKind::kXxh64, 0);
  ASSERT_EQ(f.num_blocks() * kParquetBlockBytes, bitset.size());
  for (size_t i = 0; i < values.size(); ++i) {
    EXPECT_EQ(HashBytes(values[i], HashKind::kXxh64, 0), std::stoull(hashes[i], nullptr, 16)) << values[i];
    f.Insert(std::string_view(values[i]));
  }
  const auto out = ParquetBitset(f);
  ASSERT_EQ(out.size(), bitset.size());
  EXPECT_TRUE(std::equal(out.begin(), out.end(), bitset.begin())) << "split256/xxh64/seed 0 is not bit-exact with Parquet";

  // The same through the batch path.
  Filter g = Filter::WithBytes(Layout::kSplit256, bitset.size(), 8, HashKind::kXxh64, 0);
  std::vector<std::string_view> views(values.begin(), values.end());
  g.InsertBatch(views);
  EXPECT_TRUE(g == f);
}

TEST_P(Fixture, ImportedBitsetAnswersAsTheTsvSays) {
  const auto header = ReadBytes(dir_ + "/bloom_header.bin");
  const auto bitset = ReadBytes(dir_ + "/bitset.bin");
  std::vector<uint8_t> whole = header;
  whole.insert(whole.end(), bitset.begin(), bitset.end());
  const Filter bare = ImportParquetBitset(bitset, "bitset.bin");
  const Filter with_header = ImportParquet(whole, "header+bitset");
  EXPECT_TRUE(bare == with_header);
  EXPECT_EQ(bare.layout(), Layout::kSplit256);
  EXPECT_EQ(bare.hash_kind(), HashKind::kXxh64);

  for (const std::string& v : Lines(ReadText(dir_ + "/present_values.txt")))
    EXPECT_TRUE(bare.MayContain(std::string_view(v))) << "present value '" << v << "' not found";
  size_t checked = 0;
  for (const char* tsv : {"/absent_expected.tsv", "/near_miss_expected.tsv"}) {
    const auto rows = ReadTsv(dir_ + tsv);
    ASSERT_FALSE(rows.empty()) << tsv;
    std::vector<std::string_view> keys;
    for (const auto& r : rows) keys.push_back(r.value);
    std::vector<uint8_t> out(keys.size());
    bare.MayContainBatch(keys, out);
    for (size_t i = 0; i < rows.size(); ++i) {
      EXPECT_EQ(HashBytes(rows[i].value, HashKind::kXxh64, 0), rows[i].hash) << tsv << " row " << i;
      EXPECT_EQ(out[i] != 0, rows[i].present) << tsv << " row " << i;
      EXPECT_EQ(bare.MayContain(std::string_view(rows[i].value)), rows[i].present) << tsv << " row " << i;
      ++checked;
    }
  }
  EXPECT_GE(checked, 1010u);
}

TEST_P(Fixture, HeaderParsesAndExportsByteExact) {
  const auto header = ReadBytes(dir_ + "/bloom_header.bin");
  const auto bitset = ReadBytes(dir_ + "/bitset.bin");
  const ParquetHeader h = ParseParquetHeader(header, "bloom_header.bin");
  EXPECT_EQ(h.num_bytes, bitset.size());
  EXPECT_EQ(h.header_bytes, header.size());
  EXPECT_EQ(ParquetHeaderBytes(static_cast<uint32_t>(bitset.size())), header);
  const Filter f = ImportParquetBitset(bitset);
  const auto out = ParquetBitset(f);
  EXPECT_EQ(std::vector<uint8_t>(out.begin(), out.end()), bitset);
}

INSTANTIATE_TEST_SUITE_P(Sbbf, Fixture, ::testing::ValuesIn(kFixtureDirs));

// ---- Refusals -------------------------------------------------------------------

// Header for numBytes = 1024 with the given union members for fields 2, 3, 4.
std::vector<uint8_t> Header(uint8_t algorithm, uint8_t hash, uint8_t compression) {
  std::vector<uint8_t> h = {0x15, 0x80, 0x10};
  for (uint8_t member : {algorithm, hash, compression}) {
    h.push_back(0x1c);
    h.push_back(static_cast<uint8_t>(member << 4 | 0x0c));
    h.push_back(0x00);
    h.push_back(0x00);
  }
  h.push_back(0x00);
  return h;
}

void ExpectRefused(const std::vector<uint8_t>& header, uint64_t offset, const std::string& needle) {
  try {
    ParseParquetHeader(header, "h.bin");
    FAIL() << "accepted a header that should be refused (" << needle << ")";
  } catch (const FormatError& e) {
    EXPECT_EQ(e.offset(), offset) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
  }
}

TEST(ParquetHeader, BuilderMatchesTheHandWrittenOne) {
  EXPECT_EQ(ParquetHeaderBytes(1024), Header(1, 1, 1));
}

TEST(ParquetHeader, RefusesOtherAlgorithmHashOrCompression) {
  ExpectRefused(Header(2, 1, 1), 4, "algorithm is union member 2");
  ExpectRefused(Header(1, 3, 1), 8, "hash is union member 3");
  ExpectRefused(Header(1, 1, 2), 12, "compression is union member 2");
}

TEST(ParquetHeader, RefusesBadSizesTruncationAndMissingFields) {
  auto h = Header(1, 1, 1);
  h[1] = 0x82;  // zigzag 0x802 -> 1025 bytes
  ExpectRefused(h, 1, "numBytes = 1025");
  h = Header(1, 1, 1);
  h.resize(9);
  ExpectRefused(h, 9, "truncated");
  // Only numBytes, then STOP.
  ExpectRefused({0x15, 0x80, 0x10, 0x00}, 3, "required field 2 (algorithm) is missing");
  // numBytes as a string (type 8).
  ExpectRefused({0x18, 0x01, 0x41, 0x00}, 0, "field 1 (numBytes) has Thrift type 8");
}

TEST(ParquetHeader, SkipsUnknownFields) {
  auto h = Header(1, 1, 1);
  h.pop_back();
  // Field 5 (delta 1), binary "xy"; field 20 (long form), i64 -1; field 21, list<i32> [1, 2].
  for (uint8_t b : {0x18, 0x02, 0x78, 0x79, 0x06, 0x28, 0x01, 0x19, 0x25, 0x02, 0x04, 0x00}) h.push_back(b);
  const ParquetHeader p = ParseParquetHeader(h);
  EXPECT_EQ(p.num_bytes, 1024u);
  EXPECT_EQ(p.header_bytes, h.size());
}

TEST(ParquetImport, RefusesTruncatedOrOversizedBitsets) {
  auto whole = ParquetHeaderBytes(64);
  whole.resize(whole.size() + 63);
  EXPECT_THROW(ImportParquet(whole), FormatError);
  whole.resize(whole.size() + 2);
  EXPECT_THROW(ImportParquet(whole), FormatError);
  EXPECT_THROW(ImportParquetBitset(std::vector<uint8_t>(33)), FormatError);
  EXPECT_THROW(ImportParquetBitset(std::vector<uint8_t>()), FormatError);
}

TEST(ParquetExport, RefusesFiltersThatAreNotSbbf) {
  EXPECT_THROW(ParquetBitset(Filter::WithBlocks(Layout::kBlocked512, 4, 8, HashKind::kXxh64, 0)), std::invalid_argument);
  EXPECT_THROW(ParquetBitset(Filter::WithBlocks(Layout::kSplit256, 4, 8, HashKind::kXxh3, 0)), std::invalid_argument);
  EXPECT_THROW(ParquetBitset(Filter::WithBlocks(Layout::kSplit256, 4, 8, HashKind::kXxh64, 1)), std::invalid_argument);
  // An odd number of blocks: the export is exactly num_blocks * 32 bytes.
  EXPECT_EQ(ParquetBitset(Filter::WithBlocks(Layout::kSplit256, 3, 8, HashKind::kXxh64, 0)).size(), 96u);
}

// A moved-from SBBF is the empty filter: refused as empty, not as a blocked512.
TEST(ParquetExport, RefusesTheEmptyFilterSayingItIsEmpty) {
  Filter a = Filter::WithBlocks(Layout::kSplit256, 4, 8, HashKind::kXxh64, 0);
  const Filter b = std::move(a);
  std::string why;
  EXPECT_FALSE(IsParquetCompatible(a, &why));  // NOLINT(bugprone-use-after-move): the point of the test
  EXPECT_EQ(why, "the filter is empty (default-constructed or moved from, 0 blocks): expected a filter of at least 1 "
                 "block");
  EXPECT_THROW(ParquetBitset(a), std::invalid_argument);
  EXPECT_TRUE(IsParquetCompatible(b));
}

}  // namespace
}  // namespace blockbloom
