// SPDX-License-Identifier: Apache-2.0
// `blockbloom bench [BENCHMARK_FLAGS...]`: runs the Google Benchmark suites
// (bench/, target blockbloom_bench) that the CMake build put beside this
// binary. tools/bench.sh wraps it with the report and plots.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/blockbloom/commands.h"

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
    // tools/demo.sh builds the CLI alone (build/release, benchmarks off):
    // say exactly what builds the suites here.
    const std::string src = SourceDirOf(build);
    const std::string b = build.string();
    throw std::runtime_error(
        "the benchmark suites are not built (no " + bench.string() + "): run " +
        (src.empty() ? std::string("tools/bench.sh from the source tree")
                     : "'" + src + "/tools/bench.sh' (installs Google Benchmark, builds and runs them, writes the report)") +
        ", or build them here: 'tools/install-deps.sh build' (Google Benchmark) then 'cmake -S " + (src.empty() ? std::string("SOURCE_DIR") : src) + " -B " + b +
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
