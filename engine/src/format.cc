// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/format.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "engine/src/bytes.h"
#include "engine/src/errors.h"
#include "engine/src/filter_access.h"
#include "engine/src/hash_inline.h"
#include "engine/src/path.h"

namespace blockbloom {

// The payload is written as the in-memory words; the format says little-endian.
static_assert(std::endian::native == std::endian::little,
              "blockbloom's file format stores the payload's words little-endian as in memory");

namespace {

// Header field offsets (see the table in format.h).
constexpr size_t kOffMagic = 0;
constexpr size_t kOffVersion = 8;
constexpr size_t kOffLayout = 12;
constexpr size_t kOffHash = 13;
constexpr size_t kOffReserved16 = 14;
constexpr size_t kOffK = 16;
constexpr size_t kOffReserved32 = 20;
constexpr size_t kOffBlocks = 24;
constexpr size_t kOffSeed = 32;
constexpr size_t kOffInserted = 40;
constexpr size_t kOffPayloadBytes = 48;
constexpr size_t kOffChecksum = 56;
static_assert(kOffChecksum + 8 == kFormatHeaderBytes);
static_assert(kFormatHeaderBytes % 64 == 0, "the payload must start on a cache line");

using detail::Hex;
using detail::LoadLE;
using detail::StoreLE;

// XXH3-64 (seed 0) of header[0, 56) followed by the payload: one streaming
// pass, so neither is copied.
uint64_t Checksum(const uint8_t* header, const uint8_t* payload, uint64_t payload_bytes) {
  return detail::HeaderBodyChecksum(header, kOffChecksum, payload, payload_bytes);
}


// The file format has no empty filter (a header of 0 blocks fails at byte 24),
// so the empty filter (default-constructed or moved from) is refused before
// anything is written: a save never produces a file that does not load.
std::array<uint8_t, kFormatHeaderBytes> EncodeHeader(const FilterView& f, const std::string& op) {
  if (f.empty())
    detail::Invalid(op +
                    ": the filter is empty (default-constructed or moved from, 0 blocks): expected a filter of at least "
                    "1 block (a filter file cannot hold the empty filter; assign a filter to it first)");
  std::array<uint8_t, kFormatHeaderBytes> h{};
  std::memcpy(h.data() + kOffMagic, kFormatMagic, sizeof kFormatMagic);
  StoreLE(h.data() + kOffVersion, kFormatVersion, 4);
  h[kOffLayout] = static_cast<uint8_t>(f.layout());
  h[kOffHash] = static_cast<uint8_t>(f.hash_kind());
  StoreLE(h.data() + kOffK, f.k(), 4);
  StoreLE(h.data() + kOffBlocks, f.num_blocks(), 8);
  StoreLE(h.data() + kOffSeed, f.seed(), 8);
  StoreLE(h.data() + kOffInserted, f.inserted(), 8);
  StoreLE(h.data() + kOffPayloadBytes, f.byte_size(), 8);
  StoreLE(h.data() + kOffChecksum, Checksum(h.data(), f.data(), f.byte_size()), 8);
  return h;
}

[[noreturn]] void SysFail(const std::string& what, const std::string& path) {
  throw std::runtime_error("blockbloom: " + path + ": " + what + ": " + std::strerror(errno));
}

// A whole file mapped read-only (an empty file is an empty span, unmapped).
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    uint64_t size = 0;
    const int fd = detail::OpenRegularFile(path, &size);  // never blocks; refuses FIFOs, devices, ...
    len_ = static_cast<size_t>(size);
    if (len_ > 0) {
      map_ = ::mmap(nullptr, len_, PROT_READ, MAP_SHARED, fd, 0);
      if (map_ == MAP_FAILED) {
        const int e = errno;
        ::close(fd);
        errno = e;
        map_ = nullptr;
        SysFail("cannot map", path);
      }
    }
    ::close(fd);  // the mapping keeps the file alive
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  ~MappedFile() {
    if (map_ != nullptr) ::munmap(map_, len_);
  }
  std::span<const uint8_t> bytes() const { return {static_cast<const uint8_t*>(map_), len_}; }
  // Hands the mapping over (the caller unmaps it).
  std::pair<void*, size_t> Release() { return {std::exchange(map_, nullptr), std::exchange(len_, 0)}; }

