// SPDX-License-Identifier: Apache-2.0
// Little-endian field access and hex for the engine's file formats (filter
// files, format.cc; garden files, garden_format.cc): one copy of each helper.
#ifndef BLOCKBLOOM_ENGINE_BYTES_H_
#define BLOCKBLOOM_ENGINE_BYTES_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace blockbloom::detail {

// The `bytes`-byte little-endian integer at p (bytes <= 8).
inline uint64_t LoadLE(const uint8_t* p, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i) v |= static_cast<uint64_t>(p[i]) << (8 * i);
  return v;
}
// Stores the low `bytes` bytes of v at p, little-endian.
inline void StoreLE(uint8_t* p, uint64_t v, size_t bytes) {
  for (size_t i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
}
// "0x0123456789abcdef", for checksums in messages.
inline std::string Hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// XXH3-64 (seed 0) of header[0, header_bytes) followed by body[0, body_bytes),
// in one streaming pass: the checksum of both file formats (the filter file
// covers its header's first 56 bytes, the garden file its first 40; defined
// in format.cc).
uint64_t HeaderBodyChecksum(const uint8_t* header, size_t header_bytes, const uint8_t* body, uint64_t body_bytes);

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_BYTES_H_
