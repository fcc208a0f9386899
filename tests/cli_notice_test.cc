// SPDX-License-Identifier: Apache-2.0
// What the CLI tells its user instead of staying silent (issue 22), through the
// built binary: keys whose lines end in '\r' (a warning with the count, and
// --strip-cr), the rate a fold costs (before and after, a warning past 2x),
// a bare Parquet bitset imported without --bytes (the error suggests it), and
// `bench` from an installed binary (how to build the suites from a checkout).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "tests/cli_fixture.h"
#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/model.h"

#ifdef BLOCKBLOOM_CLI

namespace blockbloom {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;

class Notice : public testing::TempDirTest {
 protected:
  Notice() : TempDirTest("bbnotice") {}

  // `BINARY ARGS` in the temp dir (file names here need no quoting), stdin
  // from `stdin_file` (default: none), under a 60 s timeout.
  Result Run(const std::string& args, const std::string& stdin_file = "/dev/null",
             const std::string& binary = BLOCKBLOOM_CLI) const {
    const std::string cmd = "cd '" + dir_.string() + "' && timeout 60 '" + binary + "' " + args + " <" +
                            stdin_file + " >.out 2>.err";
    const int raw = std::system(cmd.c_str());
    Result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Read(".out"), Read(".err")};
    fs::remove(dir_ / ".out");
    fs::remove(dir_ / ".err");
    return r;
  }
};

size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

// 1000 keys, one per line; with `cr`, lines i % 91 == 0 (11 of them) end in "\r\n".
std::string Keys(bool cr) {
  std::string out;
  for (int i = 0; i < 1000; ++i) out += "key-" + std::to_string(i) + (cr && i % 91 == 0 ? "\r\n" : "\n");
  return out;
}

TEST_F(Notice, LinesEndingInCarriageReturnWarnOnceWithTheCount) {
  Write("crlf.txt", Keys(true));
  Write("plain.txt", Keys(false));
  Result r = Run("build --layout blocked512 --n 1000 --fpr 0.01 --keys crlf.txt -o cr.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("warning: crlf.txt: 11 of 1000 keys end in '\\r'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--strip-cr"), std::string::npos) << r.err;
  // Standard input is named as such; every command that reads keys warns.
  r = Run("query cr.bbf --output count", "crlf.txt");
  EXPECT_NE(r.err.find("<stdin>: 11 of 1000 keys"), std::string::npos) << r.err;
  r = Run("garden-build --type counting --n 1000 --fpr 0.01 --keys crlf.txt -o g.bbg");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("11 of 1000 keys end in"), std::string::npos) << r.err;
  // Keys without '\r' (and binary records, where '\r' is a byte like any other): no warning.
  EXPECT_EQ(Run("build --layout blocked512 --n 1000 --fpr 0.01 --keys plain.txt -o plain.bbf").err, "");
  Write("records.bin", "ab\rcd\r");
  EXPECT_EQ(Run("build --layout blocked512 --bytes 64 --key-width 3 --keys records.bin -o rec.bbf").err, "");
  // Without --strip-cr the '\r' is part of the key: a different filter.
  EXPECT_NE(Read("cr.bbf"), Read("plain.bbf"));
}

TEST_F(Notice, StripCrDropsTheCarriageReturnForEveryCommandThatReadsKeys) {
  Write("crlf.txt", Keys(true));
  Write("plain.txt", Keys(false));
  ASSERT_EQ(Run("build --layout blocked512 --n 1000 --fpr 0.01 --keys plain.txt -o plain.bbf").status, 0);
  Result r = Run("build --layout blocked512 --n 1000 --fpr 0.01 --keys crlf.txt --strip-cr -o strip.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Read("strip.bbf"), Read("plain.bbf"));
  // From standard input too, and query matches every stripped key.
  ASSERT_EQ(Run("build --layout blocked512 --n 1000 --fpr 0.01 --strip-cr -o stdin.bbf", "crlf.txt").status, 0);
  EXPECT_EQ(Read("stdin.bbf"), Read("plain.bbf"));
  r = Run("query plain.bbf --keys crlf.txt --strip-cr --output hits");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, Keys(false));
  // The garden commands take it through the same parser.
  ASSERT_EQ(Run("garden-build --type count-min --columns 4096 --keys plain.txt -o plain.bbg").status, 0);
  r = Run("garden-build --type count-min --columns 4096 --keys crlf.txt --strip-cr -o strip.bbg");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(Read("strip.bbg"), Read("plain.bbg"));
  r = Run("garden-query plain.bbg --keys crlf.txt --strip-cr --output count");
  EXPECT_EQ(r.out, "1000\n") << r.err;
  r = Run("garden-stats plain.bbg --keys crlf.txt --strip-cr --top 1");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Records are not lines: refused with --key-width, naming both; commands
  // that read no keys do not take it.
  r = Run("build --layout blocked512 --bytes 64 --key-width 4 --strip-cr --keys crlf.txt -o x.bbf");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--strip-cr applies to keys read as lines: expected it without --key-width"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(Exists("x.bbf"));
  r = Run("stats plain.bbf --strip-cr");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("unknown option --strip-cr"), std::string::npos) << r.err;
}

// "predicted false-positive rate at N keys: B% before, A% after" -> {B, A} as fractions.
std::pair<double, double> FoldRates(const std::string& out, uint64_t keys) {
  const std::string head = "predicted false-positive rate at " + std::to_string(keys) + " keys: ";
  const size_t at = out.find(head);
  if (at == std::string::npos) return {-1, -1};
  double before = -1, after = -1;
  if (std::sscanf(out.c_str() + at + head.size(), "%lf%% before, %lf%% after", &before, &after) != 2) return {-1, -1};
  return {before / 100, after / 100};
}

