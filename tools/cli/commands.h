// SPDX-License-Identifier: Apache-2.0
// The blockbloom CLI's commands. Each takes the arguments after its name and
// returns the process exit status; bad usage throws cli::UsageError, other
// failures std::exception (main prints one line on stderr and exits non-zero).
#ifndef BLOCKBLOOM_TOOLS_COMMANDS_H_
#define BLOCKBLOOM_TOOLS_COMMANDS_H_

#include <string>
#include <string_view>

namespace blockbloom::cli {

// The detailed `blockbloom COMMAND --help` text (help.cc); empty if unknown.
std::string CommandHelp(std::string_view name);

int Demo(int argc, char** argv);           // demo.cc
int Targets(int argc, char** argv);        // demo.cc
int Params(int argc, char** argv);         // model_cmds.cc
int Table(int argc, char** argv);          // model_cmds.cc
int Verify(int argc, char** argv);         // verify.cc
int Build(int argc, char** argv);          // file_cmds.cc
int Query(int argc, char** argv);          // file_cmds.cc
int Stats(int argc, char** argv);          // file_cmds.cc
int Merge(int argc, char** argv);          // file_cmds.cc
int Intersect(int argc, char** argv);      // file_cmds.cc
int Fold(int argc, char** argv);           // file_cmds.cc
int ImportParquet(int argc, char** argv);  // file_cmds.cc
int ExportParquet(int argc, char** argv);  // file_cmds.cc
int ImportRocksdbCmd(int argc, char** argv);  // rocksdb_cmds.cc
int ExportRocksdbCmd(int argc, char** argv);  // rocksdb_cmds.cc
int Bench(int argc, char** argv);          // bench_cmd.cc
int Version(int argc, char** argv);        // version_cmd.cc
int GardenBuild(int argc, char** argv);    // garden_cmds.cc
int GardenQuery(int argc, char** argv);    // garden_cmds.cc
int GardenStats(int argc, char** argv);    // garden_cmds.cc
int GardenMerge(int argc, char** argv);    // garden_cmds.cc

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_COMMANDS_H_
