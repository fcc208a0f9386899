#include "engine/src/batch.h"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "engine/src/hash.h"

namespace blockbloom::detail {
namespace {

// Keys hashed per chunk on the scalar hashing paths (strings, XXH64): 8 KiB of
// hashes, L1-resident, and long enough that the kernel's look-ahead restarts
// only once per 1024 keys.
constexpr size_t kHashChunk = 1024;

// Hashes keys chunk by chunk into an L1 buffer and hands each chunk to fn.
template <typename Key, typename Fn>
void ForEachHashChunk(std::span<const Key> keys, HashKind kind, uint64_t seed, Fn&& fn) {
  alignas(64) uint64_t buf[kHashChunk];
  for (size_t start = 0; start < keys.size(); start += kHashChunk) {
    const size_t len = std::min(kHashChunk, keys.size() - start);
    for (size_t i = 0; i < len; ++i) {
      if constexpr (std::is_same_v<Key, uint64_t>) {
        buf[i] = HashU64Inline(keys[start + i], kind, seed);
      } else {
        buf[i] = HashBytesInline(keys[start + i].data(), keys[start + i].size(), kind, seed);
      }
    }
    fn(buf, len, start);
  }
}

template <typename Key>
size_t QueryChunks(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const Key> keys,
                   uint8_t* out) {
  const kernels::Ops& ops = kernels::Active();
  size_t hits = 0;
  ForEachHashChunk(keys, kind, seed,
                   [&](const uint64_t* h, size_t n, size_t start) { hits += ops.query_hashes(ref, h, n, out + start); });
  return hits;
}

template <typename Key>
void InsertChunks(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const Key> keys) {
  const kernels::Ops& ops = kernels::Active();
  ForEachHashChunk(keys, kind, seed, [&](const uint64_t* h, size_t n, size_t) { ops.insert_hashes(ref, h, n); });
}

}  // namespace

void CheckOutSize(size_t keys, size_t out) {
  if (out < keys)
    throw std::invalid_argument("blockbloom: out.size() = " + std::to_string(out) +
                                " is too small: expected at least keys.size() = " + std::to_string(keys));
}

size_t QueryBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys,
                  uint8_t* out) {
  // XXH3 of 8-byte keys is vectorized inside the kernels (fused hash + probe).
  if (kind == HashKind::kXxh3) return kernels::Active().query_keys(ref, keys.data(), keys.size(), seed, out);
  return QueryChunks(ref, kind, seed, keys, out);
}

size_t QueryBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed,
                  std::span<const std::string_view> keys, uint8_t* out) {
  return QueryChunks(ref, kind, seed, keys, out);
}

void InsertBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys) {
  if (kind == HashKind::kXxh3) {
    kernels::Active().insert_keys(ref, keys.data(), keys.size(), seed);
  } else {
    InsertChunks(ref, kind, seed, keys);
  }
}

void InsertBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed,
                 std::span<const std::string_view> keys) {
  InsertChunks(ref, kind, seed, keys);
}

}  // namespace blockbloom::detail
