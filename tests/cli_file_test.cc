// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of the file commands through the built `blockbloom` binary:
// build, query, stats, merge, fold, import-parquet, export-parquet. Each result
// is checked against the library doing the same thing; each failure must print
// one line on stderr, exit non-zero and leave no output file.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_fixture.h"
#include "blockbloom/filter.h"
#include "blockbloom/fold.h"
#include "blockbloom/format.h"
#include "blockbloom/model.h"

#ifdef BLOCKBLOOM_CLI

namespace blockbloom {
namespace {

namespace fs = std::filesystem;

const std::string kFixtures = std::string(BLOCKBLOOM_SOURCE_DIR) + "/../shared/fixtures/parquet-sbbf";

using Result = testing::CliResult;

class Cli : public testing::TempDirTest {
 protected:
  Cli() : TempDirTest("bbcli") {}

  // Runs `blockbloom ARGS` in the temp dir (ARGS are shell words; file names
  // here never need quoting), optionally with `stdin_file` as standard input.
  Result Run(const std::string& args, const std::string& stdin_file = "") const {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + BLOCKBLOOM_CLI + "' " + args +
                            (stdin_file.empty() ? " </dev/null" : " <" + stdin_file) + " >.out 2>.err";
    const int raw = std::system(cmd.c_str());
    Result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Read(".out"), Read(".err")};
    fs::remove(dir_ / ".out");
    fs::remove(dir_ / ".err");
    return r;
  }

  // A failing command: non-zero status, exactly one line on stderr containing
  // `needle`, and no file named `output`.
  void ExpectFailure(const std::string& args, const std::string& needle, const std::string& output) const {
    const Result r = Run(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << "not one line: " << r.err;
    EXPECT_EQ(r.err.rfind("blockbloom ", 0), 0u) << r.err;
    if (!output.empty()) {
      EXPECT_FALSE(Exists(output)) << args << " left " << output << " behind";
    }
    // No temporary files either.
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".tmp."), std::string::npos) << e.path();
  }

};

// Keys with a trailing '\r', leading and trailing spaces, an empty line and a
// non-ASCII byte: all kept as they are.
const std::vector<std::string> kOddKeys = {"alpha\r", "beta ", " gamma", "", "delta", "\xff\x01", "alpha"};

std::string Joined(const std::vector<std::string>& keys) {
  std::string s;
  for (const auto& k : keys) s += k + "\n";
  return s;
}

Filter LibraryFilter(const Filter& like, const std::vector<std::string>& keys) {
  Filter f = Filter::WithBlocks(like.layout(), like.num_blocks(), like.k(), like.hash_kind(), like.seed());
  for (const auto& k : keys) f.Insert(std::string_view(k));
  return f;
}

TEST_F(Cli, BuildKeepsLinesExactlyFromFileAndStdin) {
  Write("keys.txt", Joined(kOddKeys));
  Result r = Run("build --layout blocked512 --n 1000 --fpr 0.001 --keys keys.txt -o f.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  const Filter f = LoadFilter(Path("f.bbf"));
  EXPECT_EQ(f.inserted(), kOddKeys.size());
  EXPECT_TRUE(f == LibraryFilter(f, kOddKeys)) << "the CLI split or trimmed the keys differently";

  r = Run("build --layout blocked512 --n 1000 --fpr 0.001 -o g.bbf", "keys.txt");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Read("g.bbf"), Read("f.bbf"));

  // No final newline: the last key still counts, nothing extra is added.
  Write("nofinal.txt", "one\ntwo");
  ASSERT_EQ(Run("build --layout classic --bytes 256 --k 3 --keys nofinal.txt -o h.bbf").status, 0);
  const Filter h = LoadFilter(Path("h.bbf"));
  EXPECT_EQ(h.inserted(), 2u);
  EXPECT_TRUE(h == LibraryFilter(h, {"one", "two"}));
}

