// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of the garden commands through the built `blockbloom`
// binary: the Summary Cache scenario (a digest built on one side, shipped,
// merged on the other, answering exactly as one built from the union), the
// answers against the library, and the error discipline (one line on stderr,
// non-zero exit, no output file).
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_fixture.h"
#include "blockbloom/garden.h"

#ifdef BLOCKBLOOM_CLI

namespace blockbloom::garden {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;

class GardenCli : public testing::TempDirTest {
 protected:
  GardenCli() : TempDirTest("bbgarden") {}

  Result Run(const std::string& args) const {
    const std::string cmd = "cd '" + dir_.string() + "' && '" + BLOCKBLOOM_CLI + "' " + args + " </dev/null >.out 2>.err";
    const int raw = std::system(cmd.c_str());
    Result r{WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, Read(".out"), Read(".err")};
    fs::remove(dir_ / ".out");
    fs::remove(dir_ / ".err");
    return r;
  }
  void Ok(const std::string& args) const {
    const Result r = Run(args);
    ASSERT_EQ(r.status, 0) << args << "\n" << r.err;
  }
  // One line on stderr naming `says`, exit status non-zero, no `out` file.
  void Refused(const std::string& args, const std::string& says, const std::string& out = "") const {
    const Result r = Run(args);
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    if (!out.empty()) {
      EXPECT_FALSE(Exists(out)) << "a failed command left " << out;
    }
  }

