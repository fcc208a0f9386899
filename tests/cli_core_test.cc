// SPDX-License-Identifier: Apache-2.0
// The CLI's own front door, through the built binary: `targets`, pinning by
// flag and by BLOCKBLOOM_TARGET, usage errors, and a small `demo`.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "blockbloom/targets.h"
#include "blockbloom/layout.h"

namespace {

struct CliRun {
  int status;
  std::string out;  // stdout and stderr
};

CliRun Cli(const std::string& args, const std::string& env = "") {
  const std::string cmd = env + " " BLOCKBLOOM_CLI " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  CliRun r{-1, ""};
  if (p == nullptr) return r;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// The line of `blockbloom targets` output that is marked in use.
std::string InUse(const std::string& out) {
  size_t pos = 0;
  while (pos < out.size()) {
    const size_t end = out.find('\n', pos);
    const std::string line = out.substr(pos, end - pos);
    if (!line.empty() && line.back() == '*') return line.substr(0, line.find(' '));
    if (end == std::string::npos) break;
    pos = end + 1;
  }
  return "";
}

TEST(CliCore, TargetsListsEveryCompiledTargetAndMarksTheBest) {
  const CliRun r = Cli("targets");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const auto& t : blockbloom::CompiledTargets()) EXPECT_NE(r.out.find(std::string(t.name)), std::string::npos);
  std::string best;
  for (const auto& t : blockbloom::CompiledTargets()) {
    if (t.supported) {
      best = t.name;
      break;
    }
  }
  EXPECT_EQ(InUse(r.out), best);
}

TEST(CliCore, PinByFlagAndByEnvironment) {
  for (const auto& t : blockbloom::CompiledTargets()) {
    if (!t.supported) continue;
    const std::string name(t.name);
    EXPECT_EQ(InUse(Cli("--target " + name + " targets").out), name);
    EXPECT_EQ(InUse(Cli("targets", "BLOCKBLOOM_TARGET=" + name).out), name);
  }
  const CliRun bad = Cli("--target nosuch targets");
  EXPECT_NE(bad.status, 0);
  EXPECT_NE(bad.out.find("target 'nosuch' is not available"), std::string::npos) << bad.out;
  // A bad environment pin warns and falls back to the best target.
  const CliRun env_bad = Cli("targets", "BLOCKBLOOM_TARGET=nosuch");
  EXPECT_EQ(env_bad.status, 0);
  EXPECT_NE(env_bad.out.find("BLOCKBLOOM_TARGET=nosuch"), std::string::npos) << env_bad.out;
}

TEST(CliCore, UsageErrorsNameTheProblem) {
  CliRun r = Cli("frobnicate");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("unknown command 'frobnicate'"), std::string::npos) << r.out;
  r = Cli("demo --n abc");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--n = 'abc' is not a non-negative integer"), std::string::npos) << r.out;
  r = Cli("demo --layout nosuch");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("--layout"), std::string::npos) << r.out;
  r = Cli("demo --fpr 1.5 --n 1000");
  EXPECT_NE(r.status, 0);
  EXPECT_NE(r.out.find("false-positive rate"), std::string::npos) << r.out;
}

TEST(CliCore, DemoReportsEveryTargetWithNoFalseNegativesAndEqualBytes) {
  const CliRun r = Cli("demo --n 200000 --reps 1");
  ASSERT_EQ(r.status, 0) << r.out;
  for (const auto& t : blockbloom::CompiledTargets()) {
    if (t.supported) {
      const std::string row = std::string("\n").append(t.name).append(" ");
      EXPECT_NE(r.out.find(row), std::string::npos) << r.out;
    }
  }
  EXPECT_EQ(r.out.find("NO"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("model rate"), std::string::npos);
}

}  // namespace
