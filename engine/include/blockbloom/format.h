// SPDX-License-Identifier: Apache-2.0
// The blockbloom filter file: a durable, portable, memory-mappable format.
//
//   blockbloom::SaveFilter(filter, "urls.bbf");          // atomic: temp file, fsync, rename
//   blockbloom::Filter f = blockbloom::LoadFilter("urls.bbf");  // validates everything
//   auto m = blockbloom::MappedFilter::Open("urls.bbf");  // mmap, no copy; a FilterView
//   bool maybe = v.MayContain("https://example.com/");
//
// Layout of a file, version 1 (all integers little-endian):
//
//   offset size  field
//        0    8  magic "BBLOOMF1" (kFormatMagic)
//        8    4  format version (kFormatVersion = 1)
//       12    1  layout (blockbloom::Layout value: 0 blocked512 .. 4 classic)
//       13    1  hash (blockbloom::HashKind value: 0 xxh3, 1 xxh64, 2 mulx, 3 rocksdb, 4 aes, 5 foldmul)
//       14    2  reserved, 0
//       16    4  k, bits per key
//       20    4  reserved, 0
//       24    8  number of blocks (classic: bits m)
//       32    8  hash seed
//       40    8  number of keys inserted
//       48    8  payload bytes (= kernels::PayloadBytes(layout, blocks), a multiple of 64)
//       56    8  checksum: XXH3-64 (seed 0) of bytes [0, 56) followed by the payload
//       64    .  payload: Filter::data(), exactly `payload bytes` long; nothing after it
//
// The 64-byte header puts the payload on a 64-byte (cache-line) boundary of the
// file, so a page-aligned mapping of the file serves the kernels directly
// (MappedFilter). The payload holds the filter's words in little-endian order,
// which is the in-memory order on every target blockbloom supports (x86-64,
// AArch64): a file saved on one target answers identically on any other.
//
// Any change to the layout above, or to the bit layout of any filter
// (kernels/<layout>-inl.h, kernels/common.h), needs a new kFormatVersion and regenerated golden files
// (tests/golden/, see tests/format_test.cc).
#ifndef BLOCKBLOOM_FORMAT_H_
#define BLOCKBLOOM_FORMAT_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/hash.h"
#include "blockbloom/layout.h"
#include "blockbloom/view.h"

namespace blockbloom {

inline constexpr char kFormatMagic[8] = {'B', 'B', 'L', 'O', 'O', 'M', 'F', '1'};
inline constexpr uint32_t kFormatVersion = 1;
// Header size: the payload starts here, on a cache-line boundary.
inline constexpr size_t kFormatHeaderBytes = 64;

// A file (or buffer) that is not a valid filter: what is wrong and where.
// what() reads "blockbloom: NAME: byte OFFSET: PROBLEM: expected WHAT".
class FormatError : public std::runtime_error {
 public:
  FormatError(const std::string& name, uint64_t offset, const std::string& problem);
  // Byte offset in the file of the first byte found wrong (for a truncated
  // file: its size, where the missing bytes would start).
  uint64_t offset() const { return offset_; }