 private:
  void* map_ = nullptr;
  size_t len_ = 0;
};

}  // namespace

uint64_t detail::HeaderBodyChecksum(const uint8_t* header, size_t header_bytes, const uint8_t* body,
                                    uint64_t body_bytes) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header, header_bytes);
  XXH3_64bits_update(&state, body, body_bytes);
  return XXH3_64bits_digest(&state);
}

FormatError::FormatError(const std::string& name, uint64_t offset, const std::string& problem)
    : std::runtime_error("blockbloom: " + name + ": byte " + std::to_string(offset) + ": " + problem),
      offset_(offset) {}

// ---- Validation -----------------------------------------------------------------
namespace {

// The header checks, in file order, given the first min(size, 64) bytes of a
// file of `size` bytes: everything but the checksum and the padding.
FilterHeader ValidateHeader(const uint8_t* p, uint64_t size, const std::string& nm) {
  auto fail = [&](uint64_t offset, const std::string& problem) -> void { throw FormatError(nm, offset, problem); };
  if (size < kFormatHeaderBytes)
    fail(size, "file is truncated: " + std::to_string(size) + " bytes: expected at least the " +
                   std::to_string(kFormatHeaderBytes) + "-byte header");
  if (std::memcmp(p + kOffMagic, kFormatMagic, sizeof kFormatMagic) != 0)
    fail(kOffMagic, "magic is " + Hex(LoadLE(p, 8)) + ": expected \"BBLOOMF1\" (not a blockbloom filter file)");
  const uint64_t version = LoadLE(p + kOffVersion, 4);
  if (version != kFormatVersion)
    fail(kOffVersion, "format version " + std::to_string(version) + " is unknown: expected " +
                          std::to_string(kFormatVersion));
  const uint8_t layout_byte = p[kOffLayout];
  const auto layout = static_cast<Layout>(layout_byte);
  if (layout_byte >= std::size(kAllLayouts))
    fail(kOffLayout, "layout " + std::to_string(layout_byte) + " is unknown: expected 0.." +
                         std::to_string(std::size(kAllLayouts) - 1));
  const uint8_t hash_byte = p[kOffHash];
  if (hash_byte > static_cast<uint8_t>(kLastHashKind))
    fail(kOffHash, "hash " + std::to_string(hash_byte) + " is unknown: expected 0 (xxh3), 1 (xxh64), 2 (mulx) or 3 (rocksdb)");
  if (LoadLE(p + kOffReserved16, 2) != 0) fail(kOffReserved16, "reserved bytes are not 0: expected 0");
  const uint64_t k = LoadLE(p + kOffK, 4);
  if (k > LayoutMaxK(layout) || !LayoutAcceptsK(layout, static_cast<uint32_t>(k)))
    fail(kOffK, "k = " + std::to_string(k) + " is out of range for layout " + std::string(LayoutName(layout)) +
                    ": expected " + std::string(Traits(layout).k_text));
  if (LoadLE(p + kOffReserved32, 4) != 0) fail(kOffReserved32, "reserved bytes are not 0: expected 0");
  const uint64_t blocks = LoadLE(p + kOffBlocks, 8);
  if (blocks == 0 || blocks > Traits(layout).max_blocks)
    fail(kOffBlocks, "number of " + std::string(LayoutUnitName(layout)) + " = " + std::to_string(blocks) +
                         " is out of range for layout " + std::string(LayoutName(layout)) + ": expected 1.." +
                         std::to_string(Traits(layout).max_blocks));
  const uint64_t payload = LoadLE(p + kOffPayloadBytes, 8);
  const uint64_t want_payload = LayoutPayloadBytes(layout, blocks);
  if (payload != want_payload)
    fail(kOffPayloadBytes, "payload size " + std::to_string(payload) + " disagrees with layout " +
                               std::string(LayoutName(layout)) + " and " + std::to_string(blocks) +
                               " " + std::string(LayoutUnitName(layout)) + ": expected " +
                               std::to_string(want_payload));
  const uint64_t end = kFormatHeaderBytes + payload;
  if (size < end)
    fail(size, "file is truncated: " + std::to_string(size) + " bytes: expected " + std::to_string(end) +
                   " (64-byte header + " + std::to_string(payload) + "-byte payload)");
  if (size > end)
    fail(end, std::to_string(size - end) + " unexpected bytes after the payload: expected the file to end at byte " +
                  std::to_string(end));
  return FilterHeader{layout, static_cast<HashKind>(hash_byte), static_cast<uint32_t>(k), blocks,
                      LoadLE(p + kOffSeed, 8), LoadLE(p + kOffInserted, 8), payload};
}

// The checks that need the payload: the checksum, then zero padding.
void ValidatePayload(const uint8_t* header, const uint8_t* pay, const FilterHeader& h, const std::string& nm) {
  auto fail = [&](uint64_t offset, const std::string& problem) -> void { throw FormatError(nm, offset, problem); };
  const uint64_t stored = LoadLE(header + kOffChecksum, 8);
  const uint64_t actual = Checksum(header, pay, h.payload_bytes);
  if (stored != actual)
    fail(kOffChecksum, "checksum mismatch: the file says " + Hex(stored) + ", header and payload hash to " +
                           Hex(actual) + ": expected them equal (the file is corrupt)");
  // A Filter promises zero bits past bit_count(); a file with a valid checksum
  // may still break that if it was crafted.
  const uint64_t bits = LayoutBits(h.layout, h.num_blocks);
  if (bits % 8 != 0 && (pay[bits / 8] >> (bits % 8)) != 0)
    fail(kFormatHeaderBytes + bits / 8, "bits past the filter's " + std::to_string(bits) + " bits are set: expected 0");
  for (uint64_t i = (bits + 7) / 8; i < h.payload_bytes; ++i)
    if (pay[i] != 0) fail(kFormatHeaderBytes + i, "padding past the filter's " + std::to_string(bits) + " bits is not 0: expected 0");
}

}  // namespace

