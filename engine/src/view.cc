// SPDX-License-Identifier: Apache-2.0
#include "blockbloom/view.h"

#include <atomic>
#include <bit>
#include <cstring>
#include <string>

#include "engine/src/batch.h"
#include "engine/src/filter_access.h"
#include "engine/src/hash_inline.h"
#include "kernels/kernels.h"
#include "kernels/reference.h"

namespace blockbloom {
namespace {

// The payload of the empty filter: one zero line. Every index of a filter of
// 0 blocks is 0 (kernels.h), so queries read only this line and answer false.
alignas(64) const uint8_t kEmptyLine[64] = {};

}  // namespace

FilterView::FilterView() noexcept
    : FilterView(Layout::kBlocked512, 1, 0, HashKind::kXxh3, 0, 0, kEmptyLine) {}

FilterView::FilterView(Layout layout, uint32_t k, uint64_t num_blocks, HashKind hash, uint64_t seed,
                       uint64_t inserted, const uint8_t* bits) noexcept
    : layout_(layout),
      k_(k),
      num_blocks_(num_blocks),
      hash_(hash),
      seed_(seed),
      inserted_(inserted),
      bytes_(LayoutPayloadBytes(layout, num_blocks)),
      bits_(const_cast<uint8_t*>(bits)) {}

uint64_t FilterView::inserted() const {
  return std::atomic_ref<uint64_t>(const_cast<uint64_t&>(inserted_)).load(std::memory_order_relaxed);
}

// ---- One key ----------------------------------------------------------------------
// The scalar reference: a dispatched call and a pipeline would cost more than
// the probe itself.
bool FilterView::MayContainHash(uint64_t hash) const {
  return kernels::reference::QueryHash(detail::FilterAccess::Ref(*this), hash);
}
bool FilterView::MayContain(uint64_t key) const { return MayContainHash(detail::HashU64Inline(key, hash_, seed_)); }
bool FilterView::MayContain(std::string_view key) const {
  return MayContainHash(detail::HashBytesInline(key.data(), key.size(), hash_, seed_));
}

// ---- Batches ------------------------------------------------------------------------
size_t FilterView::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const {
  detail::CheckOutSize(hashes.size(), out.size());
  return kernels::Active().query_hashes(detail::FilterAccess::Ref(*this), hashes.data(), hashes.size(), out.data());
}
size_t FilterView::MayContainBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const {
  detail::CheckOutSize(keys.size(), out.size());
  return detail::QueryBatch(detail::FilterAccess::Ref(*this), hash_, seed_, keys, out.data());
}
size_t FilterView::MayContainBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const {
  detail::CheckOutSize(keys.size(), out.size());
  return detail::QueryBatch(detail::FilterAccess::Ref(*this), hash_, seed_, keys, out.data());
}

// ---- Beside concurrent writers -------------------------------------------------------
bool FilterView::MayContainHashAtomic(uint64_t hash) const {
  return kernels::reference::QueryHashAtomic(detail::FilterAccess::Ref(*this), hash);
}
bool FilterView::MayContainAtomic(uint64_t key) const {
  return MayContainHashAtomic(detail::HashU64Inline(key, hash_, seed_));
}
size_t FilterView::MayContainBatchAtomic(std::span<const uint64_t> keys, std::span<uint8_t> out) const {
  detail::CheckOutSize(keys.size(), out.size());
  return detail::QueryBatchAtomic(detail::FilterAccess::Ref(*this), hash_, seed_, keys, out.data());
}

// ---- Introspection -------------------------------------------------------------------
uint64_t FilterView::PopCount() const {
  uint64_t count = 0;
  for (uint64_t i = 0; i < bytes_; i += 8) {
    uint64_t w;
    std::memcpy(&w, bits_ + i, 8);
    count += static_cast<uint64_t>(std::popcount(w));
  }
  return count;
}

double FilterView::FillRatio() const {
  return empty() ? 0.0 : static_cast<double>(PopCount()) / static_cast<double>(bit_count());
}

bool FilterView::CompatibleWith(const FilterView& o, std::string* why) const {
  auto differ = [&](const std::string& what, const std::string& a, const std::string& b) {
    if (why) *why = what + " differs: " + a + " vs " + b;
    return false;
  };
  if (layout_ != o.layout_) return differ("layout", std::string(LayoutName(layout_)), std::string(LayoutName(o.layout_)));
  if (num_blocks_ != o.num_blocks_)
    return differ("number of " + std::string(LayoutUnitName(layout_)), std::to_string(num_blocks_),
                  std::to_string(o.num_blocks_));
  if (k_ != o.k_) return differ("k", std::to_string(k_), std::to_string(o.k_));
  if (hash_ != o.hash_) return differ("hash", std::string(HashName(hash_)), std::string(HashName(o.hash_)));
  if (seed_ != o.seed_) return differ("seed", std::to_string(seed_), std::to_string(o.seed_));
  return true;
}

bool FilterView::operator==(const FilterView& o) const {
  return CompatibleWith(o) && std::memcmp(bits_, o.bits_, bytes_) == 0;
}

}  // namespace blockbloom
