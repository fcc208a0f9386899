// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/many.h"

#include <algorithm>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "engine/src/batch.h"
#include "engine/src/errors.h"
#include "engine/src/filter_access.h"
#include "engine/src/pack.h"
#include "kernels/kernels.h"

namespace blockbloom {
namespace {

using kernels::kHashChunk;
// A chunk's answers pack into whole bitmap words, so each chunk starts a word.
static_assert(kHashChunk % 64 == 0, "a chunk must cover whole 64-key bitmap words");

// The filter whose hash kind and seed the keys are hashed with: the first
// non-empty one (an empty filter answers false whatever the hash, so it
// constrains nothing), filters.size() if every filter is empty. Throws naming
// the first filter that is null or hashes differently.
size_t HashSource(FilterPtrs filters) {
  size_t src = filters.size();
  for (size_t j = 0; j < filters.size(); ++j) {
    if (filters[j] == nullptr) detail::Invalid("filters[" + std::to_string(j) + "] is null: expected a filter");
    const FilterView& f = *filters[j];
    if (f.empty()) continue;
    if (src == filters.size()) {
      src = j;
      continue;
    }
    const FilterView& first = *filters[src];
    if (f.hash_kind() != first.hash_kind() || f.seed() != first.seed())
      detail::Invalid("filters[" + std::to_string(j) + "] hashes with " + std::string(HashName(f.hash_kind())) +
                      " seed " + std::to_string(f.seed()) + ": expected " + std::string(HashName(first.hash_kind())) +
                      " seed " + std::to_string(first.seed()) + ", as filters[" + std::to_string(src) +
                      "] (one hash pass serves only filters of one hash kind and seed)");
  }
  return src;
}

// n * m, or an error naming `what` if it does not fit in size_t.
size_t Product(size_t n, size_t m, const char* what) {
  if (m != 0 && n > SIZE_MAX / m)
    detail::Invalid(std::string(what) + " = " + std::to_string(n) + " x " + std::to_string(m) +
                    " overflows size_t: expected a smaller batch");
  return n * m;
}

void CheckSize(const char* what, size_t have, size_t need, const char* expected) {
  if (have < need)
    detail::Invalid(std::string(what) + " = " + std::to_string(have) + " is too small: expected at least " +
                    expected + " = " + std::to_string(need));
}

// The probe, one group of hashes at a time (at most kGroupHashes, 128 KiB, held
// in the L2): each filter walks the whole group, chunk after chunk, with the
// look-ahead reaching into its next chunk: per filter, the same long pipeline
// as its own MayContainHashBatch, without hashing the keys again. (Switching
// filters every chunk instead restarted each filter's look-ahead every 512
// keys: 0.71-0.86x of the per-filter loop on a Zen 4, issue 24.) Filter j's
// answers for a chunk go to sink(j, answers, start, len) in a 64-byte aligned
// buffer zero-padded to whole words. `groups(fn)` calls fn(hashes, n, start)
// for consecutive groups, every one but the last of kGroupHashes.
constexpr size_t kGroupHashes = 32 * kHashChunk;
using GroupFn = std::function<void(const uint64_t* hashes, size_t n, size_t start)>;
template <typename Groups, typename Sink>
size_t Probe(FilterPtrs filters, Groups&& groups, Sink&& sink) {
  const kernels::Ops& ops = kernels::Active();
  std::vector<kernels::FilterRef> refs;
  refs.reserve(filters.size());
  for (const FilterView* f : filters) refs.push_back(detail::FilterAccess::Ref(*f));
  size_t hits = 0;
  groups([&](const uint64_t* group, size_t size, size_t group_start) {
    alignas(64) uint8_t buf[kHashChunk];
    for (size_t j = 0; j < refs.size(); ++j) {
      for (size_t c = 0; c < size; c += kHashChunk) {
        const size_t n = std::min(kHashChunk, size - c);
        const size_t nnext = std::min(kHashChunk, size - c - n);
        std::memset(buf + n, 0, kHashChunk - n);  // a short last chunk: the row's unused bits
        hits += ops.query_hashes_ahead(refs[j], group + c, n, group + c + n, nnext, buf);
        sink(j, buf, group_start + c, n);
      }
    }
  });
  return hits;
}

// The group producers: keys hashed once with the filters' hash (gathered from
// the hashing's 512-key chunks), or slices of the caller's hashes, read in place.
// (Every filter empty: hashed as any empty filter would, xxh3 seed 0; all answers false.)
template <typename Key>
auto KeyGroups(FilterPtrs filters, std::span<const Key> keys) {
  return [filters, keys](const GroupFn& fn) {
    if (filters.empty()) return;
    const size_t src = HashSource(filters);
    const FilterView& by = src < filters.size() ? *filters[src] : *filters[0];
    std::vector<uint64_t> group;
    group.reserve(std::min(kGroupHashes, keys.size()));
    size_t start = 0;
    detail::HashInChunks(keys, by.hash_kind(), by.seed(),
                         [&](const uint64_t* h, size_t n, const uint64_t*, size_t, size_t) {
                           group.insert(group.end(), h, h + n);
                           if (group.size() == kGroupHashes) {
                             fn(group.data(), group.size(), start);
                             start += group.size();
                             group.clear();
                           }
                         });
    if (!group.empty()) fn(group.data(), group.size(), start);
  };
}
auto HashGroups(FilterPtrs filters, std::span<const uint64_t> hashes) {
  return [filters, hashes](const GroupFn& fn) {
    if (filters.empty()) return;
    for (size_t start = 0; start < hashes.size(); start += kGroupHashes)
      fn(hashes.data() + start, std::min(kGroupHashes, hashes.size() - start), start);
  };
}

// ---- The three output forms over any group producer ----------------------------------
template <typename Groups>
size_t Matrix(FilterPtrs filters, size_t n, Groups&& groups, std::span<uint8_t> out) {
  HashSource(filters);
  const size_t nf = filters.size();
  CheckSize("out.size()", out.size(), Product(n, nf, "keys.size() x filters.size()"), "keys.size() x filters.size()");
  return Probe(filters, groups, [&](size_t j, const uint8_t* buf, size_t start, size_t len) {
    uint8_t* col = out.data() + start * nf + j;
    for (size_t i = 0; i < len; ++i) col[i * nf] = buf[i];
  });
}

template <typename Groups>
size_t Bitmaps(FilterPtrs filters, size_t n, Groups&& groups, std::span<uint64_t> bitmap) {
  HashSource(filters);
  const size_t words = (n + 63) / 64;
  CheckSize("bitmap.size()", bitmap.size(), Product(words, filters.size(), "words x filters.size()"),
            "ceil(keys.size() / 64) x filters.size()");
  return Probe(filters, groups, [&](size_t j, const uint8_t* buf, size_t start, size_t len) {
    detail::PackBits(buf, len, bitmap.data() + j * words + start / 64);
  });
}

template <typename Groups>
size_t Selections(FilterPtrs filters, size_t n, Groups&& groups, std::span<uint32_t> sel,
                  std::span<size_t> counts) {
  HashSource(filters);
  if (n > (uint64_t{1} << 32))
    detail::Invalid("keys.size() = " + std::to_string(n) +
                    " is too large for 32-bit selection indices: expected at most 2^32");
  CheckSize("sel.size()", sel.size(), Product(n, filters.size(), "keys.size() x filters.size()"),
            "keys.size() x filters.size()");
  CheckSize("counts.size()", counts.size(), filters.size(), "filters.size()");
  std::fill_n(counts.begin(), filters.size(), size_t{0});
  return Probe(filters, groups, [&](size_t j, const uint8_t* buf, size_t start, size_t len) {
    counts[j] = detail::AppendSelected(buf, len, static_cast<uint32_t>(start), sel.data() + j * n, counts[j]);
  });
}

}  // namespace

size_t MayContainMany(FilterPtrs filters, std::span<const uint64_t> keys, std::span<uint8_t> out) {
  return Matrix(filters, keys.size(), KeyGroups(filters, keys), out);
}
size_t MayContainMany(FilterPtrs filters, std::span<const std::string_view> keys, std::span<uint8_t> out) {
  return Matrix(filters, keys.size(), KeyGroups(filters, keys), out);
}
size_t MayContainHashMany(FilterPtrs filters, std::span<const uint64_t> hashes, std::span<uint8_t> out) {
  return Matrix(filters, hashes.size(), HashGroups(filters, hashes), out);
}

size_t MayContainManyBitmap(FilterPtrs filters, std::span<const uint64_t> keys, std::span<uint64_t> bitmap) {
  return Bitmaps(filters, keys.size(), KeyGroups(filters, keys), bitmap);
}
size_t MayContainManyBitmap(FilterPtrs filters, std::span<const std::string_view> keys, std::span<uint64_t> bitmap) {
  return Bitmaps(filters, keys.size(), KeyGroups(filters, keys), bitmap);
}
size_t MayContainHashManyBitmap(FilterPtrs filters, std::span<const uint64_t> hashes, std::span<uint64_t> bitmap) {
  return Bitmaps(filters, hashes.size(), HashGroups(filters, hashes), bitmap);
}

size_t MayContainManySelect(FilterPtrs filters, std::span<const uint64_t> keys, std::span<uint32_t> sel,
                            std::span<size_t> counts) {
  return Selections(filters, keys.size(), KeyGroups(filters, keys), sel, counts);
}
size_t MayContainManySelect(FilterPtrs filters, std::span<const std::string_view> keys, std::span<uint32_t> sel,
                            std::span<size_t> counts) {
  return Selections(filters, keys.size(), KeyGroups(filters, keys), sel, counts);
}
size_t MayContainHashManySelect(FilterPtrs filters, std::span<const uint64_t> hashes, std::span<uint32_t> sel,
                                std::span<size_t> counts) {
  return Selections(filters, hashes.size(), HashGroups(filters, hashes), sel, counts);
}

}  // namespace blockbloom
