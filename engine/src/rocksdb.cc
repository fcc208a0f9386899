// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/rocksdb.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <optional>
#include <stdexcept>

#include "blockbloom/format.h"
#include "blockbloom/hash.h"
#include "blockbloom/layout.h"
#include "engine/src/bytes.h"
#include "engine/src/filter_access.h"

namespace blockbloom {
namespace {

using detail::Hex;
using detail::LoadLE;

// Trailer bytes (offsets from the end of the bitset).
constexpr uint8_t kNewBloomMarker = 0xff;   // int8 -1
constexpr uint8_t kRibbonMarker = 0xfe;     // int8 -2
constexpr uint8_t kFastLocalBloom = 0;      // sub-implementation
constexpr uint32_t kMaxRocksdbProbes = 30;  // 0 and 31 are reserved in the 5-bit field

// ---- Block-based table (table/format.{h,cc}) --------------------------------------
// Footer of format_version 1..5: checksum type (1 byte), metaindex and index
// handles (varint64 offset, varint64 size each) zero-padded to 40 bytes,
// format_version (u32 LE), magic (u64 LE).
constexpr uint64_t kBlockBasedMagic = 0x88e241b785f4cff7ULL;
constexpr uint64_t kLegacyBlockBasedMagic = 0xdb4775248b80fb57ULL;  // format_version 0 (LevelDB's)
constexpr uint64_t kPlainTableMagic = 0x8242229663bf9564ULL;
constexpr uint64_t kLegacyPlainTableMagic = 0x4f3418eb7a8f13b8ULL;
constexpr uint64_t kCuckooTableMagic = 0x926789d0c5f17873ULL;
constexpr uint64_t kFooterBytes = 1 + 40 + 4 + 8;
constexpr uint32_t kMaxFormatVersion = 5;
// Each block is followed by a compression type byte and a 4-byte checksum.
constexpr uint64_t kBlockTrailerBytes = 5;
constexpr int kMaxVarint64Bytes = 10;

// The footer's checksum type (include/rocksdb/table.h ChecksumType) and how a
// block's 4-byte checksum covers the block and its compression type byte
// (table/format.cc ComputeBuiltinChecksumWithLastByte).
enum ChecksumType : uint8_t { kNoChecksum = 0, kCrc32c = 1, kXxHash32 = 2, kXxHash64 = 3, kXxh3Checksum = 4 };
constexpr uint32_t kCrc32cMaskDelta = 0xa282ead8;  // util/crc32c.h Mask: rotate right 15, add this
constexpr uint32_t kLastBytePrime = 0x6b9083d9;    // ModifyChecksumForLastByte's multiplier (XXH3 checksums)

// CRC-32C (Castagnoli, reflected polynomial 0x82f63b78), bytewise.
struct Crc32cTable {
  uint32_t t[256];
  constexpr Crc32cTable() : t() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int b = 0; b < 8; ++b) c = (c >> 1) ^ (0x82f63b78u & (0u - (c & 1u)));
      t[i] = c;
    }
  }
};
constexpr Crc32cTable kCrc32cTable;
uint32_t Crc32c(std::span<const uint8_t> a, uint8_t last) {
  uint32_t c = ~0u;
  for (uint8_t b : a) c = kCrc32cTable.t[(c ^ b) & 0xff] ^ (c >> 8);
  c = kCrc32cTable.t[(c ^ last) & 0xff] ^ (c >> 8);
  return ~c;
}

