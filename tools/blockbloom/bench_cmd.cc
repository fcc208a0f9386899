// `blockbloom bench [BENCHMARK_FLAGS...]`: runs the Google Benchmark suites
// (bench/, target blockbloom_bench) that the CMake build put beside this
// binary. tools/bench.sh wraps it with the report and plots.
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "tools/blockbloom/commands.h"

namespace blockbloom::cli {

int Bench(int argc, char** argv) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  // build/tools/blockbloom -> build/bench/blockbloom_bench
  const fs::path bench = self.parent_path().parent_path() / "bench" / "blockbloom_bench";
  if (ec || !fs::exists(bench)) {
    throw std::runtime_error("the benchmark binary was not found at " + bench.string() +
                             ": build the blockbloom_bench target (tools/bench.sh does)");
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
