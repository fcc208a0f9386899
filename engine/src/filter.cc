// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/filter.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>

#include "blockbloom/model.h"
#include "engine/src/batch.h"
#include "engine/src/bytes.h"
#include "engine/src/errors.h"
#include "engine/src/filter_access.h"
#include "engine/src/hash_inline.h"
#include "engine/src/memory.h"
#include "kernels/kernels.h"
#include "kernels/reference.h"

namespace blockbloom {

using detail::FilterAccess;
using detail::Invalid;

namespace {

void CheckHashKind(HashKind hash) {
  if (static_cast<uint8_t>(hash) > static_cast<uint8_t>(kLastHashKind))
    Invalid("hash = " + std::to_string(static_cast<int>(hash)) +
            " is unknown: expected xxh3, xxh64, mulx, rocksdb, aes or foldmul");
}

}  // namespace

// ---- Construction ---------------------------------------------------------------

Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash, uint64_t seed) {
  CheckLayoutK(layout, k);
  CheckLayoutBlocks(layout, num_blocks);
  CheckHashKind(hash);
  const uint64_t bytes = LayoutPayloadBytes(layout, num_blocks);
  const detail::LineMemory m = detail::AllocateLines(bytes);
  FilterView::operator=(FilterAccess::View(layout, k, num_blocks, hash, seed, 0, m.data));
  mmapped_ = m.mapped;
}

Filter Filter::WithBlocks(Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash, uint64_t seed) {
  return Filter(layout, num_blocks, k, hash, seed);
}

Filter Filter::WithBits(Layout layout, uint64_t bits, uint32_t k, HashKind hash, uint64_t seed) {
  CheckLayoutK(layout, k);
  const uint64_t block = LayoutBlockBits(layout);
  const uint64_t max_bits = Traits(layout).max_blocks * block;
  if (bits == 0 || bits > max_bits)
    Invalid("bits = " + std::to_string(bits) + " is out of range for layout " + std::string(LayoutName(layout)) +
            ": expected 1.." + std::to_string(max_bits));
  return Filter(layout, (bits + block - 1) / block, k, hash, seed);
}

Filter Filter::WithBytes(Layout layout, uint64_t bytes, uint32_t k, HashKind hash, uint64_t seed) {
  CheckLayoutK(layout, k);
  // bytes x 8 must not wrap (2^61 x 8 = 2^64 would read as 0 bits).
  const uint64_t max_bytes = Traits(layout).max_blocks * LayoutBlockBits(layout) / 8;
  if (bytes == 0 || bytes > max_bytes)
    Invalid("bytes = " + std::to_string(bytes) + " is out of range for layout " + std::string(LayoutName(layout)) +
            ": expected 1.." + std::to_string(max_bytes));
  return WithBits(layout, bytes * 8, k, hash, seed);
}

Filter Filter::ForKeys(Layout layout, uint64_t expected_keys, double fpr, HashKind hash, uint64_t seed) {
  const FilterParams p = SolveForKeys(layout, expected_keys, fpr);
  return Filter(layout, p.num_blocks, p.k, hash, seed);
}

Filter Filter::CopyOf(const FilterView& v) {
  if (v.empty()) return Filter();
  Filter f(v.layout(), v.num_blocks(), v.k(), v.hash_kind(), v.seed());
  std::memcpy(f.one_.bits, v.data(), f.bytes_);
  f.inserted_ = v.inserted();
  return f;
}

// ---- Caller-owned memory -------------------------------------------------------------

uint64_t Filter::RequiredBytes(Layout layout, uint64_t num_blocks) {
  CheckLayoutBlocks(layout, num_blocks);
  return LayoutPayloadBytes(layout, num_blocks);
}

Filter Filter::InBuffer(std::span<uint8_t> buffer, Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash,
                        uint64_t seed, BufferInit init, uint64_t inserted) {
  CheckLayoutK(layout, k);
  CheckHashKind(hash);
  const uint64_t need = RequiredBytes(layout, num_blocks);
  const std::string what = std::string(LayoutName(layout)) + " with " + std::to_string(num_blocks) + " " +
                           std::string(LayoutUnitName(layout));
  if (buffer.size() < need)
    Invalid("buffer = " + std::to_string(buffer.size()) + " bytes is too small: " + what +
            " needs RequiredBytes = " + std::to_string(need) + " bytes");
  const auto address = reinterpret_cast<uintptr_t>(buffer.data());
  if (address % kRequiredAlignment != 0)
    Invalid("buffer address " + detail::Hex(address) + " is not aligned: expected a multiple of " +
            std::to_string(kRequiredAlignment) + " (RequiredAlignment)");
  if (init == BufferInit::kClear) {
    std::memset(buffer.data(), 0, need);
  } else {
    // Past the last block the kernels' whole-line loads see padding that must be zero.
    const uint64_t bits = LayoutBits(layout, num_blocks);
    for (uint64_t i = bits / 8; i < need; ++i) {
      const unsigned used = i == bits / 8 ? static_cast<unsigned>(bits % 8) : 0;  // the filter's bits in byte i
      if ((buffer[i] >> used) != 0)
        Invalid("buffer byte " + std::to_string(i) + " is " + std::to_string(buffer[i]) + ": " + what +
                " ends at bit " + std::to_string(bits) +
                " and the padding after it must be zero (BufferInit::kKeep expects a filter's payload)");
    }
  }
  Filter f;
  f.FilterView::operator=(FilterAccess::View(layout, k, num_blocks, hash, seed, inserted, buffer.data()));
  f.borrowed_ = true;
  return f;
}