TEST_F(Cli, BuildSizingModes) {
  Write("keys.txt", Joined({"a", "b", "c"}));
  ASSERT_EQ(Run("build --layout split256 --bytes 1024 --hash xxh64 --keys keys.txt -o a.bbf").status, 0);
  const Filter a = LoadFilter(Path("a.bbf"));
  EXPECT_EQ(a.byte_size(), 1024u);
  EXPECT_EQ(a.hash_kind(), HashKind::kXxh64);
  // mulx: stored as hash byte 2, read back, and the keys hash as the library's.
  ASSERT_EQ(Run("build --layout split256 --bytes 1024 --hash mulx --seed 3 --keys keys.txt -o m.bbf").status, 0);
  const Filter m = LoadFilter(Path("m.bbf"));
  EXPECT_EQ(m.hash_kind(), HashKind::kMulx);
  EXPECT_TRUE(m == LibraryFilter(m, {"a", "b", "c"}));
  EXPECT_NE(Run("stats m.bbf").out.find("mulx"), std::string::npos);
  ASSERT_EQ(Run("build --layout register64 --n 1000 --bits-per-key 12 --k 5 --seed 9 --keys keys.txt -o b.bbf").status, 0);
  const Filter b = LoadFilter(Path("b.bbf"));
  EXPECT_EQ(b.num_blocks(), 188u);  // ceil(12 bits x 1000 keys / 64-bit blocks)
  EXPECT_EQ(b.k(), 5u);
  EXPECT_EQ(b.seed(), 9u);
  // --k with --fpr: the smallest filter at that k reaching the rate.
  ASSERT_EQ(Run("build --layout blocked512 --n 10000 --fpr 0.01 --k 3 --keys keys.txt -o c.bbf").status, 0);
  const Filter c = LoadFilter(Path("c.bbf"));
  EXPECT_EQ(c.k(), 3u);
  EXPECT_LE(PredictFpr(Layout::kBlocked512, c.num_blocks(), 3, 10000), 0.01);
  EXPECT_GT(PredictFpr(Layout::kBlocked512, c.num_blocks() - 1, 3, 10000), 0.01);

  ExpectFailure("build --layout blocked512 --bytes 64 --fpr 0.1 --keys keys.txt -o d.bbf", "exactly one of", "d.bbf");
  ExpectFailure("build --layout nosuch --bytes 64 --keys keys.txt -o d.bbf", "--layout = 'nosuch' is unknown", "d.bbf");
  ExpectFailure("build --layout split256 --bytes 64 --k 3 --keys keys.txt -o d.bbf", "--k = 3 is out of range", "d.bbf");
  ExpectFailure("build --layout blocked512 --bytes 64 --keys missing.txt -o d.bbf", "missing.txt", "d.bbf");
  ExpectFailure("build --layout blocked512 --bytes 64 --keys keys.txt", "-o is required", "");
}

// The progress bar: only for a large input (2^22 keys and more) and only when
// stderr is a terminal; util-linux `script` provides one.
TEST_F(Cli, ProgressBarOnlyOnATerminalForLargeInputs) {
  std::string keys;
  for (int i = 0; i < (1 << 22); ++i) keys += "x\n";  // duplicates: cheap to insert, still counted
  Write("large.txt", keys);
  Result r = Run("build --layout register64 --bytes 4096 --keys large.txt -o a.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "") << "no progress bar when stderr is not a terminal";
  if (std::system("command -v script >/dev/null 2>&1") != 0) GTEST_SKIP() << "util-linux script not installed";
  const std::string cmd = "cd '" + dir_.string() + "' && script -qec \"'" + BLOCKBLOOM_CLI +
                          "' build --layout register64 --bytes 4096 --keys large.txt -o b.bbf\" /dev/null >tty.out";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  const std::string tty = Read("tty.out");
  EXPECT_NE(tty.find("100% 4194304/4194304 keys"), std::string::npos) << tty.substr(0, 300);
  EXPECT_EQ(Read("a.bbf"), Read("b.bbf"));
}

TEST_F(Cli, BinaryRecordsOfFixedWidth) {
  std::string records;
  std::vector<uint64_t> keys;
  for (uint64_t i = 0; i < 500; ++i) {
    const uint64_t k = i * 0x9E3779B97F4A7C15ULL;
    keys.push_back(k);
    for (int b = 0; b < 8; ++b) records.push_back(static_cast<char>(k >> (8 * b)));
  }
  Write("keys.bin", records);
  ASSERT_EQ(Run("build --layout sectorized512 --bytes 4096 --k 8 --keys keys.bin --key-width 8 -o f.bbf").status, 0);
  const Filter f = LoadFilter(Path("f.bbf"));
  Filter lib = Filter::WithBlocks(f.layout(), f.num_blocks(), f.k(), f.hash_kind(), f.seed());
  lib.InsertBatch(keys);  // uint64 keys hash as their 8 little-endian bytes
  EXPECT_TRUE(f == lib);

  // Query the records back: all present; hits are the raw records.
  Result r = Run("query f.bbf --keys keys.bin --key-width 8 --output count");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "500\n");
  r = Run("query f.bbf --key-width 8 --output hits", "keys.bin");
  EXPECT_EQ(r.out, records);

  Write("bad.bin", records + "xyz");
  ExpectFailure("build --layout blocked512 --bytes 64 --keys bad.bin --key-width 8 -o g.bbf",
                "byte 4000: last record has 3 bytes", "g.bbf");
}