// Reads within [pos, end) of the file, every read checked; `bytes` holds the
// file's bytes from offset `base` on (positions and errors are offsets in the
// whole file).
class Cursor {
 public:
  Cursor(std::span<const uint8_t> bytes, uint64_t base, uint64_t pos, uint64_t end, const std::string& name,
         const char* what)
      : bytes_(bytes), base_(base), pos_(pos), end_(end), name_(name), what_(what) {}
  uint64_t pos() const { return pos_; }
  bool done() const { return pos_ >= end_; }
  [[noreturn]] void Fail(uint64_t at, const std::string& problem) const {
    throw FormatError(name_, at, std::string("RocksDB SST ") + what_ + ": " + problem);
  }
  uint64_t Varint(int max_bytes, const char* field) {
    const uint64_t start = pos_;
    uint64_t v = 0;
    for (int i = 0; i < max_bytes; ++i) {
      if (pos_ >= end_)
        Fail(pos_,
             std::string(field) + " varint is truncated at byte " + std::to_string(pos_) + ": expected more of it");
      const uint8_t b = bytes_[pos_++ - base_];
      v |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
      if ((b & 0x80) == 0) return v;
    }
    Fail(start, std::string(field) + " varint longer than " + std::to_string(max_bytes) + " bytes");
  }
  std::string_view Bytes(uint64_t n, const char* field) {
    if (n > end_ - pos_)
      Fail(pos_, std::string(field) + " of " + std::to_string(n) + " bytes runs past the end (" +
                     std::to_string(end_ - pos_) + " bytes left)");
    const std::string_view s(reinterpret_cast<const char*>(bytes_.data() + (pos_ - base_)), n);
    pos_ += n;
    return s;
  }

 private:
  std::span<const uint8_t> bytes_;
  uint64_t base_;
  uint64_t pos_;
  uint64_t end_;
  const std::string& name_;
  const char* what_;
};

struct BlockHandle {
  uint64_t offset;
  uint64_t size;
};

// A handle's block plus its trailer must lie inside the file.
void CheckHandle(const Cursor& c, uint64_t at, const BlockHandle& h, uint64_t file_size, const char* what) {
  if (h.offset > file_size || h.size > file_size - h.offset || kBlockTrailerBytes > file_size - h.offset - h.size)
    c.Fail(at, std::string(what) + " handle (offset " + std::to_string(h.offset) + ", size " + std::to_string(h.size) +
                   ") plus its 5-byte trailer runs past the end of the " + std::to_string(file_size) + "-byte file");
}

// ImportRocksdb of a block found at byte `base` of the input named `name`
// (0 for a bare block): errors name offsets in that input.
Filter ImportBlockAt(std::span<const uint8_t> block, const std::string& name, uint64_t base) {
  const uint64_t size = block.size();
  auto fail = [&](uint64_t at, const std::string& problem) -> void {
    throw FormatError(
        name, base + at,
        "RocksDB filter block" + (base == 0 ? std::string() : " at byte " + std::to_string(base)) + ": " + problem);
  };
  if (size <= kRocksdbTrailerBytes)
    fail(0, std::to_string(size) + " bytes: an empty filter (RocksDB reads it as \"no keys\"): expected a bitset of " +
                "at least 64 bytes and the 5-byte trailer");
  const uint64_t len = size - kRocksdbTrailerBytes;
  const uint8_t* t = block.data() + len;
  if (t[0] == kRibbonMarker)
    fail(len,
         "marker byte 0xfe (-2) is a Ribbon filter: expected 0xff (-1), FastLocalBloom (blockbloom reads only Bloom)");
  if (t[0] >= 1 && t[0] <= 127)
    fail(len,
         "marker byte " + std::to_string(t[0]) +
             " is the legacy Bloom filter's probe count (format_version < 5): expected 0xff (-1), FastLocalBloom");
  if (t[0] != kNewBloomMarker)
    fail(len,
         "marker byte " + std::to_string(t[0]) + " is not a Bloom implementation RocksDB defines: expected 0xff (-1)");
  if (t[1] != kFastLocalBloom)
    fail(len + 1, "sub-implementation " + std::to_string(t[1]) + " is unknown: expected 0 (FastLocalBloom)");
  if ((t[2] >> 5) != 0)
    fail(len + 2,
         "block size 2^" + std::to_string((t[2] >> 5) + 6) + " bytes: expected 64-byte cache lines (top 3 bits 0)");
  const uint32_t k = t[2] & 31u;
  const uint32_t max_k = Traits(Layout::kBlocked512).max_k;
  if (k < 1 || k > kMaxRocksdbProbes)
    fail(len + 2, "probe count " + std::to_string(k) + ": expected 1.." + std::to_string(kMaxRocksdbProbes));
  if (k > max_k)
    fail(len + 2, "probe count " + std::to_string(k) + " is beyond blocked512's k = 1.." + std::to_string(max_k));
  if (t[3] != 0 || t[4] != 0)
    fail(len + 3, "reserved bytes " + std::to_string(t[3]) + " " + std::to_string(t[4]) + ": expected 0 0");
  if (len % kRocksdbLineBytes != 0)
    fail(len - len % kRocksdbLineBytes,
         "bitset of " + std::to_string(len) + " bytes: expected a multiple of 64 (whole cache lines)");
  Filter f = Filter::WithBlocks(Layout::kBlocked512, len / kRocksdbLineBytes, k, HashKind::kRocksdb, 0);
  std::memcpy(detail::FilterAccess::MutableData(f), block.data(), len);
  return f;
}

}  // namespace

