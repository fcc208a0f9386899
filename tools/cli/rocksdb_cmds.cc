// SPDX-License-Identifier: Apache-2.0
// The RocksDB commands: import-rocksdb (a full filter block, or the full filter
// of a block-based SST file) and export-rocksdb (a full filter block RocksDB
// reads). blockbloom/rocksdb.h has the format.
#include <algorithm>
#include <cstdio>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/rocksdb.h"
#include "tools/cli/args.h"
#include "tools/cli/commands.h"
#include "tools/cli/keys.h"

namespace blockbloom::cli {
namespace {

// The block-based table magic, little-endian, as the last 8 bytes of an SST.
constexpr uint8_t kSstMagicTail[8] = {0xf7, 0xcf, 0xf4, 0x85, 0xb7, 0x41, 0xe2, 0x88};

bool LooksLikeSst(std::span<const uint8_t> bytes) {
  return bytes.size() >= 8 && std::equal(std::begin(kSstMagicTail), std::end(kSstMagicTail), bytes.end() - 8);
}

std::string Summary(const Filter& f) {
  return "RocksDB FastLocalBloom filter, " + std::to_string(f.num_blocks()) +
         " 64-byte lines, k = " + std::to_string(f.k()) + " (blocked512, hash rocksdb, seed 0)";
}

}  // namespace

int ImportRocksdbCmd(int argc, char** argv) {
  const Args args(argc, argv, {"o"}, {"block", "sst"});
  args.ExpectPositionals(1, 1, "a RocksDB filter block or .sst FILE");
  const std::string out = args.Require("o");
  if (args.Has("block") && args.Has("sst"))
    throw UsageError("blockbloom: --block and --sst: expected at most one of them");
  const std::string path = args.positionals()[0];
  const std::string data = ReadInput(path);
  const std::span<const uint8_t> bytes(reinterpret_cast<const uint8_t*>(data.data()), data.size());
  const bool sst = args.Has("sst") || (!args.Has("block") && LooksLikeSst(bytes));
  const Filter f = sst ? ImportRocksdbSst(bytes, path) : ImportRocksdb(bytes, path);
  SaveFilter(f, out);
  std::printf("%s: %s, from %s\n", out.c_str(), Summary(f).c_str(), sst ? "the SST's full filter" : "a filter block");
  return 0;
}

int ExportRocksdbCmd(int argc, char** argv) {
  const Args args(argc, argv, {"o"});
  args.ExpectPositionals(1, 1, "FILTER");
  const std::string out = args.Require("o");
  const std::string path = args.positionals()[0];
  const Filter f = LoadFilter(path);
  std::string why;
  if (!IsRocksdbCompatible(f, &why))
    throw std::runtime_error("blockbloom: cannot export " + path + " as a RocksDB full filter: " + why +
                             " (build it with --layout blocked512 --hash rocksdb)");
  const std::vector<uint8_t> block = ExportRocksdb(f);
  const std::span<const uint8_t> parts[] = {block};
  WriteFileAtomic(out, parts);
  std::printf("%s: %zu-byte full filter block (%s)\n", out.c_str(), block.size(), Summary(f).c_str());
  return 0;
}

}  // namespace blockbloom::cli
