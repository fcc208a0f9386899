// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/parquet.h"

#include <cstring>
#include <stdexcept>
#include <string>

#include "blockbloom/format.h"
#include "engine/src/errors.h"
#include "engine/src/filter_access.h"

namespace blockbloom {
namespace {

// Thrift compact protocol type ids (thrift/doc/specs/thrift-compact-protocol.md).
enum CompactType : uint8_t {
  kStop = 0,
  kBoolTrue = 1,
  kBoolFalse = 2,
  kByte = 3,
  kI16 = 4,
  kI32 = 5,
  kI64 = 6,
  kDouble = 7,
  kBinary = 8,
  kList = 9,
  kSet = 10,
  kMap = 11,
  kStruct = 12,
};
// Nesting allowed while skipping unknown fields: far beyond any real header,
// low enough that a hostile input cannot exhaust the stack.
constexpr int kMaxDepth = 32;
// A varint carries 7 bits per byte: 64 bits need at most 10 bytes.
constexpr int kMaxVarintBytes = 10;

// The union member id of BLOCK, XXHASH and UNCOMPRESSED in parquet.thrift.
constexpr int64_t kOnlyMember = 1;

class CompactReader {
 public:
  CompactReader(std::span<const uint8_t> bytes, std::string_view name) : bytes_(bytes), name_(name) {}

  size_t pos() const { return pos_; }
  [[noreturn]] void Fail(size_t offset, const std::string& problem) const {
    throw FormatError(name_, offset, "Parquet Bloom filter header: " + problem);
  }

  uint8_t U8() {
    if (pos_ >= bytes_.size())
      Fail(pos_, "truncated after " + std::to_string(bytes_.size()) + " bytes: expected more of the Thrift header");
    return bytes_[pos_++];
  }
  uint64_t Varint() {
    const size_t start = pos_;
    uint64_t v = 0;
    for (int i = 0; i < kMaxVarintBytes; ++i) {
      const uint8_t b = U8();
      v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) return v;
    }
    Fail(start, "varint longer than 10 bytes: expected at most 10");
  }
  static int64_t ZigZag(uint64_t v) { return static_cast<int64_t>(v >> 1) ^ -static_cast<int64_t>(v & 1); }
  int64_t I32() {
    const size_t start = pos_;
    const uint64_t v = Varint();
    if (v > 0xffffffffULL) Fail(start, "i32 varint out of range: expected at most 32 bits");
    return ZigZag(v);
  }
  void Skip(size_t n) {
    if (bytes_.size() - pos_ < n)
      Fail(bytes_.size(), "truncated: a field needs " + std::to_string(n) + " more bytes, " +
                              std::to_string(bytes_.size() - pos_) + " left");
    pos_ += n;
  }

  // Reads a field header; returns false at a STOP. `last_id` is the previous id in the struct.
  bool Field(int64_t& last_id, uint8_t& type, size_t& at) {
    at = pos_;
    const uint8_t b = U8();
    if (b == kStop) return false;
    type = b & 0x0f;
    const uint8_t delta = b >> 4;
    if (delta != 0) {
      last_id += delta;
    } else {
      const size_t id_at = pos_;
      const int64_t id = ZigZag(Varint());
      if (id < 0 || id > 32767) Fail(id_at, "field id " + std::to_string(id) + " out of range: expected 0..32767");
      last_id = id;
    }
    return true;
  }

  // Skips one element of a list, set or map. There a bool is one byte (1 or 2),
  // so every element consumes at least one byte and a hostile count cannot
  // spin without reading.
  void SkipElement(uint8_t type, int depth) {
    if (type == kBoolTrue || type == kBoolFalse) {
      Skip(1);
    } else {
      SkipValue(type, pos_, depth);
    }
  }