 private:
  uint64_t offset_;
};

// Everything the header says about a filter.
struct FilterHeader {
  Layout layout;
  HashKind hash;
  uint32_t k;
  uint64_t num_blocks;  // classic: bits
  uint64_t seed;
  uint64_t inserted;
  uint64_t payload_bytes;
};

// ---- Whole files ------------------------------------------------------------
// Writes `filter` to `path` atomically: the bytes go to a temporary file in the
// same directory, which is fsynced and renamed over `path` (then the directory
// is fsynced). A crash or error never leaves a partial file under `path`, and a
// MappedFilter open on the old file keeps answering from it (rename replaces
// the name, not the mapped inode).
//
// What `path` may be (the same for WriteFileAtomic and every CLI output):
//  - a new name, or an existing regular file: replaced atomically; an existing
//    file keeps its mode (and, when run as root, its owner and group); a new
//    file gets 0666 less the umask. The temporary file is created with that
//    mode from the start.
//  - a symbolic link: followed. The link's final target (a regular file) is
//    replaced atomically, beside the target, and the link stays a link. A
//    dangling link is refused.
//  - a directory, FIFO, socket or device: refused before anything is written,
//    with one line naming what it is ("blockbloom: out: is a FIFO: expected a
//    regular file or a new name ..."). Nothing is ever written *into* a file.
//  - a path with a NUL byte: refused with std::invalid_argument (the system
//    would read only the part before it). LoadFilter and MappedFilter::Open
//    refuse it too.
// Temporary files are named "<target>.tmp.<pid>.<6 characters>". A process
// killed while writing may leave one (SIGKILL; the CLI removes its own on
// every catchable terminating signal); the next write to the same target
// removes those whose writer process is dead (kill(pid, 0) fails with ESRCH),
// whatever their timestamp. RemovePendingTempFiles() removes this process's
// own, from a signal handler. Past the file size limit (ulimit -f) the write
// fails with EFBIG and a message, the temporary file removed, in a process
// that ignores SIGXFSZ (the CLI and Python do); left at its default, SIGXFSZ
// kills the process first.
// Throws std::runtime_error naming the path and the failing step, and
// std::invalid_argument, writing nothing, for the empty filter (default-
// constructed or moved from): the format has no file of 0 blocks.
void SaveFilter(const FilterView& filter, const std::string& path);

// Reads and validates the whole file (size, magic, version, layout, hash, k,
// blocks, payload size, checksum, zero padding) before building the filter.
// Only a regular file is read: a FIFO, socket, device or directory is refused
// at once (opened with O_NONBLOCK and checked before any read), never waited
// on. The file is read with pread(), not mapped, into the new filter's memory
// and validated there: a file truncated or rewritten while it is read fails
// with a FormatError, never a signal.
// Throws FormatError for a bad file, std::runtime_error if it cannot be read
// (or its payload cannot be allocated: the message says how many bytes).
Filter LoadFilter(const std::string& path);
// As above, then moves the new filter into `*into`; on any error `*into` is
// left exactly as it was.
void LoadFilter(const std::string& path, Filter* into);

// ---- Buffers (the same format in memory) ---------------------------------------
// Throws std::invalid_argument for the empty filter, as SaveFilter.
std::vector<uint8_t> SerializeFilter(const FilterView& filter);
// `name` only labels error messages.
Filter DeserializeFilter(std::span<const uint8_t> bytes, std::string_view name = "<buffer>");
// Validates `bytes` as a whole file (everything DeserializeFilter checks) and
// returns its header, without copying the payload.
FilterHeader ValidateFilterBytes(std::span<const uint8_t> bytes, std::string_view name = "<buffer>");

// Writes `parts` one after another to `path` with the same atomic protocol as
// SaveFilter (temporary file, fsync, rename) and the same rules for `path`.
void WriteFileAtomic(const std::string& path, std::span<const std::span<const uint8_t>> parts);

// Unlinks the temporary files this process's SaveFilter / WriteFileAtomic calls
// are writing at this moment. Async-signal-safe: call it from the handler of
// a terminating signal (SIGINT, SIGTERM, SIGQUIT, ...), then let the signal
// take its course.
void RemovePendingTempFiles() noexcept;

// ---- A mapped file ---------------------------------------------------------------
// A filter file mapped read-only and queried in place (no copy, no heap
// payload): a FilterView (view.h) that owns its mapping. Opening costs one
// validation pass over the file (the checksum); pages are shared with every
// other process mapping the same file. Answers are those of the Filter the
// file was saved from, through the same kernels.
//
// The mapping is of the file as it was opened: a file atomically replaced
// (SaveFilter renames) keeps answering from the old inode. A file truncated
// in place under a mapping makes later reads of the lost pages raise SIGBUS,
// as with any mmap; write filter files only through SaveFilter, or read them
// with LoadFilter (a validated heap copy) when other writers may truncate.
//
// Move-only; a moved-from MappedFilter is the empty filter (answers false).
class MappedFilter : public FilterView {
 public:
  // Maps and validates `path` (as LoadFilter: only a regular file, never
  // waited on). Throws FormatError / std::runtime_error.
  static MappedFilter Open(const std::string& path);

  MappedFilter() noexcept = default;
  MappedFilter(MappedFilter&& other) noexcept;
  MappedFilter& operator=(MappedFilter&& other) noexcept;
  MappedFilter(const MappedFilter&) = delete;
  MappedFilter& operator=(const MappedFilter&) = delete;
  ~MappedFilter();

  // Everything the file's header says.
  const FilterHeader& header() const { return header_; }
  // A heap copy as an ordinary, mutable Filter.
  Filter ToFilter() const { return Filter::CopyOf(*this); }

 private:
  void Unmap() noexcept;

  void* map_ = nullptr;
  size_t map_len_ = 0;
  FilterHeader header_{};
};

}  // namespace blockbloom

#endif  // BLOCKBLOOM_FORMAT_H_