TEST_F(Cli, QueryOutputs) {
  Write("keys.txt", Joined(kOddKeys));
  ASSERT_EQ(Run("build --layout split256 --n 100 --fpr 0.001 --keys keys.txt -o f.bbf").status, 0);
  const Filter f = LoadFilter(Path("f.bbf"));
  const std::vector<std::string> probes = {"alpha\r", "alpha", "beta", "beta ", "", "zeta", "\xff\x01"};
  Write("probes.txt", Joined(probes));
  std::string bits, hits;
  size_t count = 0;
  for (const auto& p : probes) {
    const bool yes = f.MayContain(std::string_view(p));
    bits += yes ? "1\n" : "0\n";
    if (yes) hits += p + "\n";
    count += yes;
  }
  for (const auto& k : kOddKeys) EXPECT_TRUE(f.MayContain(std::string_view(k)));
  Result r = Run("query f.bbf --keys probes.txt");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, bits);
  EXPECT_EQ(Run("query f.bbf --keys probes.txt --output hits").out, hits);
  EXPECT_EQ(Run("query f.bbf --output count", "probes.txt").out, std::to_string(count) + "\n");
  // A larger input spans several batches.
  std::string many;
  for (int i = 0; i < 150000; ++i) many += std::to_string(i) + "\n";
  Write("many.txt", many);
  ASSERT_EQ(Run("build --layout blocked512 --n 150000 --fpr 0.01 --keys many.txt -o m.bbf").status, 0);
  EXPECT_EQ(Run("query m.bbf --keys many.txt --output count").out, "150000\n");

  ExpectFailure("query f.bbf --keys probes.txt --output nope", "--output = 'nope'", "");
  ExpectFailure("query nosuch.bbf --keys probes.txt", "nosuch.bbf", "");
}

TEST_F(Cli, CorruptFilterIsRejectedWithTheByteOffset) {
  Write("keys.txt", Joined({"a", "b"}));
  ASSERT_EQ(Run("build --layout blocked512 --bytes 128 --keys keys.txt -o f.bbf").status, 0);
  std::string bytes = Read("f.bbf");
  bytes[8] = 7;  // format version
  Write("bad.bbf", bytes);
  ExpectFailure("query bad.bbf --keys keys.txt", "byte 8: format version 7 is unknown: expected 1", "");
  ExpectFailure("stats bad.bbf", "byte 8", "");
  bytes = Read("f.bbf");
  bytes[100] ^= 1;
  Write("bad.bbf", bytes);
  ExpectFailure("merge f.bbf bad.bbf -o out.bbf", "byte 56: checksum mismatch", "out.bbf");
  Write("short.bbf", bytes.substr(0, 100));
  ExpectFailure("fold short.bbf -o out.bbf", "truncated", "out.bbf");
}

TEST_F(Cli, StatsTextAndJson) {
  std::string keys;
  for (int i = 0; i < 5000; ++i) keys += std::to_string(i) + "k\n";
  Write("keys.txt", keys);
  ASSERT_EQ(Run("build --layout classic --n 5000 --fpr 0.01 --keys keys.txt -o f.bbf").status, 0);
  const Filter f = LoadFilter(Path("f.bbf"));
  Result r = Run("stats f.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("layout          classic"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("keys inserted   5000"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Swamidass & Baldi"), std::string::npos) << r.out;
  r = Run("stats f.bbf --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"layout\": \"classic\""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"k\": " + std::to_string(f.k()) + ","), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"bits_set\": " + std::to_string(f.PopCount()) + ","), std::string::npos) << r.out;
  // The estimate printed is the library's.
  const size_t at = r.out.find("\"estimated_distinct_keys\": ");
  ASSERT_NE(at, std::string::npos);
  const double est = std::stod(r.out.substr(at + 27));
  EXPECT_DOUBLE_EQ(est, EstimateDistinctKeys(f.layout(), f.num_blocks(), f.k(), f.PopCount()));
  ExpectFailure("stats f.bbf --format xml", "--format = 'xml'", "");
}

