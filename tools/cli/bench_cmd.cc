// SPDX-License-Identifier: Apache-2.0
// `blockbloom bench [BENCHMARK_FLAGS...]`: runs the Google Benchmark suites
// (bench/, target blockbloom_bench) that the CMake build put beside this
// binary. tools/scripts/bench.sh wraps it with the report and plots. Without them it
// says how to build them: in this build tree, or, for an installed binary,
// from a source checkout.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/cli/commands.h"

namespace blockbloom::cli {

namespace {

// The source directory this build was configured from (CMakeCache.txt), or "".
std::string SourceDirOf(const std::filesystem::path& build) {
  std::ifstream cache(build / "CMakeCache.txt");
  std::string line;
  const std::string key = "blockbloom_SOURCE_DIR:STATIC=";
  while (std::getline(cache, line))
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  return "";
}

}  // namespace

int Bench(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  // build/tools/blockbloom -> build/bench/blockbloom_bench
  const fs::path build = self.parent_path().parent_path();
  const fs::path bench = build / "bench" / "blockbloom_bench";
  if (ec || !fs::is_regular_file(bench)) {
    const std::string src = SourceDirOf(build);
    if (src.empty()) {
      // Not a build tree (an installed blockbloom: no CMakeCache.txt beside
      // it): the suites are built from a source checkout, never here.
      throw std::runtime_error(
          "the benchmark suites are not installed with blockbloom (" + self.string() + " is not in a build tree); "
          "to build and run them, in a source checkout of blockbloom run 'tools/scripts/bench.sh' (installs Google Benchmark, "
          "builds and runs them, writes the report), or build them there: 'tools/scripts/install-deps.sh build' (Google "
          "Benchmark) then 'cmake -S . -B build/bench -DCMAKE_BUILD_TYPE=Release -DBLOCKBLOOM_BUILD_BENCH=ON && "
          "cmake --build build/bench --target blockbloom_bench blockbloom_cli && build/bench/tools/blockbloom bench'");
    }
    // A build tree without them (tools/demo.sh builds the CLI alone, in
    // build/release, benchmarks off): say exactly what builds them here.
    const std::string b = build.string();
    throw std::runtime_error(
        "the benchmark suites are not built (no " + bench.string() + "): run '" + src +
        "/tools/scripts/bench.sh' (installs Google Benchmark, builds and runs them, writes the report), or build them here: "
        "'tools/scripts/install-deps.sh build' (Google Benchmark) then 'cmake -S " + src + " -B " + b +
        " -DBLOCKBLOOM_BUILD_BENCH=ON && cmake --build " + b + " --target blockbloom_bench'");
  }
  std::vector<char*> args;
  std::string path = bench.string();
  args.push_back(path.data());
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(path.c_str(), args.data());
  throw std::runtime_error("cannot run " + path + ": " + std::strerror(errno));
}

}  // namespace blockbloom::cli
