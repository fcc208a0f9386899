// SPDX-License-Identifier: Apache-2.0
// The batch paths of FilterView (and so of Filter and MappedFilter): hash in L1-sized chunks where the kernels cannot (strings, XXH64),
// then hand each chunk to the active target's kernels.
#ifndef BLOCKBLOOM_ENGINE_BATCH_H_
#define BLOCKBLOOM_ENGINE_BATCH_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

#include "blockbloom/hash.h"
#include "kernels/kernels.h"

namespace blockbloom::detail {

// Throws std::invalid_argument naming out.size() if it is below `keys`.
void CheckOutSize(size_t keys, size_t out);

// ref: a valid FilterRef (kernels.h); out: keys.size() bytes. Returns the hits.
size_t QueryBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys,
                  uint8_t* out);
size_t QueryBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed,
                  std::span<const std::string_view> keys, uint8_t* out);
void InsertBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys);
void InsertBatch(const kernels::FilterRef& ref, HashKind kind, uint64_t seed,
                 std::span<const std::string_view> keys);
// Beside concurrent writers: relaxed atomic loads (the reference's QueryHashAtomic).
size_t QueryBatchAtomic(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys,
                        uint8_t* out);
// Concurrent writers: every word touched is ORed atomically.
void InsertBatchAtomic(const kernels::FilterRef& ref, HashKind kind, uint64_t seed, std::span<const uint64_t> keys);

// Stage 1 alone, for callers that probe each chunk of hashes more than once
// (the many-filter probe, many.cc): hashes keys in chunks of kernels::kHashChunk
// into two L1 buffers, one chunk ahead, and calls
//   fn(hashes, n, next, nnext, start)
// with hashes[0, n) = the hashes of keys[start, start + n) and next[0, nnext)
// those of the following chunk (nnext = 0 at the end), both valid only during the call.
using HashChunkFn = std::function<void(const uint64_t* hashes, size_t n, const uint64_t* next, size_t nnext,
                                       size_t start)>;
void HashInChunks(std::span<const uint64_t> keys, HashKind kind, uint64_t seed, const HashChunkFn& fn);
void HashInChunks(std::span<const std::string_view> keys, HashKind kind, uint64_t seed, const HashChunkFn& fn);

}  // namespace blockbloom::detail

#endif  // BLOCKBLOOM_ENGINE_BATCH_H_
