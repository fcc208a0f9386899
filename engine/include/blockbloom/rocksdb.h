// SPDX-License-Identifier: Apache-2.0
// RocksDB full filters (FastLocalBloom, RocksDB >= 6.6 with format_version
// >= 5), imported and exported byte for byte, and read straight out of a
// block-based SST file.
//
// The blocked512 layout with HashKind::kRocksdb and seed 0 *is* RocksDB's
// FastLocalBloom: 64-byte cache lines, line FastRange32(num_lines, lower32(h)),
// probe i at bit (upper32(h) * 0x9e3779b9^i) >> 23 of the line, h =
// XXPH3_64bits(user key) (hash.h: kRocksdb swaps h's halves so that blocked512
// reads them the way RocksDB does). So an import is a copy of the bitset and an
// export a copy back plus the trailer.
//
// A full filter block (table/block_based/filter_policy.cc, FastLocalBloomBitsBuilder::Finish
// and GetBuiltinFilterBitsReader) is the bitset of `len` bytes, a multiple of
// 64, then 5 metadata bytes:
//   len + 0   0xff   (int8 -1: "a newer Bloom implementation"; -2 is Ribbon,
//                     1..127 the legacy Bloom's probe count)
//   len + 1   0x00   sub-implementation: 0 = FastLocalBloom
//   len + 2   k      low 5 bits the probe count (1..30), top 3 bits the
//                     log2(block bytes) - 6 (0: 64-byte lines, the only one)
//   len + 3   0x00 0x00  reserved (RocksDB reads a nonzero value as "always
//                     true", a future hash seed)
// RocksDB writes k = ChooseNumProbes(bits per key): 6 at 10 bits per key.
// blockbloom's blocked512 allows k = 1..16, so filters of k 17..30 (more than
// ~26 bits per key) are refused.
#ifndef BLOCKBLOOM_ROCKSDB_H_
#define BLOCKBLOOM_ROCKSDB_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"

namespace blockbloom {

// FastLocalBloom's cache line and the trailer after the bitset.
inline constexpr uint64_t kRocksdbLineBytes = 64;
inline constexpr uint64_t kRocksdbTrailerBytes = 5;
// The metaindex key of a full filter written by RocksDB's built-in Bloom policy.
inline constexpr std::string_view kRocksdbFullFilterKey = "fullfilter.rocksdb.BuiltinBloomFilter";

// A full filter block: bitset then trailer. Throws FormatError (format.h)
// naming the byte offset for a block shorter than 69 bytes (an empty filter,
// 5 bytes, is refused: blockbloom filters have at least one line), a bitset
// not a multiple of 64 bytes, a legacy Bloom (marker 1..127), Ribbon (-2) or
// other marker, another sub-implementation, another block size, k outside
// 1..16, or nonzero reserved bytes. `name` labels the errors.
Filter ImportRocksdb(std::span<const uint8_t> block, std::string_view name = "<buffer>");

// Whether `filter` is a RocksDB FastLocalBloom (blocked512, rocksdb hash,
// seed 0, below 2^32 bytes); if not, `why` says what differs.
bool IsRocksdbCompatible(const Filter& filter, std::string* why = nullptr);
// The full filter block (bitset + trailer). Throws std::invalid_argument
// unless IsRocksdbCompatible.
std::vector<uint8_t> ExportRocksdb(const Filter& filter);

// The full filter block of a block-based SST file (`file` holds its bytes):
// footer (the last 53 bytes: checksum type, metaindex and index handles,
// format_version 1..5, magic 0x88e241b785f4cff7), the metaindex block, its
// kRocksdbFullFilterKey entry, that block (checked: inside the file,
// uncompressed). Throws FormatError naming the byte offset for a file that is
// not a block-based table (legacy, plain or cuckoo tables, format_version 6+),
// a partitioned filter, another filter policy, no filter, or any handle,
// varint or entry that does not fit, and for a filter block whose checksum
// (the footer's type: CRC32c, xxHash64 or XXH3; xxHash32 is not verified)
// does not match its bytes.
std::vector<uint8_t> RocksdbSstFilterBlock(std::span<const uint8_t> file, std::string_view name = "<buffer>");
// Reads the file's footer, metaindex block and full filter block (only
// those: an SST of gigabytes is not read whole) and imports the filter
// (ImportRocksdb of the block, errors naming offsets in the file). Throws
// std::runtime_error if the file cannot be read.
Filter ReadRocksdbSst(const std::string& path);
// The same over the file's bytes.
Filter ImportRocksdbSst(std::span<const uint8_t> file, std::string_view name = "<buffer>");

}  // namespace blockbloom

#endif  // BLOCKBLOOM_ROCKSDB_H_