  // Skips one value of `type` (for fields this reader does not know).
  void SkipValue(uint8_t type, size_t at, int depth) {
    if (depth > kMaxDepth) Fail(at, "nested deeper than " + std::to_string(kMaxDepth) + " levels");
    switch (type) {
      case kBoolTrue:
      case kBoolFalse: return;
      case kByte: Skip(1); return;
      case kI16:
      case kI32:
      case kI64: Varint(); return;
      case kDouble: Skip(8); return;
      case kBinary: Skip(Varint()); return;
      case kList:
      case kSet: {
        const uint8_t h = U8();
        uint64_t n = h >> 4;
        if (n == 15) n = Varint();
        const uint8_t elem = h & 0x0f;
        for (uint64_t i = 0; i < n; ++i) SkipElement(elem, depth + 1);
        return;
      }
      case kMap: {
        const uint64_t n = Varint();
        if (n == 0) return;
        const uint8_t kv = U8();
        for (uint64_t i = 0; i < n; ++i) {
          SkipElement(kv >> 4, depth + 1);
          SkipElement(kv & 0x0f, depth + 1);
        }
        return;
      }
      case kStruct: {
        int64_t id = 0;
        uint8_t t = 0;
        size_t field_at = 0;
        while (Field(id, t, field_at)) SkipValue(t, field_at, depth + 1);
        return;
      }
      default: Fail(at, "unknown Thrift compact type " + std::to_string(type) + ": expected 1..12");
    }
  }

 private:
  std::span<const uint8_t> bytes_;
  std::string name_;
  size_t pos_ = 0;
};

// Reads one of the header's single-member unions (algorithm, hash,
// compression): the member must be id 1, an (empty) struct.
void ExpectOnlyMember(CompactReader& r, const char* field, const char* member) {
  int64_t id = 0;
  uint8_t type = 0;
  size_t at = 0;
  if (!r.Field(id, type, at)) r.Fail(at, std::string(field) + " is an empty union: expected " + member);
  if (id != kOnlyMember || type != kStruct)
    r.Fail(at, std::string(field) + " is union member " + std::to_string(id) + " (Thrift type " + std::to_string(type) +
                   "): expected member 1, " + member + " (the only one blockbloom reads)");
  r.SkipValue(type, at, 1);
  if (r.Field(id, type, at)) r.Fail(at, std::string(field) + " union has a second member: expected one");
}

}  // namespace

ParquetHeader ParseParquetHeader(std::span<const uint8_t> bytes, std::string_view name) {
  CompactReader r(bytes, name);
  static constexpr const char* kNames[] = {"", "numBytes", "algorithm", "hash", "compression"};
  bool seen[5] = {};
  int64_t num_bytes = 0;
  int64_t id = 0;
  uint8_t type = 0;
  size_t at = 0;
  while (r.Field(id, type, at)) {
    if (id < 1 || id > 4) {
      r.SkipValue(type, at, 1);
      continue;
    }
    const uint8_t want = id == 1 ? kI32 : kStruct;
    if (type != want)
      r.Fail(at, std::string("field ") + std::to_string(id) + " (" + kNames[id] + ") has Thrift type " +
                     std::to_string(type) + ": expected " + std::to_string(want) + (id == 1 ? " (i32)" : " (union)"));
    seen[id] = true;
    switch (id) {
      case 1: {
        const size_t value_at = r.pos();
        num_bytes = r.I32();
        if (num_bytes <= 0 || num_bytes % static_cast<int64_t>(kParquetBlockBytes) != 0)
          r.Fail(value_at, "numBytes = " + std::to_string(num_bytes) + ": expected a positive multiple of " +
                               std::to_string(kParquetBlockBytes) + " (whole 32-byte blocks)");
        break;
      }
      case 2: ExpectOnlyMember(r, "algorithm", "BLOCK (split-block)"); break;
      case 3: ExpectOnlyMember(r, "hash", "XXHASH"); break;
      case 4: ExpectOnlyMember(r, "compression", "UNCOMPRESSED"); break;
    }
  }
  for (int i = 1; i <= 4; ++i)
    if (!seen[i]) r.Fail(at, std::string("required field ") + std::to_string(i) + " (" + kNames[i] + ") is missing");
  return ParquetHeader{static_cast<uint64_t>(num_bytes), r.pos()};
}