Filter ImportRocksdb(std::span<const uint8_t> block, std::string_view name) {
  return ImportBlockAt(block, std::string(name), 0);
}

bool IsRocksdbCompatible(const Filter& f, std::string* why) {
  std::string diff;
  if (f.layout() != Layout::kBlocked512) {
    diff = "layout is " + std::string(LayoutName(f.layout())) + ": expected blocked512";
  } else if (f.hash_kind() != HashKind::kRocksdb) {
    diff = "hash is " + std::string(HashName(f.hash_kind())) + ": expected rocksdb";
  } else if (f.seed() != 0) {
    diff = "seed is " + std::to_string(f.seed()) + ": expected 0";
  } else if (f.num_blocks() * kRocksdbLineBytes + kRocksdbTrailerBytes > 0xffffffffULL) {
    diff = "bitset of " + std::to_string(f.num_blocks() * kRocksdbLineBytes) +
           " bytes: expected less than 2^32 with its trailer (RocksDB's filter length is a u32)";
  }
  if (why != nullptr) *why = diff;
  return diff.empty();
}

std::vector<uint8_t> ExportRocksdb(const Filter& filter) {
  std::string why;
  if (!IsRocksdbCompatible(filter, &why))
    throw std::invalid_argument("blockbloom: not a RocksDB FastLocalBloom filter: " + why);
  const uint64_t len = filter.num_blocks() * kRocksdbLineBytes;
  std::vector<uint8_t> out(filter.data(), filter.data() + len);
  const uint8_t trailer[kRocksdbTrailerBytes] = {kNewBloomMarker, kFastLocalBloom, static_cast<uint8_t>(filter.k()), 0,
                                                 0};
  out.insert(out.end(), std::begin(trailer), std::end(trailer));
  return out;
}

