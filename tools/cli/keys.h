// SPDX-License-Identifier: Apache-2.0
// Keys for the CLI's build and query: read from a file (a regular file only,
// never waited on) or standard input, then split in one of two ways:
//   - lines: split on '\n' only and never trimmed (a trailing '\r' or space is
//     part of the key; a final '\n' ends the last key, it does not start an
//     empty one; an empty line is an empty key). Lines ending in '\r' (a file
//     with CRLF line ends) are counted and, once per input, a warning on
//     stderr says how many; with --strip-cr that one '\r' is dropped instead;
//   - fixed-width binary records of W bytes (--key-width W): the input must be
//     whole records.
// Keys are hashed as their raw bytes, so an 8-byte record equals
// Filter::Insert(uint64_t) of its little-endian value.
#ifndef BLOCKBLOOM_TOOLS_KEYS_H_
#define BLOCKBLOOM_TOOLS_KEYS_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace blockbloom::cli {

// Keys per batch handed to the kernels: 64K string_views (1 MiB) plus their
// answers stay in L2 while the pipeline works through them.
inline constexpr size_t kBatchKeys = 1 << 16;
// The widest --key-width.
inline constexpr uint64_t kMaxKeyWidth = uint64_t{1} << 20;

// The whole of `path` ("-" or none: standard input). A named input must be a
// regular file (checked before any read: a FIFO is refused, not waited on);
// standard input may be anything. Throws std::runtime_error naming the input
// (and, when memory runs out, how many bytes it tried to hold).
std::string ReadInput(const std::optional<std::string>& path);

// --strip-cr for every command that reads keys: set by the argument parser
// (args.cc) from the command line (a process runs one command), read by each
// KeySplitter made afterwards.
void SetStripCr(bool strip);

// The keys of `data` as views into it. `width` 0: lines; else fixed records.
// Throws std::runtime_error naming `label` and the byte offset of an
// incomplete last record. Lines: counts those ending in '\r' and either drops
// that '\r' (SetStripCr(true)) or warns on stderr, naming `label` and the count.
class KeySplitter {
 public:
  KeySplitter(std::string_view data, size_t width, const std::string& label);
  size_t count() const { return count_; }
  size_t width() const { return width_; }
  // Lines that ended in '\r' in the input (0 for fixed-width records).
  size_t cr_lines() const { return cr_lines_; }

  // Calls fn(batch) with spans of at most `batch_keys` keys, in order.
  template <typename Fn>
  void ForEachBatch(Fn&& fn, size_t batch_keys = kBatchKeys) const {
    std::vector<std::string_view> batch;
    batch.reserve(batch_keys);
    size_t pos = 0;
    while (pos < data_.size()) {
      size_t len = width_;
      size_t next = pos + width_;
      if (width_ == 0) {
        const size_t nl = data_.find('\n', pos);
        len = (nl == std::string_view::npos ? data_.size() : nl) - pos;
        next = pos + len + 1;
        if (strip_cr_ && len > 0 && data_[pos + len - 1] == '\r') --len;
      }
      batch.push_back(data_.substr(pos, len));
      pos = next;
      if (batch.size() == batch_keys) {
        fn(std::span<const std::string_view>(batch));
        batch.clear();
      }
    }
    if (!batch.empty()) fn(std::span<const std::string_view>(batch));
  }

 private:
  std::string_view data_;
  size_t width_ = 0;
  size_t count_ = 0;
  size_t cr_lines_ = 0;
  bool strip_cr_ = false;
};

}  // namespace blockbloom::cli

#endif  // BLOCKBLOOM_TOOLS_KEYS_H_