TEST_F(Notice, FoldPrintsTheModelsRateBeforeAndAfterAndWarnsPastTwice) {
  std::string keys;
  for (int i = 0; i < 10000; ++i) keys += std::to_string(i) + "\n";
  Write("keys.txt", keys);
  // 10000 keys in 200 blocks (10.24 bits/key): about 1%, folded to about 10%.
  ASSERT_EQ(Run("build --layout blocked512 --bytes 12800 --keys keys.txt -o f.bbf").status, 0);
  Result r = Run("fold f.bbf -o half.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  const Filter f = LoadFilter(Path("f.bbf"));
  const double before = PredictFpr(f.layout(), f.num_blocks(), f.k(), 10000);
  const double after = PredictFpr(f.layout(), f.num_blocks() / 2, f.k(), 10000);
  const auto [shown_before, shown_after] = FoldRates(r.out, 10000);
  EXPECT_NEAR(shown_before, before, before * 1e-3) << r.out;
  EXPECT_NEAR(shown_after, after, after * 1e-3) << r.out;
  ASSERT_GT(after, 2 * before);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("blockbloom fold: warning: the predicted false-positive rate rises from"), std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("more than twice"), std::string::npos) << r.err;

  // classic with k = 1: 1 - e^(-2x) is less than twice 1 - e^(-x): the rate
  // is printed, no warning.
  ASSERT_EQ(Run("build --layout classic --bytes 4096 --k 1 --keys keys.txt -o c.bbf").status, 0);
  r = Run("fold c.bbf -o c_half.bbf");
  ASSERT_EQ(r.status, 0) << r.err;
  const auto [c_before, c_after] = FoldRates(r.out, 10000);
  EXPECT_GT(c_after, c_before) << r.out;
  EXPECT_LT(c_after, 2 * c_before) << r.out;
  EXPECT_EQ(r.err, "");
  // No keys: 0% before and after, no warning.
  Write("none.txt", "");
  ASSERT_EQ(Run("build --layout split256 --bytes 64 --n 1 --keys none.txt -o e.bbf").status, 0);
  r = Run("fold e.bbf -o e_half.bbf");
  EXPECT_NE(r.out.find("predicted false-positive rate at 0 keys: 0% before, 0% after"), std::string::npos) << r.out;
  EXPECT_EQ(r.err, "");
}

TEST_F(Notice, ImportParquetOfABareBitsetSuggestsBytes) {
  std::string keys;
  for (int i = 0; i < 500; ++i) keys += "value-" + std::to_string(i) + "\n";
  Write("keys.txt", keys);
  ASSERT_EQ(Run("build --layout split256 --hash xxh64 --bytes 2048 --keys keys.txt -o f.bbf").status, 0);
  ASSERT_EQ(Run("export-parquet f.bbf -o bitset.bin").status, 0);
  ASSERT_EQ(fs::file_size(dir_ / "bitset.bin"), 2048u);
  Result r = Run("import-parquet bitset.bin -o g.bbf");
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("bitset.bin: byte "), std::string::npos) << r.err;  // the parser's own message first
  EXPECT_NE(r.err.find("if FILE is a bare bitset (no Thrift header), import it with --bytes 2048"), std::string::npos)
      << r.err;
  EXPECT_FALSE(Exists("g.bbf"));
  // Following the suggestion works.
  ASSERT_EQ(Run("import-parquet bitset.bin --bytes 2048 -o g.bbf").status, 0);
  ASSERT_EQ(Run("export-parquet g.bbf -o again.bin").status, 0);
  EXPECT_TRUE(Read("again.bin") == Read("bitset.bin"));

  // Not whole 32-byte blocks: not a bitset, no suggestion.
  Write("odd.bin", Read("bitset.bin").substr(0, 2047));
  r = Run("import-parquet odd.bin -o h.bbf");
  EXPECT_NE(r.status, 0);
  EXPECT_EQ(r.err.find("--bytes"), std::string::npos) << r.err;
  // A header that parses, with a truncated bitset: the header is right, no suggestion.
  ASSERT_EQ(Run("export-parquet f.bbf --with-header -o whole.bin").status, 0);
  const std::string whole = Read("whole.bin");
  const size_t header = whole.size() - 2048;
  Write("short.bin", whole.substr(0, header + (32 - header % 32)));  // whole 32-byte blocks in all
  r = Run("import-parquet short.bin -o h.bbf");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.err.find("bitset is truncated"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("--bytes"), std::string::npos) << r.err;
}

TEST_F(Notice, InstalledBenchSaysHowToBuildTheSuitesFromASourceCheckout) {
  // An installed layout: PREFIX/bin/blockbloom, no build tree around it.
  fs::create_directories(dir_ / "prefix" / "bin");
  const fs::path installed = dir_ / "prefix" / "bin" / "blockbloom";
  fs::copy_file(BLOCKBLOOM_CLI, installed);
  const Result r = Run("bench", "/dev/null", installed.string());
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("the benchmark suites are not installed with blockbloom"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("in a source checkout of blockbloom run 'tools/scripts/bench.sh'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DBLOCKBLOOM_BUILD_BENCH=ON"),
            std::string::npos)
      << r.err;
  // Never the install prefix as a build directory.
  EXPECT_EQ(r.err.find("-B " + (dir_ / "prefix").string()), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("SOURCE_DIR"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace blockbloom

#else

TEST(Notice, NeedsTheBuiltCli) { GTEST_SKIP() << "the CLI is not built (BLOCKBLOOM_BUILD_TOOLS=OFF)"; }

#endif  // BLOCKBLOOM_CLI