void Filter::Release() noexcept {
  if (one_.num_blocks != 0 && !borrowed_) detail::FreeLines({one_.bits, bytes_, mmapped_});
}

void Filter::BecomeEmpty() noexcept {
  FilterView::operator=(FilterView());
  mmapped_ = false;
  borrowed_ = false;
}

Filter::Filter(const Filter& o) : Filter(CopyOf(o)) {}

Filter& Filter::operator=(const Filter& o) {
  if (this != &o) *this = CopyOf(o);
  return *this;
}

Filter::Filter(Filter&& o) noexcept
    : FilterView(static_cast<const FilterView&>(o)), mmapped_(o.mmapped_), borrowed_(o.borrowed_) {
  inserted_ = o.inserted();
  o.BecomeEmpty();
}

Filter& Filter::operator=(Filter&& o) noexcept {
  if (this != &o) {
    Release();
    FilterView::operator=(o);
    inserted_ = o.inserted();
    mmapped_ = o.mmapped_;
    borrowed_ = o.borrowed_;
    o.BecomeEmpty();
  }
  return *this;
}

Filter::~Filter() { Release(); }

void Filter::ThrowMovedFrom() {
  throw std::logic_error("blockbloom: this filter was moved from: it is empty and cannot be written; "
                         "assign a filter to it first");
}

void Filter::AddInserted(uint64_t n) {
  CheckWritable();
  std::atomic_ref<uint64_t> count(inserted_);
  uint64_t now = count.load(std::memory_order_relaxed);
  uint64_t next;
  do {
    next = now > std::numeric_limits<uint64_t>::max() - n ? std::numeric_limits<uint64_t>::max() : now + n;
  } while (!count.compare_exchange_weak(now, next, std::memory_order_relaxed));
}

// ---- One key (Insert(uint64_t) and InsertHash are inline in filter.h) -------------
void Filter::Insert(std::string_view key) { InsertHash(detail::HashBytesInline(key.data(), key.size(), hash_, seed_)); }

// ---- Batches ------------------------------------------------------------------------

void Filter::InsertHashBatch(std::span<const uint64_t> hashes) {
  CheckWritable();
  kernels::Active().insert_hashes(FilterAccess::Ref(*this), hashes.data(), hashes.size());
  AddInserted(hashes.size());
}

void Filter::InsertBatch(std::span<const uint64_t> keys) {
  CheckWritable();
  detail::InsertBatch(FilterAccess::Ref(*this), hash_, seed_, keys);
  AddInserted(keys.size());
}

void Filter::InsertBatch(std::span<const std::string_view> keys) {
  CheckWritable();
  detail::InsertBatch(FilterAccess::Ref(*this), hash_, seed_, keys);
  AddInserted(keys.size());
}

// ---- Concurrent writers ---------------------------------------------------------------

void Filter::InsertHashAtomic(uint64_t hash) {
  CheckWritable();
  insert_atomic_(&one_, hash);
  AddInserted(1);
}
void Filter::InsertAtomic(uint64_t key) { InsertHashAtomic(detail::HashU64Inline(key, hash_, seed_)); }

void Filter::InsertBatchAtomic(std::span<const uint64_t> keys) {
  CheckWritable();
  detail::InsertBatchAtomic(FilterAccess::Ref(*this), hash_, seed_, keys);
  AddInserted(keys.size());
}

// ---- Set operations -----------------------------------------------------------------------

namespace {
// dst[i] = op(dst[i], src[i]) over `bytes` (a multiple of 64), in whole 64-bit
// words: a byte loop through the members' pointers does not vectorize (bits_
// may alias them).
template <typename Op>
void CombineWords(uint8_t* dst, const uint8_t* src, uint64_t bytes, Op op) {
  for (uint64_t i = 0; i < bytes; i += 8) {
    uint64_t x, y;
    std::memcpy(&x, dst + i, 8);
    std::memcpy(&y, src + i, 8);
    x = op(x, y);
    std::memcpy(dst + i, &x, 8);
  }
}
}  // namespace

void Filter::CheckCombinable(const FilterView& o, const char* op) const {
  CheckWritable();
  std::string why;
  if (!CompatibleWith(o, &why)) Invalid(std::string("cannot ") + op + " filters: " + why);
}

void Filter::UnionWith(const FilterView& o) {
  CheckCombinable(o, "union");
  CombineWords(one_.bits, o.data(), bytes_, [](uint64_t x, uint64_t y) { return x | y; });
  AddInserted(o.inserted());
}

void Filter::IntersectWith(const FilterView& o) {
  CheckCombinable(o, "intersect");
  CombineWords(one_.bits, o.data(), bytes_, [](uint64_t x, uint64_t y) { return x & y; });
  inserted_ = std::min(inserted(), o.inserted());
}

void Filter::Clear() {
  if (empty()) return;
  std::memset(one_.bits, 0, bytes_);
  inserted_ = 0;
}

}  // namespace blockbloom