namespace {
// Bytes [offset, offset + n) of the input, which the caller has checked lie
// inside it: the SST reader touches only the footer, the metaindex block and
// the filter block, so a file is read in those three pieces, never whole.
using ReadAt = std::function<std::vector<uint8_t>(uint64_t offset, uint64_t n)>;

struct FilterLocation {
  BlockHandle block;
  uint8_t checksum_type;
  std::vector<uint8_t> trailer;  // compression type byte, then the checksum (u32 LE)
};

// The full filter's handle, checked to lie inside the file with its trailer.
FilterLocation FindFilterBlock(uint64_t size, const ReadAt& read, const std::string& name) {
  if (size < kFooterBytes)
    throw FormatError(name, size,
                      "RocksDB SST footer: " + std::to_string(size) +
                          " bytes: expected at least the 53-byte footer of a block-based table");
  const uint64_t foot = size - kFooterBytes;
  const std::vector<uint8_t> footer_bytes = read(foot, kFooterBytes);
  const uint8_t* tail = footer_bytes.data() + kFooterBytes;  // one past the file's last byte
  Cursor footer(footer_bytes, foot, foot + 1, foot + 41, name, "footer");
  const uint64_t magic = LoadLE(tail - 8, 8);
  if (magic != kBlockBasedMagic) {
    std::string what = "is not a RocksDB table's";
    if (magic == kLegacyBlockBasedMagic) what = "is a legacy (format_version 0, LevelDB-style) block-based table's";
    if (magic == kPlainTableMagic || magic == kLegacyPlainTableMagic) what = "is a plain table's (no full filter)";
    if (magic == kCuckooTableMagic) what = "is a cuckoo table's (no Bloom filter)";
    footer.Fail(size - 8,
                "magic " + Hex(magic) + " " + what + ": expected the block-based table magic " + Hex(kBlockBasedMagic));
  }
  const uint32_t version = static_cast<uint32_t>(LoadLE(tail - 12, 4));
  if (version < 1 || version > kMaxFormatVersion)
    footer.Fail(size - 12, "format_version " + std::to_string(version) + ": expected 1.." +
                               std::to_string(kMaxFormatVersion) + " (the footer layout blockbloom reads)");
  const uint8_t checksum_type = footer_bytes[0];
  if (checksum_type > kXxh3Checksum)
    footer.Fail(foot, "checksum type " + std::to_string(checksum_type) +
                          ": expected 0..4 (none, CRC32c, xxHash, "
                          "xxHash64, XXH3)");
  const uint64_t meta_at = footer.pos();
  BlockHandle meta{footer.Varint(kMaxVarint64Bytes, "metaindex offset"),
                   footer.Varint(kMaxVarint64Bytes, "metaindex size")};
  CheckHandle(footer, meta_at, meta, size, "metaindex");

  // Metaindex block (table/block_based/block.h): entries (varint32 shared,
  // varint32 non-shared, varint32 value length, key suffix, value), then
  // restart offsets (u32 each) and their count (u32). Keys are sorted, so a
  // full filter, a partitioned one and others are all visited. Read with the
  // trailer's compression type byte.
  const std::vector<uint8_t> meta_bytes = read(meta.offset, meta.size + 1);
  Cursor m(meta_bytes, meta.offset, meta.offset, meta.offset + meta.size, name, "metaindex block");
  if (meta_bytes[meta.size] != 0)
    m.Fail(meta.offset + meta.size,
           "compression type " + std::to_string(meta_bytes[meta.size]) + ": expected 0 (uncompressed)");
  if (meta.size < 4) m.Fail(meta.offset, std::to_string(meta.size) + " bytes: expected at least the restart count");
  const uint64_t restarts = static_cast<uint32_t>(LoadLE(meta_bytes.data() + meta.size - 4, 4));
  if (restarts > (meta.size - 4) / 4)
    m.Fail(meta.offset + meta.size - 4,
           std::to_string(restarts) + " restart points do not fit in the " + std::to_string(meta.size) + "-byte block");
  const uint64_t entries_end = meta.offset + meta.size - 4 - 4 * restarts;
  Cursor e(meta_bytes, meta.offset, meta.offset, entries_end, name, "metaindex block");
  std::string key, others;
  std::optional<BlockHandle> filter;
  uint64_t filter_at = 0;
  while (!e.done()) {
    const uint64_t at = e.pos();
    const uint64_t shared = e.Varint(5, "shared key length");
    const uint64_t non_shared = e.Varint(5, "key length");
    const uint64_t value_len = e.Varint(5, "value length");
    if (shared > key.size())
      e.Fail(at, "entry shares " + std::to_string(shared) + " key bytes: the previous key has " +
                     std::to_string(key.size()));
    key.resize(shared);
    key += e.Bytes(non_shared, "key");
    const uint64_t value_at = e.pos();
    const std::string_view value = e.Bytes(value_len, "value");
    if (key == kRocksdbFullFilterKey) {
      Cursor v(meta_bytes, meta.offset, value_at, value_at + value.size(), name, "metaindex block");
      filter = BlockHandle{v.Varint(kMaxVarint64Bytes, "filter offset"), v.Varint(kMaxVarint64Bytes, "filter size")};
      filter_at = value_at;
      CheckHandle(v, value_at, *filter, size, "filter block");
    } else if (key.starts_with("partitionedfilter.") || key.starts_with("fullfilter.") || key.starts_with("filter.")) {
      if (!others.empty()) others += ", ";
      others += key;
    }
  }
  if (!filter) {
    if (others.find("partitionedfilter.") != std::string::npos)
      e.Fail(meta.offset, "the filter is partitioned (" + others + "): expected a full filter, " +
                              std::string(kRocksdbFullFilterKey) + " (write the SST without partition_filters)");
    e.Fail(meta.offset, (others.empty() ? std::string("no filter") : "filters " + others) + ": expected an entry " +
                            std::string(kRocksdbFullFilterKey) + " (NewBloomFilterPolicy, whole-key filtering)");
  }
  // Filter blocks are written uncompressed; a nonzero type is a corrupt or
  // foreign file. The checksum is verified after the filter's own checks
  // (VerifyChecksum), so that a foreign filter is named as such.
  std::vector<uint8_t> trailer = read(filter->offset + filter->size, kBlockTrailerBytes);
  if (trailer[0] != 0)
    throw FormatError(name, filter->offset + filter->size,
                      "RocksDB SST filter block (handle at byte " + std::to_string(filter_at) + "): compression type " +
                          std::to_string(trailer[0]) + ": expected 0 (uncompressed)");
  return {*filter, checksum_type, std::move(trailer)};
}

// The block's checksum against its trailer, by the footer's type. xxHash32
// (type 2, not written by default since RocksDB 6.27) is not verified.
void VerifyChecksum(const FilterLocation& at, std::span<const uint8_t> block, const std::string& name) {
  const uint8_t compression = at.trailer[0];
  uint32_t want = 0;
  switch (at.checksum_type) {
    case kCrc32c: {
      const uint32_t crc = Crc32c(block, compression);
      want = ((crc >> 15) | (crc << 17)) + kCrc32cMaskDelta;
      break;
    }
    case kXxHash64: {
      std::vector<uint8_t> with_type(block.begin(), block.end());
      with_type.push_back(compression);
      want = static_cast<uint32_t>(
          HashBytes({reinterpret_cast<const char*>(with_type.data()), with_type.size()}, HashKind::kXxh64, 0));
      break;
    }
    case kXxh3Checksum:
      want = static_cast<uint32_t>(
                 HashBytes({reinterpret_cast<const char*>(block.data()), block.size()}, HashKind::kXxh3, 0)) ^
             compression * kLastBytePrime;
      break;
    default:
      return;  // kNoChecksum, kXxHash32
  }
  const uint32_t have = static_cast<uint32_t>(LoadLE(at.trailer.data() + 1, 4));
  if (have != want)
    throw FormatError(name, at.block.offset + at.block.size + 1,
                      "RocksDB SST filter block: checksum " + Hex(have).substr(10) + " (type " +
                          std::to_string(at.checksum_type) + ") does not match its bytes, which give " +
                          Hex(want).substr(10) + ": the block is corrupt");
}

ReadAt SpanReader(std::span<const uint8_t> file) {
  return [file](uint64_t offset, uint64_t n) {
    const auto first = file.begin() + static_cast<ptrdiff_t>(offset);
    return std::vector<uint8_t>(first, first + static_cast<ptrdiff_t>(n));
  };
}

// The filter of the block at `at`, `block` its bytes: the filter's checks, then the checksum.
Filter ImportChecked(const FilterLocation& at, std::span<const uint8_t> block, const std::string& name) {
  Filter f = ImportBlockAt(block, name, at.block.offset);
  VerifyChecksum(at, block, name);
  return f;
}
}  // namespace

