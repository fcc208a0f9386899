// SPDX-License-Identifier: Apache-2.0
// Apache Parquet split-block Bloom filters (SBBF), imported and exported byte
// for byte.
//
// The split256 layout with HashKind::kXxh64 and seed 0 *is* Parquet's SBBF:
// 32-byte blocks of 8 little-endian u32 words, block ((h >> 32) * z) >> 32,
// in word i bit (uint32(h) * salt[i]) >> 27, h = XXH64(plain-encoded value, 0)
// (for BYTE_ARRAY columns: the raw bytes, without Parquet's length prefix).
// So an import is a copy of the bitset and an export a copy back.
//
// In a Parquet file the bitset follows a Thrift-compact BloomFilterHeader
// (parquet.thrift):
//   struct BloomFilterHeader {
//     1: required i32 numBytes;                       // bitset size
//     2: required BloomFilterAlgorithm algorithm;     // union { 1: SplitBlockAlgorithm BLOCK }
//     3: required BloomFilterHash hash;               // union { 1: XxHash XXHASH }
//     4: required BloomFilterCompression compression; // union { 1: Uncompressed UNCOMPRESSED }
//   }
// which for numBytes = 2048 is the 16 bytes 15 80 20 1c 1c 00 00 1c 1c 00 00 1c 1c 00 00 00.
#ifndef BLOCKBLOOM_PARQUET_H_
#define BLOCKBLOOM_PARQUET_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"

namespace blockbloom {

// Parquet's SBBF block: 8 x u32.
inline constexpr uint64_t kParquetBlockBytes = 32;

struct ParquetHeader {
  uint64_t num_bytes;     // bitset bytes that follow the header
  size_t header_bytes;    // length of the Thrift-compact header itself
};

// Parses a Thrift-compact BloomFilterHeader at the start of `bytes` (fields it
// does not know are skipped, as Thrift readers do). Throws FormatError
// (format.h) naming the byte offset for a malformed header, a missing field,
// an algorithm other than BLOCK, a hash other than XXHASH, a compression other
// than UNCOMPRESSED, or numBytes not a positive multiple of 32. `name` labels
// the errors.
ParquetHeader ParseParquetHeader(std::span<const uint8_t> bytes, std::string_view name = "<buffer>");
// The header Parquet writers emit for a bitset of `num_bytes` bytes.
std::vector<uint8_t> ParquetHeaderBytes(uint32_t num_bytes);

// A header followed by exactly numBytes of bitset (trailing bytes are an error).
Filter ImportParquet(std::span<const uint8_t> bytes, std::string_view name = "<buffer>");
// A bare bitset (no header): its size must be a positive multiple of 32.
Filter ImportParquetBitset(std::span<const uint8_t> bitset, std::string_view name = "<buffer>");

// Whether `filter` is a Parquet SBBF (split256, xxh64, seed 0); if not, `why` says what differs.
bool IsParquetCompatible(const Filter& filter, std::string* why = nullptr);
// The bitset (num_blocks * 32 bytes). Throws std::invalid_argument unless IsParquetCompatible.
std::span<const uint8_t> ParquetBitset(const Filter& filter);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_PARQUET_H_
