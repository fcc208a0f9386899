// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the RocksDB readers (blockbloom/rocksdb.h) on arbitrary
// bytes, as a full filter block and as an SST file. Built only with
// -DBLOCKBLOOM_FUZZ=ON and clang (tools/ci/fuzz.sh), under ASan and UBSan; the
// seed is tests/golden/rocksdb_100keys.sst (an SST RocksDB 7.8.3 wrote).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/rocksdb.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::span<const uint8_t> bytes(data, size);
  // A block that imports exports back to exactly its bytes.
  try {
    const blockbloom::Filter f = blockbloom::ImportRocksdb(bytes, "fuzz");
    const std::vector<uint8_t> again = blockbloom::ExportRocksdb(f);
    Check(again.size() == size && std::memcmp(again.data(), data, size) == 0);
  } catch (const blockbloom::FormatError& e) {
    Check(e.offset() <= size);
  }
  // An SST whose filter imports: the block is inside the file and exports back to itself.
  try {
    const std::vector<uint8_t> block = blockbloom::RocksdbSstFilterBlock(bytes, "fuzz");
    Check(block.size() <= size);
    const blockbloom::Filter f = blockbloom::ImportRocksdbSst(bytes, "fuzz");
    Check(blockbloom::ExportRocksdb(f) == block);
  } catch (const blockbloom::FormatError& e) {
    Check(e.offset() <= size);
  }
  return 0;
}
