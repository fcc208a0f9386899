// SPDX-License-Identifier: Apache-2.0
// The model commands of the built CLI (BLOCKBLOOM_CLI): params, table and
// verify, run as a user would, checking output and exit status, bad input
// included (exit 2, a message naming the option).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include "blockbloom/layout.h"
#include "blockbloom/model.h"

#ifdef BLOCKBLOOM_CLI

namespace blockbloom {
namespace {

struct CliRun {
  int status;
  std::string out;  // stdout and stderr together
};

CliRun RunCli(const std::string& args) {
  const std::string cmd = std::string(BLOCKBLOOM_CLI) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return {-1, "popen failed"};
  std::string out;
  std::array<char, 4096> buf;
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) out.append(buf.data(), n);
  const int raw = pclose(p);
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, out};
}

std::vector<std::vector<std::string>> Csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::stringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string cell; std::getline(ss, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(CliParams, CsvAgreesWithTheSolver) {
  const CliRun r = RunCli("params --n 1000000 --fpr 0.01 --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 1 + std::size(kAllLayouts)) << r.out;
  EXPECT_EQ(rows[0][0], "layout");
  int cheapest = 0;
  for (size_t i = 1; i < rows.size(); ++i) {
    const auto l = ParseLayout(rows[i][0]);
    ASSERT_TRUE(l) << rows[i][0];
    const FilterParams p = SolveForKeys(*l, 1'000'000, 0.01);
    EXPECT_EQ(std::stoull(rows[i][1]), p.bits);
    EXPECT_EQ(std::stoul(rows[i][4]), p.k);
    EXPECT_LE(std::stod(rows[i][5]), 0.01);
    cheapest += std::stoi(rows[i][6]);
  }
  EXPECT_EQ(cheapest, 1);
}

TEST(CliParams, TextAndJsonForOneLayout) {
  CliRun r = RunCli("params --n 1e6 --fpr 0.001 --layout split256");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("split256"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("16.890"), std::string::npos) << r.out;  // Parquet's 16.9 bits/value
  EXPECT_NE(r.out.find("cheapest"), std::string::npos) << r.out;
  r = RunCli("params --n 1000 --fpr 0.05 --format json");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_EQ(r.out.front(), '{');
  EXPECT_NE(r.out.find("\"cheapest\": \""), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"layout\": \"register64\""), std::string::npos) << r.out;
}

TEST(CliParams, BadInputNamesTheOption) {
  struct Case {
    const char* args;
    const char* names;
  };
  for (const Case& c : {Case{"params --n 100 --fpr 2", "--fpr"}, Case{"params --n 100 --fpr 0", "--fpr"},
                        Case{"params --n 100 --fpr abc", "--fpr"}, Case{"params --fpr 0.01", "--n"},
                        Case{"params --n 0 --fpr 0.01", "--n"}, Case{"params --n 100", "--fpr"},
                        Case{"params --n 100 --fpr 0.1 --layout nope", "--layout"},
                        Case{"params --n 100 --fpr 0.1 --format xml", "--format"},
                        Case{"params --n 100 --fpr 0.1 --bogus 1", "--bogus"}}) {
    const CliRun r = RunCli(c.args);
    EXPECT_EQ(r.status, 2) << c.args << ": " << r.out;
    EXPECT_NE(r.out.find(c.names), std::string::npos) << c.args << ": " << r.out;
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << c.args << ": " << r.out;  // one line
  }
}

// A rate out of reach for one layout: the error says so (exit 1, not a crash).
TEST(CliParams, UnreachableRate) {
  const CliRun r = RunCli("params --n 1000 --fpr 1e-300 --layout register64");
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("out of reach"), std::string::npos) << r.out;
}

