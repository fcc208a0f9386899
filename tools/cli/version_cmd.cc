// SPDX-License-Identifier: Apache-2.0
// `blockbloom version` and `blockbloom --version`: the library version, the
// filter file format version and the SIMD targets compiled in.
#include <cstdio>
#include <string>

#include "blockbloom/format.h"
#include "blockbloom/targets.h"
#include "blockbloom/version.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"

namespace blockbloom::cli {

int Version(int argc, char** argv) {
  Args args(argc, argv, {});
  args.ExpectPositionals(0, 0, "no arguments");
  std::string compiled, supported;
  for (const TargetInfo& t : CompiledTargets()) {
    compiled.append(" ").append(t.name);
    if (t.supported) supported.append(" ").append(t.name);
  }
  const std::string active(ActiveTarget());
  const std::string version(blockbloom::Version());
  std::printf("blockbloom %s\n", version.c_str());
  std::printf("file format version %u\n", static_cast<unsigned>(kFormatVersion));
  std::printf("SIMD targets compiled:%s\n", compiled.c_str());
  std::printf("SIMD targets this CPU runs:%s (in use: %s)\n", supported.c_str(), active.c_str());
  return 0;
}

}  // namespace blockbloom::cli