TEST_F(Cli, MergeIsTheUnionAndRefusesMismatches) {
  Write("a.txt", Joined({"a1", "a2", "a3"}));
  Write("b.txt", Joined({"b1", "b2"}));
  ASSERT_EQ(Run("build --layout blocked512 --bytes 1024 --k 5 --keys a.txt -o a.bbf").status, 0);
  ASSERT_EQ(Run("build --layout blocked512 --bytes 1024 --k 5 --keys b.txt -o b.bbf").status, 0);
  ASSERT_EQ(Run("merge a.bbf b.bbf -o ab.bbf").status, 0);
  const Filter ab = LoadFilter(Path("ab.bbf"));
  EXPECT_TRUE(ab == LibraryFilter(ab, {"a1", "a2", "a3", "b1", "b2"}));
  EXPECT_EQ(ab.inserted(), 5u);

  ASSERT_EQ(Run("build --layout blocked512 --bytes 1024 --k 6 --keys b.txt -o k6.bbf").status, 0);
  ASSERT_EQ(Run("build --layout blocked512 --bytes 2048 --k 5 --keys b.txt -o big.bbf").status, 0);
  ASSERT_EQ(Run("build --layout register64 --bytes 1024 --k 5 --keys b.txt -o reg.bbf").status, 0);
  ASSERT_EQ(Run("build --layout blocked512 --bytes 1024 --k 5 --hash xxh64 --keys b.txt -o x64.bbf").status, 0);
  ExpectFailure("merge a.bbf k6.bbf -o out.bbf", "k differs: 5 vs 6", "out.bbf");
  ExpectFailure("merge a.bbf big.bbf -o out.bbf", "number of blocks differs: 16 vs 32", "out.bbf");
  ExpectFailure("merge a.bbf reg.bbf -o out.bbf", "layout differs: blocked512 vs register64", "out.bbf");
  ExpectFailure("merge a.bbf x64.bbf -o out.bbf", "hash differs: xxh3 vs xxh64", "out.bbf");
  ExpectFailure("merge a.bbf -o out.bbf", "expected two filters", "out.bbf");
}

TEST_F(Cli, FoldHalvesAndRefusesOddSizes) {
  std::string keys;
  for (int i = 0; i < 2000; ++i) keys += std::to_string(i * 7) + "\n";
  Write("keys.txt", keys);
  ASSERT_EQ(Run("build --layout split256 --bytes 8192 --keys keys.txt -o f.bbf").status, 0);
  ASSERT_EQ(Run("fold f.bbf -o g.bbf").status, 0);
  const Filter g = LoadFilter(Path("g.bbf"));
  EXPECT_EQ(g.byte_size(), 4096u);
  EXPECT_TRUE(g == Fold(LoadFilter(Path("f.bbf"))));
  EXPECT_EQ(Run("query g.bbf --keys keys.txt --output count").out, "2000\n");
  ASSERT_EQ(Run("build --layout split256 --bytes 96 --keys keys.txt -o odd.bbf").status, 0);
  ExpectFailure("fold odd.bbf -o out.bbf", "3 blocks is odd", "out.bbf");
}

