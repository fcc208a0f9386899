// SPDX-License-Identifier: Apache-2.0
// End-to-end tests of the garden commands through the built `blockbloom`
// binary: the Summary Cache scenario (a digest built on one side, shipped,
// merged on the other, answering exactly as one built from the union), the
// answers against the library, and the error discipline (one line on stderr,
// non-zero exit, no output file).
#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/cli_fixture.h"
#include "blockbloom/garden.h"
#include "engine/src/bytes.h"

#ifdef BLOCKBLOOM_CLI

namespace blockbloom::garden {
namespace {

namespace fs = std::filesystem;

using Result = testing::CliResult;

class GardenCli : public testing::TempDirTest {
 protected:
  GardenCli() : TempDirTest("bbgarden") {}

  // `prefix` runs first in the same shell (a ulimit, "timeout 20").
  Result Run(const std::string& args, const std::string& prefix = "") const {
    const std::string cmd = "cd '" + dir_.string() + "' && " + prefix + " '" + BLOCKBLOOM_CLI + "' " + args +
                            " </dev/null >.out 2>.err";
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

  // Refused as above, promptly: under a 20 s timeout (status 124 = it hung).
  void RefusedPromptly(const std::string& args, const std::string& says, const std::string& limit = "") const {
    const Result r = Run(args, limit + " timeout 20");
    EXPECT_NE(r.status, 124) << args << ": still running after 20 s";
    EXPECT_NE(r.status, 0) << args;
    EXPECT_NE(r.err.find(says), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
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

// A FIFO once hung garden-stats, garden-query and garden-merge (open without
// O_NONBLOCK); a device or directory is refused at once too, naming what it is.
TEST_F(GardenCli, NonRegularInputsAreRefusedAtOnce) {
  Write("k.txt", Lines(0, 10, "k"));
  Ok("garden-build --type counting --n 100 --fpr 0.01 --keys k.txt -o c.bbg");
  ASSERT_EQ(::mkfifo(Path("p").c_str(), 0644), 0);
  RefusedPromptly("garden-stats p", "p: is a FIFO: expected a regular file");
  RefusedPromptly("garden-query p --keys k.txt", "p: is a FIFO: expected a regular file");
  RefusedPromptly("garden-merge p p -o x.bbg", "p: is a FIFO: expected a regular file");
  RefusedPromptly("garden-merge c.bbg p -o x.bbg", "p: is a FIFO: expected a regular file");
  EXPECT_FALSE(Exists("x.bbg"));
  fs::create_directory(dir_ / "d");
  RefusedPromptly("garden-stats d", "d: is a directory: expected a regular file");
  struct stat st;
  if (::stat("/dev/zero", &st) == 0)
    RefusedPromptly("garden-stats /dev/zero", "/dev/zero: is a character device: expected a regular file");
}

// A 2 GiB sparse file that is not a garden file is refused from its first
// bytes: within 1 GB of address space (it was read whole: 2.1 GB, 5.7 s).
TEST_F(GardenCli, AHugeNonGardenFileIsRefusedFromItsHeader) {
  {
    const int fd = ::open(Path("big").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::ftruncate(fd, off_t{2} << 30), 0);
    ::close(fd);
  }
  RefusedPromptly("garden-stats big", "big: byte 0: magic", "ulimit -v 1000000;");
  RefusedPromptly("garden-merge big big -o x.bbg", "big: byte 0: magic", "ulimit -v 1000000;");
}

// The blocked counting filter's sizing and model are capped as the engine's
// (they walked the whole binomial: minutes), and --n keeps the CLI's 2^40.
TEST_F(GardenCli, BlockedCountingSizingAndModelFinish) {
  Write("k.txt", Lines(0, 10, "k"));
  RefusedPromptly("garden-build --type blocked-counting --n 1e11 --fpr 0.01 --keys k.txt -o x.bbg",
                  "beyond any blocked counting filter of at most 2^32 blocks");
  for (const std::string type : {"counting", "blocked-counting"}) {
    for (const std::string n : {"1e15", "1099511627777", "1e19"}) {
      RefusedPromptly("garden-build --type " + type + " --n " + n + " --fpr 0.01 --keys k.txt -o x.bbg",
                      "--n = '" + n + "' is out of range: expected 1..1099511627776");
    }
  }
  EXPECT_FALSE(Exists("x.bbg"));
  // A valid 224-byte file whose header claims 2^63 keys (checksum recomputed).
  std::vector<uint8_t> b = SerializeGarden(BlockedCountingFilter(2, 6));
  ASSERT_EQ(b.size(), 224u);
  detail::StoreLE(b.data() + kGardenHeaderBytes + 16, uint64_t{1} << 63, 8);  // parameters: blocks, k, inserted
  detail::StoreLE(b.data() + 40, detail::HeaderBodyChecksum(b.data(), 40, b.data() + 64, b.size() - 64), 8);
  Write("claims.bbg", std::string(b.begin(), b.end()));
  const Result r = Run("garden-stats claims.bbg", "timeout 20");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("inserted: 9223372036854775808\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model_fpr_at_inserted: 1\n"), std::string::npos) << r.out;
}

// --top's keys are escaped as `stats --format json` escapes a file name: valid
// UTF-8 kept, control bytes as \u00XX, other bytes as U+FFFD (raw 0xE9 once
// broke the JSON, and control bytes were dropped).
TEST_F(GardenCli, TopKeysAreEscapedIntoValidJson) {
  const std::string keys[] = {"caf\xe9", "a\x01" "b", "tab\there", "q\"uote", "back\\slash", "caf\xc3\xa9"};
  std::string text;
  for (const std::string& k : keys) text += k + "\n";
  Write("k.txt", text);
  Ok("garden-build --type counting --cells 1000 --k 3 --keys k.txt -o c.bbg");
  const Result r = Run("garden-stats c.bbg --keys k.txt --top 10 --format json");
  ASSERT_EQ(r.status, 0) << r.err;
  for (const std::string want : {"[\"caf\\ufffd\", 1]", "[\"a\\u0001b\", 1]", "[\"tab\\u0009here\", 1]",
                                 "[\"q\\\"uote\", 1]", "[\"back\\\\slash\", 1]", "[\"caf\xc3\xa9\", 1]"})
    EXPECT_NE(r.out.find(want), std::string::npos) << want << " in " << r.out;
  for (size_t i = 0; i + 1 < r.out.size(); ++i) {
    const auto c = static_cast<unsigned char>(r.out[i]);
    EXPECT_TRUE(c >= 0x20 && c != 0xE9) << "raw byte " << int{c} << " at " << i;
  }
  // And a JSON parser agrees, where one is at hand.
  if (std::system("python3 -c 'import json' >/dev/null 2>&1") == 0) {
    Write("out.json", r.out);
    const std::string check = "python3 -c 'import json,sys; d=json.load(open(sys.argv[1], encoding=\"utf-8\")); "
                              "t=dict(d[\"top\"]); sys.exit(0 if t[\"a\\x01b\"]==1 and t[\"caf\\ufffd\"]==1 else 3)' ";
    EXPECT_EQ(std::system(("cd '" + dir_.string() + "' && " + check + "out.json").c_str()), 0) << r.out;
  }
}

// Counts print as exact integers, in text and JSON (bytes: 5.42368e+06 once).
TEST_F(GardenCli, StatsPrintExactIntegers) {
  Write("none.txt", "");
  Ok("garden-build --type blocked-counting --blocks 84745 --k 6 --keys none.txt -o b.bbg");
  const Result text = Run("garden-stats b.bbg");
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find("blocks: 84745\nk: 6\nbytes: 5423680\ninserted: 0\n"), std::string::npos) << text.out;
  const Result json = Run("garden-stats b.bbg --format json");
  ASSERT_EQ(json.status, 0) << json.err;
  EXPECT_NE(json.out.find("\"blocks\": 84745, \"k\": 6, \"bytes\": 5423680,"), std::string::npos) << json.out;
  EXPECT_EQ(json.out.find("e+"), std::string::npos) << json.out;
}

// garden-build says what it wrote in one line, as build does.
TEST_F(GardenCli, BuildPrintsASummaryLine) {
  Write("k.txt", Lines(0, 100, "k"));
  Result r = Run("garden-build --type counting --cells 1000 --k 3 --keys k.txt -o c.bbg");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "c.bbg: counting, 1000 cells, k = 3, 4-bit counters, 504 bytes, hash xxh3 seed 0, 100 keys\n");
  r = Run("garden-build --type blocked-counting --blocks 10 --k 4 --hash xxh64 --seed 5 --keys k.txt -o b.bbg");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "b.bbg: blocked-counting, 10 blocks, k = 4, 640 bytes, hash xxh64 seed 5, 100 keys\n");
  r = Run("garden-build --type count-min --columns 100 --depth 3 --conservative --keys k.txt -o m.bbg");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "m.bbg: count-min, 100 columns x 3 rows (conservative), 2400 bytes, hash xxh3 seed 0, total N = 100\n");
}

}  // namespace
}  // namespace blockbloom::garden

#endif  // BLOCKBLOOM_CLI
