#include "blockbloom/filter.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "blockbloom/model.h"
#include "engine/src/batch.h"
#include "engine/src/hash.h"
#include "engine/src/memory.h"
#include "kernels/kernels.h"
#include "kernels/layout.h"
#include "kernels/reference.h"

namespace blockbloom {
namespace {

kernels::FilterRef Ref(Layout layout, uint64_t num_blocks, uint32_t k, const uint8_t* bits) {
  return {const_cast<uint8_t*>(bits), num_blocks, k, static_cast<kernels::LayoutId>(layout)};
}

[[noreturn]] void Invalid(const std::string& msg) { throw std::invalid_argument("blockbloom: " + msg); }

void CheckK(Layout layout, uint32_t k) {
  if (LayoutAcceptsK(layout, k)) return;
  std::string allowed = std::to_string(LayoutMinK(layout)) + ".." + std::to_string(LayoutMaxK(layout));
  if (layout == Layout::kSectorized512) allowed = "1, 2, 4, 8 or 16";
  Invalid("k = " + std::to_string(k) + " is out of range for layout " + std::string(LayoutName(layout)) +
          ": expected " + allowed);
}

uint64_t MaxBlocks(Layout layout) {
  return layout == Layout::kClassic ? kernels::kMaxClassicBits : kernels::kMaxBlocks;
}

void CheckBlocks(Layout layout, uint64_t num_blocks) {
  if (num_blocks >= 1 && num_blocks <= MaxBlocks(layout)) return;
  const char* what = layout == Layout::kClassic ? "bits" : "blocks";
  Invalid(std::string("number of ") + what + " = " + std::to_string(num_blocks) + " is out of range for layout " +
          std::string(LayoutName(layout)) + ": expected 1.." + std::to_string(MaxBlocks(layout)));
}

}  // namespace

// ---- Construction ---------------------------------------------------------------

Filter::Filter(Layout layout, uint64_t num_blocks, uint32_t k, HashKind hash, uint64_t seed)
    : layout_(layout), k_(k), num_blocks_(num_blocks), hash_(hash), seed_(seed) {
  if (!ParseLayout(LayoutName(layout))) Invalid("layout = " + std::to_string(static_cast<int>(layout)) + " is unknown");
  if (hash != HashKind::kXxh3 && hash != HashKind::kXxh64)
    Invalid("hash = " + std::to_string(static_cast<int>(hash)) + " is unknown: expected xxh3 or xxh64");
  CheckK(layout, k);
  CheckBlocks(layout, num_blocks);
  bytes_ = kernels::PayloadBytes(static_cast<kernels::LayoutId>(layout), num_blocks);
  Allocate();
}

Filter Filter::WithBits(Layout layout, uint64_t bits, uint32_t k, HashKind hash, uint64_t seed) {
  if (bits == 0) Invalid("bits = 0 is out of range: expected at least 1");
  const uint64_t block = LayoutBlockBits(layout);
  const uint64_t max_bits = MaxBlocks(layout) * block;
  if (bits > max_bits)
    Invalid("bits = " + std::to_string(bits) + " is out of range for layout " + std::string(LayoutName(layout)) +
            ": expected 1.." + std::to_string(max_bits));
  return Filter(layout, (bits + block - 1) / block, k, hash, seed);
}

Filter Filter::WithBytes(Layout layout, uint64_t bytes, uint32_t k, HashKind hash, uint64_t seed) {
  if (bytes == 0) Invalid("bytes = 0 is out of range: expected at least 1");
  // bytes x 8 must not wrap (2^61 x 8 = 2^64 would read as 0 bits).
  const uint64_t max_bytes = MaxBlocks(layout) * LayoutBlockBits(layout) / 8;
  if (bytes > max_bytes)
    Invalid("bytes = " + std::to_string(bytes) + " is out of range for layout " + std::string(LayoutName(layout)) +
            ": expected 1.." + std::to_string(max_bytes));
  return WithBits(layout, bytes * 8, k, hash, seed);
}

Filter Filter::ForKeys(Layout layout, uint64_t expected_keys, double fpr, HashKind hash, uint64_t seed) {
  const FilterParams p = SolveForKeys(layout, expected_keys, fpr);
  return Filter(layout, p.num_blocks, p.k, hash, seed);
}

void Filter::Allocate() {
  const detail::LineMemory m = detail::AllocateLines(bytes_);
  bits_ = m.data;
  mmapped_ = m.mapped;
}

void Filter::Release() {
  detail::FreeLines({bits_, bytes_, mmapped_});
  bits_ = nullptr;
}

Filter::Filter(const Filter& o)
    : layout_(o.layout_), k_(o.k_), num_blocks_(o.num_blocks_), hash_(o.hash_), seed_(o.seed_),
      bytes_(o.bytes_), inserted_(o.inserted()) {
  Allocate();
  std::memcpy(bits_, o.bits_, bytes_);
}

Filter& Filter::operator=(const Filter& o) {
  if (this != &o) {
    Filter copy(o);
    *this = std::move(copy);
  }
  return *this;
}

Filter::Filter(Filter&& o) noexcept
    : layout_(o.layout_), k_(o.k_), num_blocks_(o.num_blocks_), hash_(o.hash_), seed_(o.seed_),
      bytes_(o.bytes_), bits_(o.bits_), mmapped_(o.mmapped_), inserted_(o.inserted()) {
  o.bits_ = nullptr;
  o.bytes_ = 0;
}

Filter& Filter::operator=(Filter&& o) noexcept {
  if (this != &o) {
    Release();
    layout_ = o.layout_;
    k_ = o.k_;
    num_blocks_ = o.num_blocks_;
    hash_ = o.hash_;
    seed_ = o.seed_;
    bytes_ = o.bytes_;
    bits_ = o.bits_;
    mmapped_ = o.mmapped_;
    inserted_.store(o.inserted(), std::memory_order_relaxed);
    o.bits_ = nullptr;
    o.bytes_ = 0;
  }
  return *this;
}

Filter::~Filter() { Release(); }

// ---- One key ----------------------------------------------------------------------
// Single keys go straight to the scalar reference: a dispatched call and a
// pipeline would cost more than the probe itself.

void Filter::InsertHash(uint64_t hash) {
  kernels::reference::InsertHash(Ref(layout_, num_blocks_, k_, bits_), hash);
  inserted_.fetch_add(1, std::memory_order_relaxed);
}
void Filter::Insert(uint64_t key) { InsertHash(detail::HashU64Inline(key, hash_, seed_)); }
void Filter::Insert(std::string_view key) {
  InsertHash(detail::HashBytesInline(key.data(), key.size(), hash_, seed_));
}

bool Filter::MayContainHash(uint64_t hash) const {
  return kernels::reference::QueryHash(Ref(layout_, num_blocks_, k_, bits_), hash);
}
bool Filter::MayContain(uint64_t key) const { return MayContainHash(detail::HashU64Inline(key, hash_, seed_)); }
bool Filter::MayContain(std::string_view key) const {
  return MayContainHash(detail::HashBytesInline(key.data(), key.size(), hash_, seed_));
}

// ---- Batches ------------------------------------------------------------------------

void Filter::InsertHashBatch(std::span<const uint64_t> hashes) {
  kernels::Active().insert_hashes(Ref(layout_, num_blocks_, k_, bits_), hashes.data(), hashes.size());
  inserted_.fetch_add(hashes.size(), std::memory_order_relaxed);
}

void Filter::InsertBatch(std::span<const uint64_t> keys) {
  detail::InsertBatch(Ref(layout_, num_blocks_, k_, bits_), hash_, seed_, keys);
  inserted_.fetch_add(keys.size(), std::memory_order_relaxed);
}

void Filter::InsertBatch(std::span<const std::string_view> keys) {
  detail::InsertBatch(Ref(layout_, num_blocks_, k_, bits_), hash_, seed_, keys);
  inserted_.fetch_add(keys.size(), std::memory_order_relaxed);
}

size_t Filter::MayContainHashBatch(std::span<const uint64_t> hashes, std::span<uint8_t> out) const {
  detail::CheckOutSize(hashes.size(), out.size());
  return kernels::Active().query_hashes(Ref(layout_, num_blocks_, k_, bits_), hashes.data(), hashes.size(),
                                        out.data());
}

size_t Filter::MayContainBatch(std::span<const uint64_t> keys, std::span<uint8_t> out) const {
  detail::CheckOutSize(keys.size(), out.size());
  return detail::QueryBatch(Ref(layout_, num_blocks_, k_, bits_), hash_, seed_, keys, out.data());
}

size_t Filter::MayContainBatch(std::span<const std::string_view> keys, std::span<uint8_t> out) const {
  detail::CheckOutSize(keys.size(), out.size());
  return detail::QueryBatch(Ref(layout_, num_blocks_, k_, bits_), hash_, seed_, keys, out.data());
}

// ---- Concurrent writers ---------------------------------------------------------------

void Filter::InsertHashAtomic(uint64_t hash) {
  kernels::reference::InsertHashAtomic(Ref(layout_, num_blocks_, k_, bits_), hash);
  inserted_.fetch_add(1, std::memory_order_relaxed);
}
void Filter::InsertAtomic(uint64_t key) { InsertHashAtomic(detail::HashU64Inline(key, hash_, seed_)); }

void Filter::InsertBatchAtomic(std::span<const uint64_t> keys) {
  detail::InsertBatchAtomic(Ref(layout_, num_blocks_, k_, bits_), hash_, seed_, keys);
  inserted_.fetch_add(keys.size(), std::memory_order_relaxed);
}

// ---- Set operations -----------------------------------------------------------------------

bool Filter::CompatibleWith(const Filter& o, std::string* why) const {
  auto differ = [&](const std::string& what, const std::string& a, const std::string& b) {
    if (why) *why = what + " differs: " + a + " vs " + b;
    return false;
  };
  if (layout_ != o.layout_) return differ("layout", std::string(LayoutName(layout_)), std::string(LayoutName(o.layout_)));
  if (num_blocks_ != o.num_blocks_)
    return differ(layout_ == Layout::kClassic ? "bits" : "number of blocks", std::to_string(num_blocks_),
                  std::to_string(o.num_blocks_));
  if (k_ != o.k_) return differ("k", std::to_string(k_), std::to_string(o.k_));
  if (hash_ != o.hash_) return differ("hash", std::string(HashName(hash_)), std::string(HashName(o.hash_)));
  if (seed_ != o.seed_) return differ("seed", std::to_string(seed_), std::to_string(o.seed_));
  return true;
}

void Filter::UnionWith(const Filter& o) {
  std::string why;
  if (!CompatibleWith(o, &why)) Invalid("cannot union filters: " + why);
  for (uint64_t i = 0; i < bytes_; ++i) bits_[i] |= o.bits_[i];
  inserted_.fetch_add(o.inserted(), std::memory_order_relaxed);
}

void Filter::Clear() {
  std::memset(bits_, 0, bytes_);
  inserted_.store(0, std::memory_order_relaxed);
}

uint64_t Filter::bit_count() const {
  return layout_ == Layout::kClassic ? num_blocks_ : num_blocks_ * LayoutBlockBits(layout_);
}

uint64_t Filter::PopCount() const {
  uint64_t count = 0;
  for (uint64_t i = 0; i < bytes_; i += 8) {
    uint64_t w;
    std::memcpy(&w, bits_ + i, 8);
    count += static_cast<uint64_t>(std::popcount(w));
  }
  return count;
}

bool Filter::operator==(const Filter& o) const {
  return CompatibleWith(o) && std::memcmp(bits_, o.bits_, bytes_) == 0;
}

}  // namespace blockbloom
