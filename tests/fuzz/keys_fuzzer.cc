// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the CLI's key-file reader (tools/cli/keys.*), lines
// and fixed-width records, on arbitrary bytes. The first input byte picks the
// mode (0: lines; w > 0: records of w bytes) and the batch size; the rest is
// the key file, read back through ReadInput from a memfd (a regular file) so
// the file path is fuzzed too. Invariants (abort() when broken): the keys
// rebuild the input exactly, lines hold no '\n', records are w bytes, the
// count is the number of keys produced, batches are at most the batch size,
// and an incomplete last record is the only error, naming its byte offset.
// Lines are read with --strip-cr (SetStripCr: no warning on stderr per input):
// each key is its line less one final '\r', and cr_lines() counts those.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "tools/cli/keys.h"

namespace {

void Check(bool ok) {
  if (!ok) std::abort();
}

// The bytes, written to an anonymous regular file and read back by path.
std::string ThroughFile(std::string_view data) {
  const int fd = ::memfd_create("keys", MFD_CLOEXEC);
  Check(fd >= 0);
  size_t done = 0;
  while (done < data.size()) {
    const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
    Check(w > 0);
    done += static_cast<size_t>(w);
  }
  std::string read = blockbloom::cli::ReadInput("/proc/self/fd/" + std::to_string(fd));
  ::close(fd);
  return read;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* raw, size_t size) {
  if (size == 0) return 0;
  const size_t width = raw[0] & 0x3f;              // 0: lines; else 1..63-byte records
  const size_t batch = 1 + ((raw[0] >> 6) * 5);    // 1, 6, 11 or 16 keys per batch
  const std::string_view input(reinterpret_cast<const char*>(raw) + 1, size - 1);
  const std::string data = ThroughFile(input);
  Check(data == input);

  // The lines as --strip-cr reads them: each less one final '\r'.
  std::string stripped;
  size_t cr_lines = 0;
  for (size_t pos = 0; width == 0 && pos < data.size();) {
    const size_t nl = data.find('\n', pos);
    std::string_view line = std::string_view(data).substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (!line.empty() && line.back() == '\r') {
      line.remove_suffix(1);
      ++cr_lines;
    }
    stripped.append(line);
    stripped += '\n';
    pos = nl == std::string::npos ? data.size() : nl + 1;
  }
  blockbloom::cli::SetStripCr(true);
  try {
    const blockbloom::cli::KeySplitter keys(data, width, "fuzz");
    Check(width == 0 || data.size() % width == 0);
    std::string rebuilt;
    size_t count = 0;
    keys.ForEachBatch(
        [&](std::span<const std::string_view> b) {
          Check(!b.empty() && b.size() <= batch);
          for (std::string_view k : b) {
            // Views into the input, in order.
            Check(k.data() >= data.data() && k.data() + k.size() <= data.data() + data.size());
            if (width == 0) {
              Check(k.find('\n') == std::string_view::npos);
              rebuilt.append(k);
              rebuilt += '\n';
            } else {
              Check(k.size() == width);
              rebuilt.append(k);
            }
            ++count;
          }
        },
        batch);
    Check(count == keys.count());
    if (width == 0) {
      // A final '\n' ends the last key; without it the last key still counts.
      Check(rebuilt == stripped);
      Check(keys.cr_lines() == cr_lines);
    } else {
      Check(rebuilt == data);
    }
  } catch (const std::runtime_error& e) {
    Check(width > 0 && data.size() % width != 0);
    const std::string msg = e.what();
    Check(msg.find("byte " + std::to_string(data.size() - data.size() % width) + ": last record has") !=
          std::string::npos);
  }
  return 0;
}
