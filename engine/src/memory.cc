// SPDX-License-Identifier: Apache-2.0
#include "engine/src/memory.h"

#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <new>

namespace blockbloom::detail {

LineMemory AllocateLines(uint64_t bytes) {
  LineMemory m;
  m.bytes = bytes;
  if (bytes >= kHugePageBytes) {
    // Over-map by one huge page, keep the 2 MiB aligned middle. Anonymous
    // pages are zero.
    const size_t len = bytes + kHugePageBytes;
    void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const uintptr_t base = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (base + kHugePageBytes - 1) & ~(kHugePageBytes - 1);
    if (aligned > base) munmap(p, aligned - base);
    const uintptr_t end = aligned + bytes;
    if (base + len > end) munmap(reinterpret_cast<void*>(end), base + len - end);
#ifdef MADV_HUGEPAGE
    madvise(reinterpret_cast<void*>(aligned), bytes, MADV_HUGEPAGE);  // advisory; failure is harmless
#endif
    m.data = reinterpret_cast<uint8_t*>(aligned);
    m.mapped = true;
  } else {
    m.data = static_cast<uint8_t*>(std::aligned_alloc(64, bytes));
    if (m.data == nullptr) throw std::bad_alloc();
    std::memset(m.data, 0, bytes);
  }
  return m;
}

void FreeLines(const LineMemory& m) {
  if (m.data == nullptr) return;
  if (m.mapped) {
    munmap(m.data, m.bytes);
  } else {
    std::free(m.data);
  }
}

}  // namespace blockbloom::detail
