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
#include <string>
#include <tuple>
#include <utility>

#include "engine/src/filter_access.h"
#include "engine/src/hash_inline.h"

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

uint64_t LoadLE(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
void StoreLE(uint8_t* p, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}

std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// XXH3-64 (seed 0) of header[0, 56) followed by the payload: one streaming
// pass, so neither is copied.
uint64_t Checksum(const uint8_t* header, const uint8_t* payload, uint64_t payload_bytes) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, header, kOffChecksum);
  XXH3_64bits_update(&state, payload, payload_bytes);
  return XXH3_64bits_digest(&state);
}


std::array<uint8_t, kFormatHeaderBytes> EncodeHeader(const FilterView& f) {
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
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) SysFail("cannot open", path);
    struct stat st;
    if (::fstat(fd, &st) != 0) {
      const int e = errno;
      ::close(fd);
      errno = e;
      SysFail("cannot stat", path);
    }
    if (!S_ISREG(st.st_mode)) {
      ::close(fd);
      throw std::runtime_error("blockbloom: " + path + ": not a regular file");
    }
    len_ = static_cast<size_t>(st.st_size);
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

FormatError::FormatError(const std::string& name, uint64_t offset, const std::string& problem)
    : std::runtime_error("blockbloom: " + name + ": byte " + std::to_string(offset) + ": " + problem),
      offset_(offset) {}

// ---- Validation -----------------------------------------------------------------
// Checks run in file order, so the error names the first bad byte; nothing is
// allocated until every check has passed, and every size is bounded by the
// file's own length before it is trusted.
FilterHeader ValidateFilterBytes(std::span<const uint8_t> bytes, std::string_view name) {
  const std::string nm(name);
  auto fail = [&](uint64_t offset, const std::string& problem) -> void { throw FormatError(nm, offset, problem); };
  const uint8_t* p = bytes.data();
  if (bytes.size() < kFormatHeaderBytes)
    fail(bytes.size(), "file is truncated: " + std::to_string(bytes.size()) + " bytes: expected at least the " +
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
  if (hash_byte > static_cast<uint8_t>(HashKind::kXxh64))
    fail(kOffHash, "hash " + std::to_string(hash_byte) + " is unknown: expected 0 (xxh3) or 1 (xxh64)");
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
  if (bytes.size() < end)
    fail(bytes.size(), "file is truncated: " + std::to_string(bytes.size()) + " bytes: expected " +
                           std::to_string(end) + " (64-byte header + " + std::to_string(payload) + "-byte payload)");
  if (bytes.size() > end)
    fail(end, std::to_string(bytes.size() - end) + " unexpected bytes after the payload: expected the file to end at byte " +
                  std::to_string(end));
  const uint64_t stored = LoadLE(p + kOffChecksum, 8);
  const uint64_t actual = Checksum(p, p + kFormatHeaderBytes, payload);
  if (stored != actual)
    fail(kOffChecksum, "checksum mismatch: the file says " + Hex(stored) + ", header and payload hash to " +
                           Hex(actual) + ": expected them equal (the file is corrupt)");
  // A Filter promises zero bits past bit_count(); a file with a valid checksum
  // may still break that if it was crafted.
  const uint64_t bits = LayoutBits(layout, blocks);
  const uint8_t* pay = p + kFormatHeaderBytes;
  if (bits % 8 != 0 && (pay[bits / 8] >> (bits % 8)) != 0)
    fail(kFormatHeaderBytes + bits / 8, "bits past the filter's " + std::to_string(bits) + " bits are set: expected 0");
  for (uint64_t i = (bits + 7) / 8; i < payload; ++i)
    if (pay[i] != 0) fail(kFormatHeaderBytes + i, "padding past the filter's " + std::to_string(bits) + " bits is not 0: expected 0");
  return FilterHeader{layout, static_cast<HashKind>(hash_byte), static_cast<uint32_t>(k), blocks,
                      LoadLE(p + kOffSeed, 8), LoadLE(p + kOffInserted, 8), payload};
}

// ---- Buffers -----------------------------------------------------------------------

std::vector<uint8_t> SerializeFilter(const FilterView& filter) {
  const auto header = EncodeHeader(filter);
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
  // The temporary file lives beside the target so that rename() stays within
  // one file system and is atomic.
  std::string tmp = path + ".tmp.XXXXXX";
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) SysFail("cannot create a temporary file beside it", path);
  auto fail = [&](const std::string& what) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    errno = e;
    SysFail(what, path);
  };
  // mkstemp creates 0600; filters are meant to be shared.
  if (::fchmod(fd, 0644) != 0) fail("cannot set permissions of the temporary file");
  for (std::span<const uint8_t> part : parts) {
    const uint8_t* q = part.data();
    size_t left = part.size();
    while (left > 0) {
      const ssize_t w = ::write(fd, q, left);
      if (w < 0) {
        if (errno == EINTR) continue;
        fail("cannot write the temporary file");
      }
      q += w;
      left -= static_cast<size_t>(w);
    }
  }
  if (::fsync(fd) != 0) fail("cannot fsync the temporary file");
  if (::close(fd) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    SysFail("cannot close the temporary file", path);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = errno;
    ::unlink(tmp.c_str());
    errno = e;
    SysFail("cannot rename the temporary file over it", path);
  }
  // Make the rename itself durable.
  const size_t slash = path.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);  // best effort: some file systems refuse fsync on directories
    ::close(dfd);
  }
}

void SaveFilter(const FilterView& filter, const std::string& path) {
  const auto header = EncodeHeader(filter);
  const std::span<const uint8_t> parts[] = {{header.data(), header.size()}, {filter.data(), filter.byte_size()}};
  WriteFileAtomic(path, parts);
}

Filter LoadFilter(const std::string& path) {
  const MappedFile file(path);
  return DeserializeFilter(file.bytes(), path);
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
  static_cast<FilterView&>(m) = detail::FilterAccess::View(h.layout, h.k, h.num_blocks, h.hash, h.seed, h.inserted,
                                                          file.bytes().data() + kFormatHeaderBytes);
  m.header_ = h;
  std::tie(m.map_, m.map_len_) = file.Release();
  return m;
}

MappedFilter::MappedFilter(MappedFilter&& o) noexcept
    : FilterView(static_cast<const FilterView&>(o)),
      map_(std::exchange(o.map_, nullptr)),
      map_len_(std::exchange(o.map_len_, 0)),
      header_(o.header_) {
  static_cast<FilterView&>(o) = FilterView();
}

MappedFilter& MappedFilter::operator=(MappedFilter&& o) noexcept {
  if (this != &o) {
    Unmap();
    static_cast<FilterView&>(*this) = static_cast<const FilterView&>(o);
    map_ = std::exchange(o.map_, nullptr);
    map_len_ = std::exchange(o.map_len_, 0);
    header_ = o.header_;
    static_cast<FilterView&>(o) = FilterView();
  }
  return *this;
}

MappedFilter::~MappedFilter() { Unmap(); }

void MappedFilter::Unmap() noexcept {
  if (map_ != nullptr) ::munmap(map_, map_len_);
  map_ = nullptr;
}

}  // namespace blockbloom
