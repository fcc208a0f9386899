// SPDX-License-Identifier: Apache-2.0
// Hash once, probe many filters: one batch of keys against a span of filters
// (an LSM store's filters of many files, a query engine's filter per
// partition), each key hashed once instead of once per filter.
//
//   std::vector<const blockbloom::FilterView*> filters = {&level0, &level1, &mapped_file};
//   std::vector<uint8_t> hit(keys.size() * filters.size());
//   blockbloom::MayContainMany(filters, keys, hit);  // hit[i * 3 + j]: key i may be in filter j
//
// The filters must share the hash kind and seed (the hash is what is computed
// once); their layouts, k and sizes may differ. Stages: the keys are hashed in
// chunks of kernels::kHashChunk (512) into two L1 buffers, one chunk ahead;
// each chunk is then probed against every filter in turn through that
// filter's hash-batch kernel (the one MayContainHashBatch calls), which also
// prefetches that filter's blocks for the next chunk, so every filter's
// look-ahead runs on across chunks instead of restarting cold 512 keys later.
// Each form answers exactly as the loop it replaces,
//   for j: filters[j]->MayContainBatch(keys, ...)   (MayContainHashBatch for the Hash forms),
// on every target.
//
// Errors (std::invalid_argument, "blockbloom: ...", nothing written): a null
// filter pointer, or a filter whose hash kind or seed differs from the first
// filter's, named by its index and both values ("filters[2] hashes with xxh64
// seed 0: expected xxh3 seed 0, as filters[0] ..."); an output smaller than
// stated below. Empty filters (default-constructed, moved-from) answer false
// whatever the hash, so they are exempt from the check and the first
// non-empty filter is the one the others must match. No filters: returns 0.
//
// Thread safety: as FilterView's queries (view.h) for each filter.
#ifndef BLOCKBLOOM_MANY_H_
#define BLOCKBLOOM_MANY_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "blockbloom/view.h"

namespace blockbloom {

// The filters of one probe: pointers to any views (a Filter and a
// MappedFilter are FilterViews), valid for the call.
using FilterPtrs = std::span<const FilterView* const>;

// ---- Key x filter byte matrix ----------------------------------------------------
// out[i * filters.size() + j] = 1 if filters[j] may contain keys[i], else 0
// (row i: one key against every filter). out must hold keys.size() *
// filters.size() bytes. Returns the count of 1s.
size_t MayContainMany(FilterPtrs filters, std::span<const uint64_t> keys, std::span<uint8_t> out);
size_t MayContainMany(FilterPtrs filters, std::span<const std::string_view> keys, std::span<uint8_t> out);
size_t MayContainHashMany(FilterPtrs filters, std::span<const uint64_t> hashes, std::span<uint8_t> out);

// ---- A bitmap per filter ------------------------------------------------------------
// With W = ceil(keys.size() / 64) words per filter, row j = bitmap[j * W, (j + 1) * W)
// is filter j's bitmap, exactly as FilterView::MayContainBatchBitmap writes it:
// bit i % 64 of word i / 64 (LSB-first) is 1 if filters[j] may contain keys[i];
// the unused high bits of a row's last word are 0. bitmap must hold
// filters.size() * W words. Returns the count of 1s.
size_t MayContainManyBitmap(FilterPtrs filters, std::span<const uint64_t> keys, std::span<uint64_t> bitmap);
size_t MayContainManyBitmap(FilterPtrs filters, std::span<const std::string_view> keys, std::span<uint64_t> bitmap);
size_t MayContainHashManyBitmap(FilterPtrs filters, std::span<const uint64_t> hashes, std::span<uint64_t> bitmap);

// ---- A selection vector per filter ----------------------------------------------------
// With n = keys.size(): row j = sel[j * n, (j + 1) * n); its first counts[j]
// entries are the indices of the keys filters[j] may contain, ascending (as
// FilterView::MayContainBatchSelect); the rest of the row may be overwritten.
// sel must hold filters.size() * n indices, counts filters.size() entries,
// and n be at most 2^32. Returns the sum of counts.
size_t MayContainManySelect(FilterPtrs filters, std::span<const uint64_t> keys, std::span<uint32_t> sel,
                            std::span<size_t> counts);
size_t MayContainManySelect(FilterPtrs filters, std::span<const std::string_view> keys, std::span<uint32_t> sel,
                            std::span<size_t> counts);
size_t MayContainHashManySelect(FilterPtrs filters, std::span<const uint64_t> hashes, std::span<uint32_t> sel,
                                std::span<size_t> counts);

}  // namespace blockbloom

#endif  // BLOCKBLOOM_MANY_H_