// Checks run in file order, so the error names the first bad byte; nothing is
// allocated until every check has passed, and every size is bounded by the
// file's own length before it is trusted.
FilterHeader ValidateFilterBytes(std::span<const uint8_t> bytes, std::string_view name) {
  const std::string nm(name);
  const FilterHeader h = ValidateHeader(bytes.data(), bytes.size(), nm);
  ValidatePayload(bytes.data(), bytes.data() + kFormatHeaderBytes, h, nm);
  return h;
}

// ---- Buffers -----------------------------------------------------------------------

std::vector<uint8_t> SerializeFilter(const FilterView& filter) {
  const auto header = EncodeHeader(filter, "SerializeFilter");
  std::vector<uint8_t> out(kFormatHeaderBytes + filter.byte_size());
  std::memcpy(out.data(), header.data(), kFormatHeaderBytes);
  std::memcpy(out.data() + kFormatHeaderBytes, filter.data(), filter.byte_size());
  return out;
}

Filter DeserializeFilter(std::span<const uint8_t> bytes, std::string_view name) {
  const FilterHeader h = ValidateFilterBytes(bytes, name);
  Filter f = Filter::WithBlocks(h.layout, h.num_blocks, h.k, h.hash, h.seed);
  std::memcpy(detail::FilterAccess::MutableData(f), bytes.data() + kFormatHeaderBytes, h.payload_bytes);
  detail::FilterAccess::SetInserted(f, h.inserted);
  return f;
}

// ---- Files ----------------------------------------------------------------------------

void WriteFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts) {
  detail::WriteFileAtomic(path, parts);
}