TEST(CliTable, CsvMatchesTheModel) {
  const CliRun r = RunCli("table --layout blocked512 --mn 8:10 --k 5:7 --n 100000 --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = Csv(r.out);
  ASSERT_EQ(rows.size(), 1u + 3 * 3) << r.out;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"m_over_n", "k", "fpr"}));
  for (size_t i = 1; i < rows.size(); ++i) {
    const double mn = std::stod(rows[i][0]);
    const auto k = static_cast<uint32_t>(std::stoul(rows[i][1]));
    const double want = PredictFpr(Layout::kBlocked512, static_cast<uint64_t>(mn * 100000 / 512 + 0.5), k, 100000);
    EXPECT_NEAR(std::stod(rows[i][2]), want, want * 1e-5) << r.out;
  }
}

TEST(CliTable, ClassicTextTableHasSummaryCacheValues) {
  const CliRun r = RunCli("table --layout classic --mn 8:16 --k 6:11");
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("0.0216"), std::string::npos) << r.out;    // m/n = 8, k = 6
  // m/n = 16, k = 11: the exact form is 0.0004587 (Summary Cache prints the
  // approximate form's 0.000458).
  EXPECT_NE(r.out.find("0.000459"), std::string::npos) << r.out;
}

TEST(CliTable, BadInput) {
  for (const char* args : {"table --mn 2:4", "table --layout split256 --k 1:3", "table --layout blocked512 --mn 9:3",
                           "table --layout blocked512 --mn 0:3", "table --layout blocked512 --format json"}) {
    const CliRun r = RunCli(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
  }
  EXPECT_NE(RunCli("table --layout blocked512 --mn 0:3").out.find("--mn"), std::string::npos);
  EXPECT_NE(RunCli("table --layout split256 --k 1:3").out.find("--k"), std::string::npos);
  // A --k range (1..32) with no k the layout accepts names the layout's allowed k (its traits' k_text).
  for (Layout l : kAllLayouts) {
    const uint32_t k = Traits(l).k_power_of_two ? 3 : LayoutMinK(l) > 1 ? 1 : LayoutMaxK(l) + 1;
    if (k > 32) continue;  // the layout accepts every k the option does (classic)
    const std::string args = "table --layout " + std::string(LayoutName(l)) + " --k " + std::to_string(k) + ":" +
                             std::to_string(k);
    const CliRun r = RunCli(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
    EXPECT_NE(r.out.find("accepts (" + std::string(Traits(l).k_text) + ")"), std::string::npos) << args << ": " << r.out;
  }
}

// A small verify grid: every point passes and the summary is on stderr.
TEST(CliVerify, SmallGridPasses) {
  const CliRun r = RunCli("verify --layout blocked512,split256 --keys 20000 --bits-per-key 8 --streams random,sequential --format csv");
  ASSERT_EQ(r.status, 0) << r.out;
  const auto rows = Csv(r.out);
  size_t points = 0;
  for (const auto& row : rows) {
    if (row.size() != 13 || row[0] == "layout") continue;
    ++points;
    EXPECT_EQ(row[12], "1") << "point failed: " << row[0] << " k=" << row[4];
  }
  EXPECT_GE(points, 4u);
  EXPECT_NE(r.out.find("verify: "), std::string::npos);  // progress and summary
}

// Streamed mode measures one filter: where that filter's own scatter over key
// sets (RealizedRateVariance) is no longer small beside the binomial variance
// of the probes, it says so; with few probes it does not.
TEST(CliVerify, StreamedSaysWhenOneFilterScatters) {
  const std::string point = "verify --streamed --layout sectorized512 --keys 50000 --bits-per-key 20 --probes ";
  const CliRun many = RunCli(point + "2000000");
  EXPECT_NE(many.out.find("scatters over key sets"), std::string::npos) << many.out;
  const CliRun few = RunCli(point + "20000");
  EXPECT_EQ(few.out.find("scatters over key sets"), std::string::npos) << few.out;
  EXPECT_NE(few.out.find("verify: "), std::string::npos) << few.out;
}

TEST(CliVerify, BadInput) {
  for (const char* args : {"verify --layout nope", "verify --keys 0", "verify --streams words", "verify --confidence 1",
                           "verify --bits-per-key 0"}) {
    const CliRun r = RunCli(args);
    EXPECT_EQ(r.status, 2) << args << ": " << r.out;
  }
}

}  // namespace
}  // namespace blockbloom

#endif  // BLOCKBLOOM_CLI