TEST_F(Cli, ParquetImportExportIsByteExact) {
  const std::string fixture = kFixtures + "/parquet_rs_with_length";
  ASSERT_TRUE(fs::is_directory(fixture)) << "Parquet fixtures not found: looked in " << fixture;
  const std::string header = ReadFile(fixture + "/bloom_header.bin");
  const std::string bitset = ReadFile(fixture + "/bitset.bin");
  Write("whole.bin", header + bitset);
  Write("bitset.bin", bitset);
  ASSERT_EQ(Run("import-parquet whole.bin -o f.bbf").status, 0);
  ASSERT_EQ(Run("import-parquet bitset.bin --bytes " + std::to_string(bitset.size()) + " -o g.bbf").status, 0);
  EXPECT_EQ(Read("f.bbf"), Read("g.bbf"));
  ASSERT_EQ(Run("export-parquet f.bbf --with-header -o out_whole.bin").status, 0);
  ASSERT_EQ(Run("export-parquet g.bbf -o out_bitset.bin").status, 0);
  EXPECT_TRUE(Read("out_whole.bin") == header + bitset);
  EXPECT_TRUE(Read("out_bitset.bin") == bitset);
  // The present values are found through the CLI too.
  const Result r = Run("query f.bbf --output count --keys " + fixture + "/present_values.txt");
  EXPECT_EQ(r.out, "14\n") << r.err;
  // Building from the values gives the same bitset.
  ASSERT_EQ(Run("build --layout split256 --hash xxh64 --bytes 2048 --keys " + fixture +
                "/present_values.txt -o built.bbf")
                .status,
            0);
  ASSERT_EQ(Run("export-parquet built.bbf -o built.bin").status, 0);
  EXPECT_TRUE(Read("built.bin") == bitset);

  ExpectFailure("import-parquet bitset.bin --bytes 1024 -o h.bbf", "expected the bare bitset of --bytes 1024", "h.bbf");
  std::string other = header;
  other[4] = 0x2c;  // algorithm: union member 2
  Write("other.bin", other + bitset);
  ExpectFailure("import-parquet other.bin -o h.bbf", "algorithm is union member 2", "h.bbf");
  ASSERT_EQ(Run("build --layout blocked512 --bytes 1024 --keys bitset.bin -o b.bbf").status, 0);
  ExpectFailure("export-parquet b.bbf -o h.bin", "layout is blocked512: expected split256", "h.bin");
}

// The SST RocksDB 7.8.3 wrote (tests/golden/rocksdb_100keys.sst, keys
// key1000..key1099): imported from the SST and from its filter block, rebuilt
// from the keys with --hash rocksdb and exported back to the same block.
TEST_F(Cli, RocksdbImportExportIsByteExact) {
  const std::string sst = std::string(BLOCKBLOOM_SOURCE_DIR) + "/tests/golden/rocksdb_100keys.sst";
  std::string keys;
  for (int i = 0; i < 100; ++i) keys += "key" + std::to_string(1000 + i) + "\n";
  Write("keys.txt", keys);
  const Result imported = Run("import-rocksdb " + sst + " -o f.bbf");
  ASSERT_EQ(imported.status, 0) << imported.err;
  EXPECT_NE(imported.out.find("from the SST's full filter"), std::string::npos) << imported.out;
  EXPECT_EQ(Run("query f.bbf --output count --keys keys.txt").out, "100\n");
  ASSERT_EQ(Run("export-rocksdb f.bbf -o block.bin").status, 0);
  EXPECT_NE(ReadFile(sst).find(Read("block.bin")), std::string::npos) << "the exported block is not the SST's";
  EXPECT_EQ(Read("block.bin").size(), 133u);
  ASSERT_EQ(Run("import-rocksdb block.bin -o g.bbf").status, 0);
  EXPECT_EQ(Read("f.bbf"), Read("g.bbf"));
  ASSERT_EQ(Run("build --layout blocked512 --hash rocksdb --bytes 128 --k 6 --keys keys.txt -o built.bbf").status, 0);
  ASSERT_EQ(Run("export-rocksdb built.bbf -o built.bin").status, 0);
  EXPECT_TRUE(Read("built.bin") == Read("block.bin"));

  ExpectFailure("import-rocksdb --block " + sst + " -o h.bbf", "RocksDB filter block: marker byte", "h.bbf");
  ExpectFailure("import-rocksdb --sst keys.txt -o h.bbf", "block-based table magic", "h.bbf");
  ASSERT_EQ(Run("build --layout blocked512 --bytes 1024 --keys keys.txt -o x.bbf").status, 0);
  ExpectFailure("export-rocksdb x.bbf -o h.bin", "hash is xxh3: expected rocksdb", "h.bin");
}

}  // namespace
}  // namespace blockbloom

#else

TEST(Cli, NeedsTheBuiltCli) { GTEST_SKIP() << "the CLI is not built (BLOCKBLOOM_BUILD_TOOLS=OFF)"; }

#endif  // BLOCKBLOOM_CLI
