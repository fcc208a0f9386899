// SPDX-License-Identifier: Apache-2.0
// What the CLI suites share: a fresh temporary directory per test, files
// written into and read from it, and the result of one run of the binary.
// Each suite adds its own Run (plain, with a timeout, through a terminal...).
#ifndef BLOCKBLOOM_TESTS_CLI_FIXTURE_H_
#define BLOCKBLOOM_TESTS_CLI_FIXTURE_H_

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>

namespace blockbloom::testing {

struct CliResult {
  int status;  // exit status; 124: a timeout fired; -1: killed by a signal
  std::string out;
  std::string err;
};

class TempDirTest : public ::testing::Test {
 protected:
  // `prefix` names the directory ("bbcli" -> /tmp/bbcli.XXXXXX).
  explicit TempDirTest(std::string prefix) : prefix_(std::move(prefix)) {}

  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix_ + ".XXXXXX")).string();
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  void Write(const std::string& name, const std::string& bytes) const {
    std::ofstream out(Path(name), std::ios::binary | std::ios::trunc);
    out << bytes;
  }
  static std::string ReadFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
  std::string Read(const std::string& name) const { return ReadFile(Path(name)); }
  bool Exists(const std::string& name) const { return std::filesystem::exists(dir_ / name); }

  std::filesystem::path dir_;

 private:
  std::string prefix_;
};

}  // namespace blockbloom::testing

#endif  // BLOCKBLOOM_TESTS_CLI_FIXTURE_H_
