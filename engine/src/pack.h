// SPDX-License-Identifier: Apache-2.0
// Answer bytes (one per key, 0 or 1, as the kernels write them) turned into
// the forms query engines pass between operators: a bitmap (one bit per key,
// LSB-first in uint64 words) and a selection vector (the indices of the hits).
// Shared by FilterView's bitmap and selection queries (view.cc) and the
// many-filter probe (many.cc).
#ifndef BLOCKBLOOM_ENGINE_PACK_H_
#define BLOCKBLOOM_ENGINE_PACK_H_

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace blockbloom::detail {

// Packing 8 answer bytes (each 0 or 1) into 8 bits is one multiply: byte i of
// x times byte 7 - i of 0x0102040810204080 (= 2^i) lands on bit i of the top
// byte, and no two products overlap.
inline uint64_t PackBytes8(const uint8_t* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return (x * 0x0102040810204080ULL) >> 56;
}

// The 64 answers buf[0, 64) as one word, answer i in bit i.
inline uint64_t PackWord(const uint8_t* buf) {
  uint64_t word = 0;
  for (size_t b = 0; b < 8; ++b) word |= PackBytes8(buf + b * 8) << (8 * b);
  return word;
}

// out[w] = PackWord(buf + 64 w) for the ceil(len / 64) words of len answers;
// buf[len, ceil(len / 64) * 64) must be readable and 0 (the last word's unused bits).
inline void PackBits(const uint8_t* buf, size_t len, uint64_t* out) {
  for (size_t w = 0; w < (len + 63) / 64; ++w) out[w] = PackWord(buf + w * 64);
}

// Appends base + i for every answer buf[i] = 1, i < len, ascending, at sel[n];
// returns the new n. buf padded as for PackBits. 64 answers packed into a word,
// then one store per set bit (count trailing zeros), so the mostly-absent
// probes a filter exists for cost nothing past the bitmap.
inline size_t AppendSelected(const uint8_t* buf, size_t len, uint32_t base, uint32_t* sel, size_t n) {
  for (size_t w = 0; w < (len + 63) / 64; ++w) {
    uint64_t word = PackWord(buf + w * 64);
    const uint32_t at = base + static_cast<uint32_t>(w * 64);
    while (word != 0) {
      sel[n++] = at + static_cast<uint32_t>(std::countr_zero(word));
      word &= word - 1;
    }
  }
  return n;
}

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_PACK_H_
