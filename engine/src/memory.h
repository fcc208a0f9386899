// SPDX-License-Identifier: Apache-2.0
// Cache-line memory for filter payloads (and for buffers that must behave like
// one, such as the benchmark's memory floor).
#ifndef BLOCKBLOOM_ENGINE_MEMORY_H_
#define BLOCKBLOOM_ENGINE_MEMORY_H_

#include <cstdint>

namespace blockbloom::detail {

// From this size on, a payload is mapped on its own, 2 MiB aligned, and offered
// to transparent huge pages: at DRAM sizes a 4 KiB page walk per probe would
// cost as much as the probe's own cache miss.
inline constexpr uint64_t kHugePageBytes = uint64_t{2} << 20;

struct LineMemory {
  uint8_t* data = nullptr;  // 64-byte aligned (2 MiB aligned when mapped)
  uint64_t bytes = 0;
  bool mapped = false;      // mmap (true) or aligned_alloc (false)
};

// `bytes` must be a positive multiple of 64. The memory is zeroed. Throws
// std::bad_alloc when the system refuses.
LineMemory AllocateLines(uint64_t bytes);
void FreeLines(const LineMemory& m);

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_MEMORY_H_