  static std::string Lines(uint64_t from, uint64_t to, const std::string& prefix) {
    std::string s;
    for (uint64_t i = from; i < to; ++i) s += prefix + std::to_string(i) + "\n";
    return s;
  }

};

// Summary Cache (Fan et al.): proxy A and proxy B each build a counting digest
// of their cache, ship it, and the receiver merges them. The merged digest
// must answer every probe exactly as a digest built from the union of the two
// caches, for both counting filters, in membership and in counts.
TEST_F(GardenCli, SummaryCacheDigestsMergeIntoTheDigestOfTheUnion) {
  const std::string a = Lines(0, 30000, "http://a.example/");
  const std::string b = Lines(0, 20000, "http://b.example/") + Lines(25000, 30000, "http://a.example/");  // overlap
  Write("a.txt", a);
  Write("b.txt", b);
  Write("union.txt", a + b);
  Write("probes.txt", Lines(0, 40000, "http://a.example/") + Lines(0, 40000, "http://b.example/") +
                          Lines(0, 40000, "http://c.example/"));
  for (const std::string type : {"counting", "blocked-counting"}) {
    const std::string size = " --n 100000 --fpr 0.01 --seed 7";
    Ok("garden-build --type " + type + size + " --keys a.txt -o a.bbg");
    Ok("garden-build --type " + type + size + " --keys b.txt -o b.bbg");
    Ok("garden-merge a.bbg b.bbg -o merged.bbg");
    Ok("garden-build --type " + type + size + " --keys union.txt -o union.bbg");
    const Result m = Run("garden-query merged.bbg --keys probes.txt --output bits");
    const Result u = Run("garden-query union.bbg --keys probes.txt --output bits");
    ASSERT_EQ(m.status, 0) << m.err;
    EXPECT_EQ(m.out, u.out) << type << ": the merged digest answers as the union's";
    EXPECT_EQ(std::count(m.out.begin(), m.out.end(), '\n'), 120000);
    EXPECT_EQ(Run("garden-query merged.bbg --keys probes.txt --output counts").out,
              Run("garden-query union.bbg --keys probes.txt --output counts").out)
        << type;
    // No false negatives: every cached URL of A and B is found.
    EXPECT_EQ(Run("garden-query merged.bbg --keys union.txt --output count").out, "55000\n") << type;
    // Without saturation the files are the same bytes (same counters, same key count).
    EXPECT_EQ(Read("merged.bbg"), Read("union.bbg")) << type;
  }
  // The digest of A, loaded by the library, answers as the CLI did.
  const auto f = LoadGarden<BlockedCountingFilter>(Path("a.bbg"));
  EXPECT_TRUE(f.MayContain(std::string_view("http://a.example/123")));
}

TEST_F(GardenCli, CountMinCountsTopKeysAndMergesWithWeights) {
  std::string stream;
  for (int rep = 0; rep < 50; ++rep) stream += "hot\n";
  for (int rep = 0; rep < 20; ++rep) stream += "warm\n";
  stream += Lines(0, 2000, "cold");
  Write("s.txt", stream);
  Write("cands.txt", "hot\nwarm\ncold1\ncold2\n");
  Ok("garden-build --type count-min --eps 0.001 --delta 0.001 --keys s.txt -o s.bbg");
  const Result q = Run("garden-query s.bbg --keys cands.txt --output counts");
  ASSERT_EQ(q.status, 0) << q.err;
  // Estimates never under-count; with eps N = 2 they are within 2.
  EXPECT_TRUE(q.out == "50\n20\n1\n1\n" || q.out.rfind("5", 0) == 0) << q.out;
  const auto s = LoadGarden<CountMinSketch>(Path("s.bbg"));
  EXPECT_EQ(q.out, std::to_string(s.Estimate(std::string_view("hot"))) + "\n" +
                       std::to_string(s.Estimate(std::string_view("warm"))) + "\n" +
                       std::to_string(s.Estimate(std::string_view("cold1"))) + "\n" +
                       std::to_string(s.Estimate(std::string_view("cold2"))) + "\n");
  const Result st = Run("garden-stats s.bbg --format json --keys cands.txt --top 2");
  ASSERT_EQ(st.status, 0) << st.err;
  EXPECT_NE(st.out.find("\"total\": 2070"), std::string::npos) << st.out;
  EXPECT_NE(st.out.find("\"top\": [[\"hot\", " + std::to_string(s.Estimate(std::string_view("hot"))) + "], [\"warm\""),
            std::string::npos)
      << st.out;
  Ok("garden-merge s.bbg s.bbg --weight 2 -o s3.bbg");
  const auto s3 = LoadGarden<CountMinSketch>(Path("s3.bbg"));
  EXPECT_EQ(s3.total(), 3 * s.total());
  EXPECT_EQ(s3.Estimate(std::string_view("hot")), 3 * s.Estimate(std::string_view("hot")));
  Ok("garden-build --type count-min --eps 0.001 --delta 0.001 --conservative --keys s.txt -o c.bbg");
  EXPECT_TRUE(LoadGarden<CountMinSketch>(Path("c.bbg")).conservative());
}

TEST_F(GardenCli, FailuresPrintOneLineAndLeaveNoOutput) {
  Write("k.txt", Lines(0, 100, "k"));
  Refused("garden-build --type nope --n 10 --fpr 0.1 --keys k.txt -o x.bbg", "--type = 'nope' is unknown", "x.bbg");
  Refused("garden-build --type counting --n 10 --keys k.txt -o x.bbg", "needs --n and --fpr", "x.bbg");
  Refused("garden-build --type blocked-counting --blocks 10 --k 17 --keys k.txt -o x.bbg", "k", "x.bbg");
  Refused("garden-build --type counting --n 10 --fpr 0.1 --keys missing.txt -o x.bbg", "missing.txt: cannot open",
          "x.bbg");
  Ok("garden-build --type counting --n 100 --fpr 0.01 --keys k.txt -o c.bbg");
  Ok("garden-build --type counting --n 200 --fpr 0.01 --keys k.txt -o c2.bbg");
  Ok("garden-build --type blocked-counting --n 100 --fpr 0.01 --keys k.txt -o b.bbg");
  Refused("garden-merge c.bbg b.bbg -o m.bbg", "byte 12: the file holds a blocked-counting variant: expected counting",
          "m.bbg");
  Refused("garden-merge c.bbg c2.bbg -o m.bbg", "c2.bbg: cannot merge counting filters: cells differs", "m.bbg");
  Refused("garden-merge c.bbg c.bbg --weight 2 -o m.bbg", "--weight applies to count-min sketches only", "m.bbg");
  std::string bad = Read("c.bbg");
  bad[bad.size() - 3] ^= 1;
  Write("bad.bbg", bad);
  Refused("garden-query bad.bbg --keys k.txt", "bad.bbg: byte 40: checksum mismatch");
  Refused("garden-stats k.txt", "k.txt: byte 0: magic");
}

}  // namespace
}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_CLI
