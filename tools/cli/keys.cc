// SPDX-License-Identifier: Apache-2.0
#include "tools/cli/keys.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

#include "engine/src/path.h"

namespace blockbloom::cli {
namespace {

constexpr size_t kReadChunk = size_t{1} << 20;

[[noreturn]] void Fail(const std::string& msg) { throw std::runtime_error("blockbloom: " + msg); }

bool strip_cr = false;

}  // namespace

void SetStripCr(bool strip) { strip_cr = strip; }

std::string ReadInput(const std::optional<std::string>& path) {
  const bool use_stdin = !path || *path == "-";
  const std::string label = use_stdin ? "<stdin>" : *path;
  uint64_t size = 0;
  const int fd = use_stdin ? 0 : detail::OpenRegularFile(*path, &size);
  struct Closer {
    int fd;
    bool own;
    ~Closer() {
      if (own) ::close(fd);
    }
  } closer{fd, !use_stdin};
  std::string data;
  try {
    // A regular file: read straight into a string of its size; then (and for
    // standard input) in chunks until end of file, for what the size missed.
    data.resize(static_cast<size_t>(size));
    data.resize(static_cast<size_t>(use_stdin ? 0 : detail::ReadFull(fd, data.data(), size, 0, label)));
    std::string buf(use_stdin ? kReadChunk : 4096, '\0');
    for (;;) {
      // pread for a file (ReadFull did not move the offset), read for stdin.
      const ssize_t r = use_stdin ? ::read(fd, buf.data(), buf.size())
                                  : ::pread(fd, buf.data(), buf.size(), static_cast<off_t>(data.size()));
      if (r < 0) {
        if (errno == EINTR) continue;
        Fail(label + ": cannot read: " + std::strerror(errno));
      }
      if (r == 0) break;
      data.append(buf.data(), static_cast<size_t>(r));
    }
  } catch (const std::bad_alloc&) {
    Fail(label + ": out of memory: cannot hold " +
         std::to_string(std::max<uint64_t>(size, data.size() + kReadChunk)) + " bytes of keys");
  }
  return data;
}

KeySplitter::KeySplitter(std::string_view data, size_t width, const std::string& label)
    : data_(data), width_(width) {
  if (width_ > 0) {
    if (data_.size() % width_ != 0)
      Fail(label + ": byte " + std::to_string(data_.size() - data_.size() % width_) + ": last record has " +
           std::to_string(data_.size() % width_) + " bytes: expected whole records of --key-width " +
           std::to_string(width_) + " bytes");
    count_ = data_.size() / width_;
  } else {
    // One pass: the keys, and those whose line ends in '\r' before its '\n' (or
    // before the end of an unterminated last line).
    for (size_t pos = 0; pos < data_.size();) {
      const size_t nl = data_.find('\n', pos);
      const size_t end = nl == std::string_view::npos ? data_.size() : nl;
      ++count_;
      cr_lines_ += end > pos && data_[end - 1] == '\r';
      pos = end + 1;
    }
    strip_cr_ = strip_cr;
    if (cr_lines_ > 0 && !strip_cr_)
      std::fprintf(stderr,
                   "blockbloom: warning: %s: %zu of %zu keys end in '\\r' (CRLF line ends?): each is hashed with "
                   "its '\\r', so it differs from the same key without one; --strip-cr drops it\n",
                   label.c_str(), cr_lines_, count_);
  }
}

}  // namespace blockbloom::cli