void RemovePendingTempFiles() noexcept { detail::RemovePendingTempFiles(); }

void SaveFilter(const FilterView& filter, const std::string& path) {
  const auto header = EncodeHeader(filter, path + ": SaveFilter");
  const std::span<const uint8_t> parts[] = {{header.data(), header.size()}, {filter.data(), filter.byte_size()}};
  WriteFileAtomic(path, parts);
}

// Reads with pread into the new filter's own memory and validates what it
// read: a file truncated or rewritten meanwhile gives a FormatError, never a
// signal (no mapping is involved), and the payload is copied once.
Filter LoadFilter(const std::string& path) {
  uint64_t size = 0;
  const int fd = detail::OpenRegularFile(path, &size);  // never blocks; refuses FIFOs, devices, ...
  const detail::ScopedFd closer(fd);
  uint8_t head[kFormatHeaderBytes] = {};
  const uint64_t want_head = std::min<uint64_t>(size, kFormatHeaderBytes);
  const uint64_t got_head = detail::ReadFull(fd, head, want_head, 0, path);
  if (got_head < want_head)
    throw FormatError(path, got_head, "file is truncated: it shrank to " + std::to_string(got_head) +
                                          " bytes while being read: expected " + std::to_string(size));
  const FilterHeader h = ValidateHeader(head, size, path);
  std::optional<Filter> f;
  try {
    f.emplace(Filter::WithBlocks(h.layout, h.num_blocks, h.k, h.hash, h.seed));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error("blockbloom: " + path + ": out of memory: cannot allocate " +
                             std::to_string(h.payload_bytes) + " bytes for the filter's payload");
  }
  uint8_t* payload = detail::FilterAccess::MutableData(*f);
  const uint64_t got = detail::ReadFull(fd, payload, h.payload_bytes, kFormatHeaderBytes, path);
  if (got < h.payload_bytes)
    throw FormatError(path, kFormatHeaderBytes + got,
                      "file is truncated: it shrank to " + std::to_string(kFormatHeaderBytes + got) +
                          " bytes while being read: expected " + std::to_string(size));
  ValidatePayload(head, payload, h, path);
  detail::FilterAccess::SetInserted(*f, h.inserted);
  return std::move(*f);
}

void LoadFilter(const std::string& path, Filter* into) {
  Filter loaded = LoadFilter(path);
  *into = std::move(loaded);  // noexcept: nothing can fail after validation
}

// ---- MappedFilter ---------------------------------------------------------------------

MappedFilter MappedFilter::Open(const std::string& path) {
  MappedFile file(path);
  const FilterHeader h = ValidateFilterBytes(file.bytes(), path);
  MappedFilter m;
  // mmap returns a page-aligned address; the payload sits at 64 bytes past it.
  m.FilterView::operator=(detail::FilterAccess::View(h.layout, h.k, h.num_blocks, h.hash, h.seed, h.inserted,
                                                     file.bytes().data() + kFormatHeaderBytes));
  m.header_ = h;
  std::tie(m.map_, m.map_len_) = file.Release();
  return m;
}

MappedFilter::MappedFilter(MappedFilter&& o) noexcept
    : FilterView(static_cast<const FilterView&>(o)),
      map_(std::exchange(o.map_, nullptr)),
      map_len_(std::exchange(o.map_len_, 0)),
      header_(o.header_) {
  o.FilterView::operator=(FilterView());
}

MappedFilter& MappedFilter::operator=(MappedFilter&& o) noexcept {
  if (this != &o) {
    Unmap();
    FilterView::operator=(o);
    map_ = std::exchange(o.map_, nullptr);
    map_len_ = std::exchange(o.map_len_, 0);
    header_ = o.header_;
    o.FilterView::operator=(FilterView());
  }
  return *this;
}

MappedFilter::~MappedFilter() { Unmap(); }

void MappedFilter::Unmap() noexcept {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  map_ = nullptr;
}

}  // namespace blockbloom
