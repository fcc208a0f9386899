// SPDX-License-Identifier: Apache-2.0
// libFuzzer target: the file paths of the format, on arbitrary bytes written
// to a memfd (a regular file) and opened by path: MappedFilter::Open (the mmap
// view), LoadFilter (pread into the filter) and DeserializeFilter (a buffer)
// must agree exactly: all reject with the same FormatError (message and byte
// offset), or all accept and answer every probe the same, batched and one by
// one, on a SIMD target that rotates with the input over every target this CPU
// runs (the build compiles every target in). Each input is also tried with its
// checksum recomputed, so the checks past it are reached. Broken invariants
// abort().
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "blockbloom/filter.h"
#include "blockbloom/format.h"
#include "blockbloom/layout.h"
#include "blockbloom/targets.h"
#include "engine/src/hash_inline.h"

namespace {

using blockbloom::FormatError;

constexpr size_t kProbes = 48;

void Check(bool ok) {
  if (!ok) std::abort();
}

struct Outcome {
  bool ok = false;
  std::string error;  // FormatError::what(), with the name part the same for all three
  uint64_t offset = 0;
};

template <typename Fn>
Outcome Try(Fn&& fn) {
  Outcome o;
  try {
    fn();
    o.ok = true;
  } catch (const FormatError& e) {
    o.error = e.what();
    o.offset = e.offset();
  }
  return o;
}

void Exercise(std::span<const uint8_t> bytes) {
  const int fd = ::memfd_create("view", MFD_CLOEXEC);
  Check(fd >= 0);
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    Check(w > 0);
    done += static_cast<size_t>(w);
  }
  const std::string path = "/proc/self/fd/" + std::to_string(fd);

  std::optional<blockbloom::MappedFilter> view;
  std::optional<blockbloom::Filter> loaded, buffered;
  const Outcome v = Try([&] { view.emplace(blockbloom::MappedFilter::Open(path)); });
  const Outcome l = Try([&] { loaded.emplace(blockbloom::LoadFilter(path)); });
  const Outcome b = Try([&] { buffered.emplace(blockbloom::DeserializeFilter(bytes, path)); });
  ::close(fd);
  Check(v.ok == l.ok && l.ok == b.ok);
  if (!v.ok) {
    Check(v.error == l.error && l.error == b.error);
    Check(v.offset == l.offset && l.offset == b.offset && v.offset <= bytes.size());
    return;
  }
  Check(*loaded == *buffered);
  Check(view->PopCount() == loaded->PopCount());
  Check(view->inserted() == loaded->inserted() && view->k() == loaded->k());
  Check(view->byte_size() == loaded->byte_size() &&
        std::memcmp(view->data(), loaded->data(), loaded->byte_size()) == 0);
  Check(view->ToFilter() == *loaded);
  uint64_t keys[kProbes];
  for (size_t i = 0; i < kProbes; ++i) keys[i] = i * 0x9E3779B97F4A7C15ULL + bytes.size();
  uint8_t from_view[kProbes], from_loaded[kProbes];
  const size_t hv = view->MayContainBatch(keys, from_view);
  const size_t hl = loaded->MayContainBatch(keys, from_loaded);
  Check(hv == hl && std::memcmp(from_view, from_loaded, kProbes) == 0);
  for (size_t i = 0; i < kProbes; ++i) Check((from_view[i] != 0) == view->MayContain(keys[i]));
}

std::vector<uint8_t> Resealed(std::span<const uint8_t> bytes) {
  std::vector<uint8_t> out(bytes.begin(), bytes.end());
  XXH3_state_t st;
  XXH3_64bits_reset(&st);
  XXH3_64bits_update(&st, out.data(), 56);
  XXH3_64bits_update(&st, out.data() + blockbloom::kFormatHeaderBytes, out.size() - blockbloom::kFormatHeaderBytes);
  const uint64_t c = XXH3_64bits_digest(&st);
  for (int i = 0; i < 8; ++i) out[56 + i] = static_cast<uint8_t>(c >> (8 * i));
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::vector<std::string> targets = [] {
    std::vector<std::string> t;
    for (const auto& info : blockbloom::CompiledTargets())
      if (info.supported) t.emplace_back(info.name);
    return t;
  }();
  blockbloom::PinTarget(targets[size % targets.size()]);
  const std::span<const uint8_t> bytes(data, size);
  Exercise(bytes);
  if (size >= blockbloom::kFormatHeaderBytes) Exercise(Resealed(bytes));
  return 0;
}
