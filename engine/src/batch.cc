// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/hash.h"
#include "engine/src/batch.h"

#include <algorithm>
#include <string>
#include <type_traits>

#include "engine/src/errors.h"
#include "engine/src/hash_inline.h"
#include "kernels/reference.h"

namespace blockbloom::detail {
namespace {

// Keys hashed per chunk where the kernels do not hash (strings, atomic
// inserts): the kernels' own chunk (kernels.h).
using kernels::kHashChunk;

// Hashes keys chunk by chunk into two L1 buffers, one chunk ahead, and hands
// each chunk to fn together with its successor, so the kernels' look-ahead
// runs across chunk boundaries instead of restarting cold every chunk.
template <typename Key, typename Fn>
void ForEachHashChunk(std::span<const Key> keys, HashKind kind, uint64_t seed, Fn&& fn) {
  alignas(64) uint64_t buf[2][kHashChunk];
  auto hash_chunk = [&](size_t start, uint64_t* out) {
    const size_t len = std::min(kHashChunk, keys.size() - start);
    if constexpr (std::is_same_v<Key, uint64_t>) {
      kernels::Active().hash_u64(keys.data() + start, len, seed, kind, out);  // XXH3 in vectors, AES-NI
    } else {
      for (size_t i = 0; i < len; ++i)
        out[i] = HashBytesInline(keys[start + i].data(), keys[start + i].size(), kind, seed);
    }
    return len;
  };
  if (keys.empty()) return;
  size_t len = hash_chunk(0, buf[0]);
  for (size_t start = 0, c = 0; start < keys.size(); ++c) {
    const size_t next_start = start + len;
    const size_t nlen = next_start < keys.size() ? hash_chunk(next_start, buf[(c + 1) & 1]) : 0;
    fn(buf[c & 1], len, buf[(c + 1) & 1], nlen, start);
    start = next_start;
    len = nlen;
  }
}

template <typename Key>
size_t QueryChunks(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const Key> keys,
                   uint8_t* out) {
  const kernels::Ops& ops = kernels::Active();
  size_t hits = 0;
  ForEachHashChunk(keys, kind, seed, [&](const uint64_t* h, size_t n, const uint64_t* next, size_t nn, size_t start) {
    hits += ops.query_hashes_ahead(ref, h, n, next, nn, out + start);
  });
  return hits;
}

template <typename Key>
void InsertChunks(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const Key> keys) {
  const kernels::Ops& ops = kernels::Active();
  ForEachHashChunk(keys, kind, seed, [&](const uint64_t* h, size_t n, const uint64_t* next, size_t nn, size_t) {
    ops.insert_hashes_ahead(ref, h, n, next, nn);
  });
}

}  // namespace

void CheckOutSize(size_t keys, size_t out) {
  if (out < keys)
    Invalid("out.size() = " + std::to_string(out) + " is too small: expected at least keys.size() = " +
            std::to_string(keys));
}

size_t QueryBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys,
                  uint8_t* out) {
  // 8-byte keys are hashed inside the kernels, interleaved with the probes
  // (XXH3 in vectors, the other kinds key by key).
  return kernels::Active().query_keys(ref, keys.data(), keys.size(), seed, kind, out);
}

size_t QueryBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed,
                  std::span<const std::string_view> keys, uint8_t* out) {
  return QueryChunks(ref, kind, seed, keys, out);
}

void InsertBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys) {
  kernels::Active().insert_keys(ref, keys.data(), keys.size(), seed, kind);
}

void InsertBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed,
                 std::span<const std::string_view> keys) {
  InsertChunks(ref, kind, seed, keys);
}

size_t QueryBatchAtomic(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys,
                        uint8_t* out) {
  size_t hits = 0;
  ForEachHashChunk(keys, kind, seed, [&](const uint64_t* h, size_t n, const uint64_t*, size_t, size_t start) {
    for (size_t i = 0; i < n; ++i) {
      out[start + i] = kernels::reference::QueryHashAtomic(ref, h[i]) ? 1 : 0;
      hits += out[start + i];
    }
  });
  return hits;
}

void HashInChunks(std::span<const uint64_t> keys, HashKind kind, uint64_t seed, const HashChunkFn& fn) {
  ForEachHashChunk(keys, kind, seed, fn);
}
void HashInChunks(std::span<const std::string_view> keys, HashKind kind, uint64_t seed, const HashChunkFn& fn) {
  ForEachHashChunk(keys, kind, seed, fn);
}

void InsertBatchAtomic(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys) {
  const kernels::Ops& ops = kernels::Active();
  ForEachHashChunk(keys, kind, seed, [&](const uint64_t* h, size_t n, const uint64_t* next, size_t nn, size_t) {
    ops.insert_hashes_atomic(ref, h, n, next, nn);
  });
}

}  // namespace blockbloom::detail