std::vector<uint8_t> RocksdbSstFilterBlock(std::span<const uint8_t> file, std::string_view name) {
  const FilterLocation at = FindFilterBlock(file.size(), SpanReader(file), std::string(name));
  std::vector<uint8_t> block = SpanReader(file)(at.block.offset, at.block.size);
  VerifyChecksum(at, block, std::string(name));
  return block;
}

Filter ImportRocksdbSst(std::span<const uint8_t> file, std::string_view name) {
  const FilterLocation at = FindFilterBlock(file.size(), SpanReader(file), std::string(name));
  return ImportChecked(at, file.subspan(at.block.offset, at.block.size), std::string(name));
}

Filter ReadRocksdbSst(const std::string& path) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) throw std::runtime_error("blockbloom: cannot open " + path + ": " + std::strerror(errno));
  const std::streamoff end = in.tellg();
  if (end < 0) throw std::runtime_error("blockbloom: cannot read " + path + ": not a seekable file");
  const ReadAt read = [&](uint64_t offset, uint64_t n) {
    std::vector<uint8_t> out(n);
    in.seekg(static_cast<std::streamoff>(offset));
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(n));
    if (!in)
      throw std::runtime_error("blockbloom: cannot read " + std::to_string(n) + " bytes at byte " +
                               std::to_string(offset) + " of " + path + ": " + std::strerror(errno));
    return out;
  };
  const FilterLocation at = FindFilterBlock(static_cast<uint64_t>(end), read, path);
  return ImportChecked(at, read(at.block.offset, at.block.size), path);
}

}  // namespace blockbloom
