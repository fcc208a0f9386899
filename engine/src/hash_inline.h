// SPDX-License-Identifier: Apache-2.0
// The one place xxHash is included (inline: hashing an 8-byte key through the
// shared library's call costs ~10x the inlined form). No XXH_* type leaves
// this header's users.
#ifndef BLOCKBLOOM_ENGINE_HASH_INLINE_H_
#define BLOCKBLOOM_ENGINE_HASH_INLINE_H_

#include <cstdint>
#include <cstring>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "blockbloom/hash.h"
#include "engine/src/xxph3.h"
#include "kernels/common.h"

namespace blockbloom::detail {

// The hash of the key's 8 little-endian bytes, computed in registers
// (kernels/common.h says why not through a byte buffer); tests hold it equal
// to HashBytesInline of those bytes for every kind. "aes" goes through the
// active kernels (one call), which use the CPU's AES instructions
// (kernels/aes-inl.h): its portable form took ~50 ns a key on Zen 5.
inline uint64_t HashU64Inline(uint64_t key, HashKind kind, uint64_t seed) {
  if (kind == HashKind::kAes) {
    uint64_t h;
    kernels::Active().hash_u64(&key, 1, seed, kind, &h);
    return h;
  }
  return kernels::HashU64WithConstant(key, kind, kernels::KeyHashConstant(kind, seed));
}

inline uint64_t HashBytesInline(const void* data, size_t len, HashKind kind, uint64_t seed) {
  if (kind == HashKind::kXxh64) return XXH64(data, len, seed);
  // The preview's default secret is released XXH3's (the same 192 bytes).
  if (kind == HashKind::kRocksdb) return kernels::Rotl64(xxph3::Hash64(data, len, seed, XXH3_kSecret), 32);
  if ((kind == HashKind::kMulx || kind == HashKind::kAes || kind == HashKind::kFoldMul) && len == 8) {
    uint64_t key;
    std::memcpy(&key, data, 8);
    return HashU64Inline(kernels::LoadLE64Value(key), kind, seed);
  }
  return XXH3_64bits_withSeed(data, len, seed);
}

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_HASH_INLINE_H_