std::vector<uint8_t> ParquetHeaderBytes(uint32_t num_bytes) {
  if (num_bytes == 0 || num_bytes > 0x7fffffffU || num_bytes % kParquetBlockBytes != 0)
    detail::Invalid("numBytes = " + std::to_string(num_bytes) +
                    " cannot be written: expected a positive multiple of 32 below 2^31");
  // Field 1 (delta 1), type i32; the value is zigzag(n) = 2n for n >= 0, as a varint.
  std::vector<uint8_t> h = {static_cast<uint8_t>(0x10 | kI32)};
  for (uint64_t v = uint64_t{num_bytes} << 1;; v >>= 7) {
    if (v < 0x80) {
      h.push_back(static_cast<uint8_t>(v));
      break;
    }
    h.push_back(static_cast<uint8_t>(v | 0x80));
  }
  // Fields 2, 3, 4 (delta 1 each), type struct: a union whose member 1 (delta 1)
  // is an empty struct; then that struct's STOP and the union's STOP.
  for (int i = 0; i < 3; ++i) {
    const uint8_t union_member[] = {0x10 | kStruct, 0x10 | kStruct, kStop, kStop};
    h.insert(h.end(), std::begin(union_member), std::end(union_member));
  }
  h.push_back(kStop);  // end of BloomFilterHeader
  return h;
}

Filter ImportParquetBitset(std::span<const uint8_t> bitset, std::string_view name) {
  if (bitset.empty() || bitset.size() % kParquetBlockBytes != 0)
    throw FormatError(std::string(name), bitset.size() - bitset.size() % kParquetBlockBytes,
                      "bitset of " + std::to_string(bitset.size()) + " bytes: expected a positive multiple of " +
                          std::to_string(kParquetBlockBytes) + " (whole 32-byte blocks)");
  Filter f = Filter::WithBlocks(Layout::kSplit256, bitset.size() / kParquetBlockBytes, 8, HashKind::kXxh64, 0);
  std::memcpy(detail::FilterAccess::MutableData(f), bitset.data(), bitset.size());
  return f;
}

Filter ImportParquet(std::span<const uint8_t> bytes, std::string_view name) {
  const ParquetHeader h = ParseParquetHeader(bytes, name);
  const uint64_t have = bytes.size() - h.header_bytes;
  if (have < h.num_bytes)
    throw FormatError(std::string(name), bytes.size(),
                      "bitset is truncated: " + std::to_string(have) + " bytes after the " +
                          std::to_string(h.header_bytes) + "-byte header: expected numBytes = " +
                          std::to_string(h.num_bytes));
  if (have > h.num_bytes)
    throw FormatError(std::string(name), h.header_bytes + h.num_bytes,
                      std::to_string(have - h.num_bytes) + " unexpected bytes after the " + std::to_string(h.num_bytes) +
                          "-byte bitset: expected the input to end there");
  return ImportParquetBitset(bytes.subspan(h.header_bytes), name);
}

bool IsParquetCompatible(const Filter& f, std::string* why) {
  std::string diff;
  if (f.empty()) {  // the empty filter's layout says nothing: name what it is
    diff = "the filter is empty (default-constructed or moved from, 0 blocks): expected a filter of at least 1 block";
  } else if (f.layout() != Layout::kSplit256) {
    diff = "layout is " + std::string(LayoutName(f.layout())) + ": expected split256";
  } else if (f.hash_kind() != HashKind::kXxh64) {
    diff = "hash is " + std::string(HashName(f.hash_kind())) + ": expected xxh64";
  } else if (f.seed() != 0) {
    diff = "seed is " + std::to_string(f.seed()) + ": expected 0";
  } else if (f.num_blocks() * kParquetBlockBytes > 0x7fffffffULL) {
    diff = "bitset of " + std::to_string(f.num_blocks() * kParquetBlockBytes) +
           " bytes: expected less than 2^31 (Parquet's numBytes is an i32)";
  }
  if (why != nullptr) *why = diff;
  return diff.empty();
}

std::span<const uint8_t> ParquetBitset(const Filter& filter) {
  std::string why;
  if (!IsParquetCompatible(filter, &why))
    throw std::invalid_argument("blockbloom: not a Parquet split-block Bloom filter: " + why);
  return {filter.data(), filter.num_blocks() * kParquetBlockBytes};
}

}  // namespace blockbloom
